/**
 * The error the client throws for an answer that is not a success: it carries the RFC 9457
 * problem+json fields every partnerpay error has (`type`, `title`, `status`, `detail`, `code`,
 * `instance`, and `errors` / `retryAfterSeconds` when present), the HTTP status and the
 * request's correlation id.
 */

/** A problem+json body as partnerpay answers it (the fields every problem schema shares). */
export interface Problem {
  readonly type: string
  readonly title?: string | undefined
  readonly status?: number | undefined
  readonly detail: string
  /** Stable machine code (e.g. `BAD_REQUEST`, `RATE_LIMITED`; see the operation's `x-error-codes`). */
  readonly code: string
  /** `urn:uuid:<correlation id>` */
  readonly instance?: string | undefined
  /** One entry per refused field (400, 422). */
  readonly errors?: ReadonlyArray<{ readonly field: string; readonly message: string }> | undefined
  /** 429: seconds to wait (also the Retry-After header). */
  readonly retryAfterSeconds?: number | undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** The problem fields of a parsed body, when it is one (a `code` and a `detail` at least). */
export const asProblem = (body: unknown): Problem | undefined =>
  isRecord(body) && typeof body.code === "string" && typeof body.detail === "string"
    ? (body as unknown as Problem)
    : undefined

export class PartnerpayError extends Error {
  override readonly name = "PartnerpayError"
  /** The HTTP status of the answer. */
  readonly status: number
  /** The problem's `code`, or `HTTP_<status>` when the body was not a problem. */
  readonly code: string
  readonly type: string | undefined
  readonly title: string | undefined
  readonly detail: string | undefined
  readonly instance: string | undefined
  readonly errors: ReadonlyArray<{ readonly field: string; readonly message: string }>
  readonly retryAfterSeconds: number | undefined
  /** `X-Correlation-Id` of the answer: quote it to the operator. */
  readonly correlationId: string | undefined
  /** The parsed body (the problem, or whatever the answer held). */
  readonly body: unknown

  constructor(status: number, body: unknown, headers?: Headers) {
    const problem = asProblem(body)
    super(
      problem === undefined
        ? `HTTP ${status}`
        : `${problem.code} (${status}): ${problem.detail}${
            problem.errors !== undefined && problem.errors.length > 0
              ? ` [${problem.errors.map((error) => `${error.field}: ${error.message}`).join("; ")}]`
              : ""
          }`,
    )
    this.status = status
    this.code = problem?.code ?? `HTTP_${status}`
    this.type = problem?.type
    this.title = problem?.title
    this.detail = problem?.detail
    this.instance = problem?.instance
    this.errors = problem?.errors ?? []
    this.retryAfterSeconds = problem?.retryAfterSeconds
    this.correlationId = headers?.get("x-correlation-id") ?? undefined
    this.body = body
  }

  /** Reads a non-success `Response` (its body is consumed). */
  static async fromResponse(response: Response): Promise<PartnerpayError> {
    const text = await response.text()
    let body: unknown = text
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      // not JSON: kept as text
    }
    return new PartnerpayError(response.status, body, response.headers)
  }
}

/** An openapi-fetch result: `data` on success, `error` (the parsed body) otherwise. */
export interface FetchResult {
  readonly data?: unknown
  readonly error?: unknown
  readonly response: Response
}

/** The `data` type of the success member of an openapi-fetch result union. */
export type SuccessData<R> = R extends { readonly data: infer D; readonly error?: never } ? D : never

/**
 * The `data` of a successful call, or a thrown `PartnerpayError` carrying the problem:
 * `const { companyId } = unwrap(await client.POST("/Company/Create", { body }))`.
 */
export const unwrap = <R extends FetchResult>(result: R): SuccessData<R> => {
  if (result.error !== undefined || !result.response.ok) {
    throw new PartnerpayError(result.response.status, result.error, result.response.headers)
  }
  return result.data as SuccessData<R>
}
