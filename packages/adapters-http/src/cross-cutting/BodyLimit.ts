/**
 * Request body size: at most `maxBodyBytes` (1 MiB by default, `HttpLimits`) -> else 413 problem,
 * checked on `Content-Length` and enforced while reading the body. POST, PUT, PATCH, DELETE: the
 * body is buffered once here (the route's decoder reads the same cached bytes), so that an oversized
 * body is a 413 whatever reads it first; the steps after read it from `Incoming.body`.
 */
import { ByteSize, Effect } from "effect"
import { HttpIncomingMessage } from "effect/http"
import type { Limits } from "./HttpLimits.ts"
import * as Problem from "./Problem.ts"
import { type Handler, type Incoming, respond, type Step } from "./RequestSteps.ts"

const methodsWithoutBody: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

const tooLarge = (maxBodyBytes: number) =>
  new Problem.PayloadTooLarge({
    detail: `The request body is larger than ${maxBodyBytes} bytes.`,
    code: "PAYLOAD_TOO_LARGE",
  })

/** The step, under `limits.maxBodyBytes`. */
export const step =
  (limits: Limits): Step =>
  (next: Handler): Handler => {
    const read = Effect.fnUntraced(
      function* (incoming: Incoming) {
        const read = yield* Effect.result(incoming.request.arrayBuffer)
        if (read._tag === "Failure") {
          const reason = read.failure.reason
          return yield* respond(
            reason._tag === "RequestParseError" && reason.reason === "BodyTooLarge"
              ? tooLarge(limits.maxBodyBytes)
              : new Problem.BadRequest({
                  detail: "The request body could not be read.",
                  code: "BAD_REQUEST",
                  errors: [{ field: "body", message: "could not be read" }],
                }),
          )
        }
        incoming.body = new Uint8Array(read.success)
        return yield* next(incoming)
      },
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limits.maxBodyBytes)),
    )

    return (incoming) => {
      const declared = Number(incoming.request.headers["content-length"] ?? "0")
      if (Number.isFinite(declared) && declared > limits.maxBodyBytes) return respond(tooLarge(limits.maxBodyBytes))
      return methodsWithoutBody.has(incoming.request.method) ? next(incoming) : read(incoming)
    }
  }
