/**
 * Payloads declared once. A value object of an aggregate (`CardCharge`,
 * `Acceptance`, ...) is one Schema struct: spread into the events that record
 * it (`...CardCharge.fields`), and picked with `pick` from the command that
 * carries it or the event the state and the views hold it from. No
 * field-by-field copies to keep in step.
 */
import type { Schema } from "effect"

/** The payload's fields of `from` (its keys only; an optional key absent or undefined in `from` stays absent). */
export const pick = <Fields extends Schema.Struct.Fields, From extends { readonly [Key in keyof Fields]?: unknown }>(
  payload: { readonly fields: Fields },
  from: From,
): Pick<From, keyof Fields & keyof From> => {
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(payload.fields)) {
    const value = (from as Record<string, unknown>)[key]
    if (value !== undefined) picked[key] = value
  }
  return picked as Pick<From, keyof Fields & keyof From>
}
