/**
 * Metadata: the partner's own key-value pairs on a company, a payment request
 * or a payment plan (to link the object to its records, as Stripe's
 * `metadata`). At most 50 keys of 1 to 40 characters, each value a string of
 * at most 500 characters. It is data of the aggregate: set on create,
 * replaced whole by `PUT .../Metadata`, recorded in the events, answered on
 * every read and in the object's webhooks' Data (`Metadata`).
 *
 * The one shape (`Metadata`) carries the rules as Schema checks, so the wire
 * (a bad key or value is a 400 naming `metadata.<key>`), the events and the
 * read models derive from it; `issues` states the same rules for deciders.
 */
import { Schema } from "effect"
import type { FieldIssue } from "./DomainError.ts"

export const maxKeys = 50
export const maxKeyLength = 40
export const maxValueLength = 500

const keyMessage = `must be a key of 1 to ${maxKeyLength} characters`
const valueMessage = `must be a string of at most ${maxValueLength} characters`
const countMessage = `must have at most ${maxKeys} keys`

/** A metadata value: a string of at most 500 characters. */
export const Value = Schema.String.check(Schema.isMaxLength(maxValueLength, { message: valueMessage }))

/**
 * The partner's metadata of an object: at most 50 keys of 1 to 40 characters. The key rule is a check of the
 * whole record naming the key (a refined key Schema would silently drop a key that breaks it).
 */
export const Metadata = Schema.Record(Schema.String, Value)
  .annotate({
    description: `Your own key-value pairs (at most ${maxKeys} keys of 1 to ${maxKeyLength} characters, string values of at most ${maxValueLength}); answered on every read and in the webhooks' Data as Metadata`,
    examples: [{ orderId: "ord_1042", customerRef: "C-88" }],
  })
  .check(
    Schema.makeFilter((record: { readonly [key: string]: string }) => {
      const keys = Object.keys(record)
      if (keys.length > maxKeys) return countMessage
      return keys
        .filter((key) => key.length < 1 || key.length > maxKeyLength)
        .map((key) => ({ path: [key], issue: keyMessage }))
    }),
  )
export type Metadata = typeof Metadata.Type

/** No metadata: what an object created without it answers. */
export const empty: Metadata = {}

/** Whether two metadata hold the same keys with the same values. */
export const equals = (a: Metadata, b: Metadata): boolean => {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key])
}

/** What is wrong with `metadata` (field `<field>.<key>` or `<field>`), none when it keeps the rules. */
export const issues = (field: string, metadata: Metadata): ReadonlyArray<FieldIssue> => {
  const out: Array<FieldIssue> = []
  const keys = Object.keys(metadata)
  if (keys.length > maxKeys) out.push({ field, message: countMessage })
  for (const key of keys) {
    if (key.length < 1 || key.length > maxKeyLength) out.push({ field: `${field}.${key}`, message: keyMessage })
    const value = metadata[key]
    if (typeof value !== "string" || value.length > maxValueLength)
      out.push({ field: `${field}.${key}`, message: valueMessage })
  }
  return out
}
