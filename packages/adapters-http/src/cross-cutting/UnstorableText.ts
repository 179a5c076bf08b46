/**
 * Text no field accepts, found at the edge: the NUL character (U+0000) and
 * lone UTF-16 surrogates (U+D800 to U+DFFF not in a high-low pair). Neither is
 * a character PostgreSQL text or jsonb can store (they are refused there with
 * SQLSTATE 22P02 / 22021, which would surface as an outage), so a request
 * carrying them is a 400 naming the field, before any route runs.
 *
 * The body check is one byte scan (`containsUnstorable`: a raw NUL byte, or a
 * JSON escape `\u0000`, a high-surrogate escape not followed by a low one, or
 * a low one without a high one before it); only a body the scan flags is
 * parsed, to name each field (`description`, `owner.name`,
 * `lineItems[0].description`). A lone surrogate cannot arrive raw: its UTF-8
 * bytes are invalid and decode to U+FFFD. In the URL, a percent-encoded NUL
 * or percent-encoded bytes that are not UTF-8 (`%ED%A0%80`, an encoded
 * surrogate, or `%FF`) are refused, naming `path` or the query parameter
 * (`query.companyReferenceId`).
 *
 * Two cross-cutting steps refuse them (`CrossCutting.ts`): `inUrl` before the body is read,
 * `inBody` once it is (`BodyLimit`).
 */
import * as Problem from "./Problem.ts"
import { type Handler, respond, type Step } from "./RequestSteps.ts"

type FieldError = Problem.FieldError

export const nulMessage = "must not contain the NUL character (U+0000)"
export const surrogateMessage =
  "must be valid Unicode text: a lone UTF-16 surrogate (U+D800 to U+DFFF) is not a character"
export const keyMessage = "has a field name that is not valid Unicode text or contains the NUL character"
export const percentMessage = "must be percent-encoded UTF-8 text without the NUL character"
const bodyMessage = "must not contain the NUL character (U+0000) or a lone UTF-16 surrogate"

const backslash = 0x5c
const letterU = 0x75

const hexDigit = (byte: number | undefined): number => {
  if (byte === undefined) return -1
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37
  return -1
}

/** The UTF-16 code unit of the four hex digits at `at`, or -1. */
const unitAt = (body: Uint8Array, at: number): number => {
  const a = hexDigit(body[at])
  const b = hexDigit(body[at + 1])
  const c = hexDigit(body[at + 2])
  const d = hexDigit(body[at + 3])
  return a < 0 || b < 0 || c < 0 || d < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/**
 * True when the bytes hold a raw NUL, or a JSON escape of NUL or of a lone
 * surrogate. Escapes are read left to right (`\\u0000` is an escaped
 * backslash followed by `u0000`); a surrogate pair `\ud83d\ude42` is fine.
 */
export const containsUnstorable = (body: Uint8Array): boolean => {
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!
    if (byte === 0) return true
    if (byte !== backslash) continue
    if (body[i + 1] !== letterU) {
      i++ // an escaped character: skip it
      continue
    }
    const unit = unitAt(body, i + 2)
    if (unit === -1) continue // not an escape JSON accepts: the decoder refuses the body
    i += 5
    if (unit === 0 || isLow(unit)) return true
    if (isHigh(unit)) {
      if (body[i + 1] === backslash && body[i + 2] === letterU && isLow(unitAt(body, i + 3))) i += 6
      else return true
    }
  }
  return false
}

/** A high surrogate without a low one after it, or a low one without a high one before it. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Why a string cannot be stored, or undefined when it can. */
export const problemOf = (text: string): string | undefined => {
  if (text.includes("\0")) return nulMessage
  if (loneSurrogate.test(text)) return surrogateMessage
  return undefined
}

const fieldPath = (parent: string, key: string | number): string =>
  typeof key === "number" ? `${parent}[${key}]` : parent === "" ? key : `${parent}.${key}`

const walk = (value: unknown, path: string, found: Array<FieldError>): void => {
  if (typeof value === "string") {
    const message = problemOf(value)
    if (message !== undefined) found.push({ field: path === "" ? "body" : path, message })
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walk(item, fieldPath(path, index), found)
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      // A bad name is not echoed back: the object holding it is named.
      if (problemOf(key) !== undefined) found.push({ field: path === "" ? "body" : path, message: keyMessage })
      else walk(item, fieldPath(path, key), found)
    }
  }
}

/**
 * The fields of a JSON body that hold unstorable text, one entry per field; a
 * body that is not JSON (a raw NUL, say) is named `body`. Call it only for a
 * body `containsUnstorable` flags.
 */
export const unstorableFields = (body: Uint8Array): ReadonlyArray<FieldError> => {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(body))
  } catch {
    return [{ field: "body", message: bodyMessage }]
  }
  const found: Array<FieldError> = []
  walk(value, "", found)
  return found.length > 0 ? found : [{ field: "body", message: bodyMessage }]
}

/** Percent-decodes `text` (a `%` not followed by two hex digits is kept as it is); undefined when the bytes are not UTF-8 or hold NUL. */
const decodedOrUndefined = (text: string, plusIsSpace: boolean): string | undefined => {
  if (text.includes("\0")) return undefined
  if (!text.includes("%")) return plusIsSpace ? text.replaceAll("+", " ") : text
  try {
    const decoded = decodeURIComponent(
      (plusIsSpace ? text.replaceAll("+", " ") : text).replace(/%(?![0-9a-fA-F]{2})/g, "%25"),
    )
    return decoded.includes("\0") ? undefined : decoded
  } catch {
    return undefined
  }
}

/**
 * The part of a request target (path and query) that holds unstorable text:
 * `path`, `query.<name>`, or `query` for a bad parameter name; undefined for
 * the usual target, which has neither `%` nor NUL.
 */
export const unstorableInUrl = (url: string): FieldError | undefined => {
  if (!url.includes("%") && !url.includes("\0")) return undefined
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  if (decodedOrUndefined(path, false) === undefined) return { field: "path", message: percentMessage }
  if (q === -1) return undefined
  for (const pair of url.slice(q + 1).split("&")) {
    const eq = pair.indexOf("=")
    const name = decodedOrUndefined(eq === -1 ? pair : pair.slice(0, eq), true)
    if (name === undefined) return { field: "query", message: percentMessage }
    if (eq !== -1 && decodedOrUndefined(pair.slice(eq + 1), true) === undefined)
      return { field: `query.${name}`, message: percentMessage }
  }
  return undefined
}

/** 400 naming each field that holds text no field accepts. */
const refused = (errors: ReadonlyArray<FieldError>) =>
  new Problem.BadRequest({
    detail: "The request contains text that no field accepts: the NUL character or a lone UTF-16 surrogate.",
    code: "BAD_REQUEST",
    errors,
  })

/** The step refusing unstorable text in the path or the query. */
export const inUrl: Step =
  (next: Handler): Handler =>
  (incoming) => {
    const found = unstorableInUrl(incoming.request.url)
    return found === undefined ? next(incoming) : respond(refused([found]))
  }

/** The step refusing unstorable text in the body read (one byte scan; only a flagged body is parsed, to name its fields). */
export const inBody: Step =
  (next: Handler): Handler =>
  (incoming) =>
    containsUnstorable(incoming.body) ? respond(refused(unstorableFields(incoming.body))) : next(incoming)
