/**
 * The documentation page of every problem type, served at
 * `GET /docs/problems/{slug}`, which is the problem's `type` itself (a
 * relative reference; `https://partnerpay.dev/problems/{slug}` in API versions
 * before 2026-11-28): the type, its HTTP status,
 * what it means, what to do, and the `code`s it is answered with. One table
 * (`pages`), keyed by the slugs of `Problem.all`; a test walks every problem
 * class so no type lacks a page. A fixed `code` (e.g. `ROUTE_NOT_FOUND`) also
 * finds its type's page.
 */
import * as Problem from "./Problem.ts"

/** One problem type's page. */
export interface ProblemPage {
  readonly status: number
  readonly title: string
  readonly meaning: string
  readonly whatToDo: string
  /** The `code`s the service answers with this type; `RuleViolation` also carries the rules' own codes. */
  readonly codes: ReadonlyArray<string>
}

/** The path prefix of the pages. */
export const pagesPath = "/docs/problems"

/** Every problem type's page, by the slug of its `type` URI. */
export const pages: Readonly<Record<string, ProblemPage>> = {
  "bad-request": {
    status: 400,
    title: "Bad Request",
    meaning:
      "The request could not be decoded: malformed JSON, a value of the wrong type, a missing required field, or a field the operation does not define.",
    whatToDo:
      "Read `errors`: each entry names the field (`path.`, `query.`, `header.` or the body path) and why. Fix the request; resending it unchanged fails again.",
    codes: ["BAD_REQUEST"],
  },
  unauthorized: {
    status: 401,
    title: "Unauthorized",
    meaning: "The bearer token is missing, malformed, forged, revoked or expired, or the client credentials are wrong.",
    whatToDo: "Obtain a new token with `POST /Auth/Token` and send it as `Authorization: Bearer <token>`.",
    codes: ["UNAUTHORIZED"],
  },
  forbidden: {
    status: 403,
    title: "Forbidden",
    meaning: "The token is valid, but this kind of caller (partner or customer) may not use the operation.",
    whatToDo: "Call the operation with the kind of token it requires (see the operation in the API reference).",
    codes: ["FORBIDDEN"],
  },
  "not-found": {
    status: 404,
    title: "Not Found",
    meaning: "The addressed resource does not exist for your partner, or no operation exists at this method and path.",
    whatToDo: "Check the id and the path (paths are case-sensitive). A resource of another partner is never visible.",
    codes: ["NOT_FOUND", "ROUTE_NOT_FOUND"],
  },
  "method-not-allowed": {
    status: 405,
    title: "Method Not Allowed",
    meaning: "The path exists but is not served with this method.",
    whatToDo: "Use one of the methods listed in the `Allow` header (and in `allow`).",
    codes: ["METHOD_NOT_ALLOWED"],
  },
  "already-exists": {
    status: 409,
    title: "Already Exists",
    meaning: "The resource to create already exists.",
    whatToDo: "Read the existing resource instead of creating it again, or create it under another id or reference.",
    codes: ["ALREADY_EXISTS", "DUPLICATE_COMPANY_REFERENCE"],
  },
  "illegal-transition": {
    status: 409,
    title: "Illegal State Transition",
    meaning: "The resource's current state (`state`) forbids the operation.",
    whatToDo:
      "Read the resource to learn its state; the operation is allowed only in the states its documentation lists.",
    codes: ["ILLEGAL_TRANSITION", "CONSENT_NOT_ACCEPTED"],
  },
  "concurrent-modification": {
    status: 409,
    title: "Concurrent Modification",
    meaning:
      "Another request changed the resource at the same time, or a request with the same Idempotency-Key is still in progress or had another body.",
    whatToDo:
      "Retry the request (it is safe). For IDEMPOTENCY_KEY_REUSED, use a new Idempotency-Key for a different request.",
    codes: [
      "CONCURRENT_MODIFICATION",
      "IDEMPOTENCY_KEY_REUSED",
      "IDEMPOTENCY_REQUEST_IN_PROGRESS",
      "DELIVERY_IN_PROGRESS",
    ],
  },
  "payload-too-large": {
    status: 413,
    title: "Payload Too Large",
    meaning: "The request body is larger than the service accepts.",
    whatToDo: "Send a smaller body (attachments have their own documented size limit).",
    codes: ["PAYLOAD_TOO_LARGE"],
  },
  "unsupported-media-type": {
    status: 415,
    title: "Unsupported Media Type",
    meaning: "The request body has a content type the operation does not accept.",
    whatToDo: "Send the body with the content type the operation declares (usually `application/json`).",
    codes: ["UNSUPPORTED_MEDIA_TYPE"],
  },
  validation: {
    status: 422,
    title: "Validation Failed",
    meaning: "The request is well-formed, but some values break validation rules.",
    whatToDo: "Read `errors`: every refused field is listed with the rule it breaks. Fix them and resend.",
    codes: ["VALIDATION_FAILED"],
  },
  "rule-violated": {
    status: 422,
    title: "Business Rule Violated",
    meaning:
      "A business rule refuses the operation; `code` names the rule (e.g. COMPANY_NOT_VERIFIED) and `errors` the field it refuses, when one.",
    whatToDo:
      "Read `detail` and `code`: the rule and how to satisfy it are described with the operation in the API documentation. Resending unchanged fails again until the state changes.",
    codes: ["REFUND_EXCEEDS_PAYMENT", "REFUND_EXCEEDS_TRANSFER"],
  },
  "rate-limited": {
    status: 429,
    title: "Too Many Requests",
    meaning: "You sent more requests than your rate limit allows.",
    whatToDo: "Wait the number of seconds in `Retry-After` (also `retryAfterSeconds`) and retry.",
    codes: ["RATE_LIMITED"],
  },
  internal: {
    status: 500,
    title: "Internal Server Error",
    meaning: "An unexpected failure in the service; nothing about it is your request's fault.",
    whatToDo: "Retry later; if it persists, contact support quoting `instance` (the correlation id).",
    codes: ["INTERNAL_ERROR"],
  },
  unavailable: {
    status: 503,
    title: "Service Unavailable",
    meaning: "A dependency (the database, a payment provider) is temporarily unavailable.",
    whatToDo: "Retry after `Retry-After` seconds; the request changed nothing.",
    codes: ["SERVICE_UNAVAILABLE", "PROVIDER_UNAVAILABLE"],
  },
}

/** The slug of a problem `type` (`/docs/problems/not-found`, `https://partnerpay.dev/problems/not-found` -> `not-found`). */
export const slugOf = (type: string): string => type.slice(type.lastIndexOf("/") + 1)

/** The page of a slug or of a fixed code, with its slug; undefined when neither is known. */
export const find = (key: string): { readonly slug: string; readonly page: ProblemPage } | undefined => {
  if (Object.hasOwn(pages, key)) return { slug: key, page: pages[key]! }
  for (const [slug, page] of Object.entries(pages)) if (page.codes.includes(key)) return { slug, page }
  return undefined
}

/** The markdown of a page. */
export const render = (slug: string, page: ProblemPage): string =>
  [
    `# ${page.status} ${page.title}`,
    "",
    `Problem type: \`${Problem.typeBase}${slug}\` (HTTP status ${page.status}): the path of this page, so the type resolves to it.`,
    `API versions before 2026-11-28 answer the type \`${Problem.legacyTypeBase}${slug}\` (docs/api/versions.md).`,
    "",
    "## What it means",
    "",
    page.meaning,
    "",
    "## What to do",
    "",
    page.whatToDo,
    "",
    "## Codes",
    "",
    ...page.codes.map((code) => `- \`${code}\``),
    "",
  ].join("\n")

/** The index page: every type with its status and codes. */
export const renderIndex = (): string =>
  [
    "# Problem types",
    "",
    "Every error is `application/problem+json` (RFC 9457). Its `type` is the path of one of these pages",
    "(a relative reference, resolved against the request's URI; `https://partnerpay.dev/problems/{slug}` in",
    "API versions before 2026-11-28):",
    "",
    ...Object.entries(pages).map(
      ([slug, page]) => `- [${page.status} ${page.title}](${pagesPath}/${slug}): ${page.codes.join(", ")}`,
    ),
    "",
  ].join("\n")
