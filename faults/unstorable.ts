/**
 * Requests carrying text PostgreSQL cannot store (lone UTF-16 surrogates, NUL), for the bad-input
 * sweep: every string field of an operation's documented example body in turn holds each of
 * `jsonKinds` (written as JSON escapes, so the bytes are valid UTF-8 and only the decoded text is
 * bad), every path id and query parameter each of `urlKinds` (percent-encoded invalid UTF-8, such as
 * an encoded surrogate, and NUL). The rest of the request is as documented, so without the edge
 * check the text would reach the database. Each request says which field the 400 must name.
 */

/** A JSON string's content between its quotes. */
export const jsonKinds = [
  { label: String.raw`lone high \ud800`, text: String.raw`\ud800` },
  { label: String.raw`lone low \udc00`, text: String.raw`x\udc00` },
  { label: String.raw`high then a non-low escape \ud800\u0041`, text: String.raw`\ud800\u0041` },
  { label: String.raw`NUL \u0000`, text: String.raw`a\u0000b` },
] as const

/** A path segment or query value, percent-encoded. */
export const urlKinds = ["%ED%A0%80", "a%ED%B0%80", "%ED%A0%80%41", "%00"] as const

export interface UnstorableRequest {
  readonly label: string
  readonly method: string
  readonly path: string
  readonly rawBody?: string
  /** The field the 400 must name: `path`, `query.<name>`, or the body field's dotted path. */
  readonly field: string
}

interface Operation {
  readonly method: string
  readonly path: string
  readonly pathParams: ReadonlyArray<string>
  readonly queryParams: ReadonlyArray<string>
}

type Segment = string | number

/** The paths of every string in `value` (object keys and array indexes). */
const stringLeaves = (value: unknown, at: ReadonlyArray<Segment> = []): Array<ReadonlyArray<Segment>> => {
  if (typeof value === "string") return [at]
  if (Array.isArray(value)) return value.flatMap((item, index) => stringLeaves(item, [...at, index]))
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([key, item]) => stringLeaves(item, [...at, key]))
  return []
}

/** `["owner", "name"]` -> `owner.name`; `["lineItems", 0, "description"]` -> `lineItems[0].description`. */
export const fieldOf = (at: ReadonlyArray<Segment>): string =>
  at.reduce<string>(
    (out, segment) => (typeof segment === "number" ? `${out}[${segment}]` : out === "" ? segment : `${out}.${segment}`),
    "",
  )

const marker = "@@UNSTORABLE@@"

/** `example` with the string at `at` replaced by the JSON string content `text`, as JSON text. */
const withText = (example: unknown, at: ReadonlyArray<Segment>, text: string): string => {
  const copy = structuredClone(example) as Record<Segment, unknown>
  let node = copy
  for (const segment of at.slice(0, -1)) node = node[segment] as Record<Segment, unknown>
  node[at[at.length - 1]!] = marker
  return JSON.stringify(copy).replace(`"${marker}"`, `"${text}"`)
}

const plausibleId = "00000000-0000-4000-8000-000000000000"

/** The requests for one operation; `example` is its documented JSON body example (undefined: no body). */
export const unstorableRequests = (op: Operation, example: unknown): Array<UnstorableRequest> => {
  const out: Array<UnstorableRequest> = []
  const fill = (id: string) => op.path.replace(/\{[^}]+\}/g, id)
  const body = example === undefined ? undefined : JSON.stringify(example)
  const withBody = (rawBody: string | undefined) => (rawBody === undefined ? {} : { rawBody })
  if (op.pathParams.length > 0)
    for (const kind of urlKinds)
      out.push({ label: `path id ${kind}`, method: op.method, path: fill(kind), ...withBody(body), field: "path" })
  for (const name of op.queryParams)
    for (const kind of urlKinds)
      out.push({
        label: `query ${name}=${kind}`,
        method: op.method,
        path: `${fill(plausibleId)}?${name}=${kind}`,
        ...withBody(body),
        field: `query.${name}`,
      })
  if (example !== undefined)
    for (const at of stringLeaves(example))
      for (const kind of jsonKinds)
        out.push({
          label: `${fieldOf(at)} ${kind.label}`,
          method: op.method,
          path: fill(plausibleId),
          rawBody: withText(example, at, kind.text),
          field: fieldOf(at),
        })
  return out
}
