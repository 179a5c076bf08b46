/**
 * The vocabulary of erasable personal data. A personal field of an event, a
 * snapshot or a read model is stored sealed under its data subject's key
 * (`infrastructure/PersonalData.ts`); once the subject is erased (the key is
 * deleted) every read shows the field as the text `erased`, "[erased]".
 *
 * Text fields need nothing more (the marker is a string). A field with a
 * format (a date, a phone number, four digits) is declared `Erasable(...)`:
 * its format, or the marker.
 */
import { Schema } from "effect"

/** What an erased personal field reads as, everywhere (events, read models, API answers). */
export const erased = "[erased]" as const
export type Erased = typeof erased

export const Erased = Schema.Literal(erased)

/** `schema`, or the erased marker: for personal fields with a format. */
export const Erasable = <S extends Schema.Top>(schema: S) => Schema.Union([schema, Erased])

/** True when a personal value has been erased. */
export const isErased = (value: unknown): value is Erased => value === erased
