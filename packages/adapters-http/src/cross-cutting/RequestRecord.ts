/**
 * What the serving process knows about the request being served, shared by
 * the server's outer middleware (which creates it, and writes the access line
 * from it) and the API's middleware (which fill it in):
 *
 * - `correlationId`: the one id of the request: sent back in
 *   `X-Correlation-Id`, the problem `instance`, and every log line. The
 *   server takes it from the request (`fromHeaders`: a valid
 *   `X-Correlation-Id`, else the trace id of a valid W3C `traceparent`) or
 *   makes one;
 * - `partnerId`: the partner of a valid bearer token (CallerResolution.ts);
 * - `route`: the matched route template (`/Payment/:id`; ProblemHandling.ts).
 *
 * Outside such a server (in-process tests), there is no record and each
 * response gets a fresh correlation id.
 */
import { randomUUID } from "node:crypto"
import { Context, type Fiber } from "effect"

export class RequestRecord {
  readonly correlationId: string
  partnerId: string | undefined = undefined
  route: string | undefined = undefined
  constructor(correlationId: string) {
    this.correlationId = correlationId
  }
}

/** The record of the current request (undefined when the server keeps none). */
export const CurrentRequestRecord = Context.Reference<RequestRecord | undefined>(
  "partnerpay/adapters-http/CurrentRequestRecord",
  { defaultValue: () => undefined },
)

/** The correlation id of the request served by `fiber` (a fresh one when none is recorded). */
export const correlationIdOf = (fiber: Fiber.Fiber<unknown, unknown>): string =>
  fiber.getRef(CurrentRequestRecord)?.correlationId ?? randomUUID()

/** Accepted client correlation ids: 1 to 128 letters, digits and `-._:~`. */
const acceptedId = /^[A-Za-z0-9._:~-]{1,128}$/
/** W3C Trace Context `traceparent`: version 00 (or a later one), trace id, parent id, flags. */
const traceparentFormat = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/

/**
 * The correlation id a request brings: its `X-Correlation-Id` when valid, else
 * the trace id of its `traceparent` when valid (not all zeros), else undefined.
 * Anything else is ignored (never refused): the server makes an id.
 */
export const fromHeaders = (correlationId: string | undefined, traceparent: string | undefined): string | undefined => {
  if (correlationId !== undefined && acceptedId.test(correlationId)) return correlationId
  if (traceparent !== undefined) {
    const match = traceparentFormat.exec(traceparent)
    if (match !== null && match[1] !== "00000000000000000000000000000000" && !traceparent.startsWith("ff")) {
      return match[1]
    }
  }
  return undefined
}
