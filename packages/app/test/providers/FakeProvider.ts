/**
 * A fake provider bridge for tests: a node:http server on an ephemeral port
 * that checks every request's signature the way docs/providers.md tells a
 * bridge to (HMAC-SHA256 of `<timestamp>.<body>`), records the requests, and
 * answers from a script: per operation, a queue of answers (the last one
 * repeats).
 */
import { timingSafeEqual } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Hmac } from "@partnerpay/secrets"
import { Effect, Redacted, type Scope } from "effect"
import type { BridgeConfig } from "../../src/providers/HttpBridge.ts"

export interface Scripted {
  readonly status: number
  /** JSON-encoded unless a string. */
  readonly body?: unknown
  /** Answer only after this long. */
  readonly delayMillis?: number
  readonly headers?: Record<string, string>
}

export interface Received {
  readonly operation: string
  readonly body: unknown
  readonly requestId: string
  readonly attempt: number
  /** The signature matched the fake's secret and the timestamp was fresh. */
  readonly signed: boolean
}

export interface FakeProvider {
  readonly url: string
  readonly secret: Redacted.Redacted<string>
  /** The answers to give to `operation`, in order (the last repeats). */
  readonly script: (operation: string, answers: ReadonlyArray<Scripted>) => void
  readonly received: () => ReadonlyArray<Received>
  readonly config: (overrides?: Partial<BridgeConfig>) => BridgeConfig
}

const verify = (secret: string, timestamp: string | undefined, body: string, header: string | undefined) => {
  if (timestamp === undefined || header === undefined) return false
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false
  const expected = Buffer.from(`sha256=${Hmac.sha256Hex(secret, `${timestamp}.${body}`)}`)
  const actual = Buffer.from(header)
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/** Starts the fake (closed with the scope). Unsigned requests get 401, unscripted operations 404. */
export const start = (
  secret = "fake-provider-secret-of-32-characters-or-more",
): Effect.Effect<FakeProvider, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const scripts = new Map<string, Array<Scripted>>()
      const received: Array<Received> = []
      const server = Http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          const operation = (request.url ?? "/").replace(/^\/bridge\//, "")
          const signed = verify(
            secret,
            request.headers["x-partnerpay-timestamp"] as string | undefined,
            text,
            request.headers["x-partnerpay-signature"] as string | undefined,
          )
          received.push({
            operation,
            body: text === "" ? undefined : JSON.parse(text),
            requestId: String(request.headers["x-partnerpay-request-id"]),
            attempt: Number(request.headers["x-partnerpay-attempt"]),
            signed,
          })
          const queue = scripts.get(operation)
          const answer: Scripted = !signed
            ? { status: 401, body: { error: "bad signature" } }
            : queue === undefined || queue.length === 0
              ? { status: 404, body: { error: "no such operation" } }
              : queue.length > 1
                ? (queue.shift() as Scripted)
                : (queue[0] as Scripted)
          const send = () => {
            if (response.destroyed) return
            response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
            response.end(
              answer.body === undefined
                ? ""
                : typeof answer.body === "string"
                  ? answer.body
                  : JSON.stringify(answer.body),
            )
          }
          if (answer.delayMillis === undefined) send()
          else setTimeout(send, answer.delayMillis)
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bridge`
      const fake: FakeProvider = {
        url,
        secret: Redacted.make(secret),
        script: (operation, answers) => {
          scripts.set(operation, [...answers])
        },
        received: () => [...received],
        config: (overrides = {}) => ({
          url,
          secret: Redacted.make(secret),
          timeoutMillis: 2_000,
          retries: 2,
          ...overrides,
        }),
      }
      return { server, fake }
    }),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          }),
      ),
  ).pipe(Effect.map(({ fake }) => fake))
