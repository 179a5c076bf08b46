/**
 * Dwolla's webhooks, as Dwolla documents them: the body is signed with the
 * webhook subscription's secret, `X-Request-Signature-SHA-256` = hex
 * HMAC-SHA256 of the exact body bytes; compared in constant time. A verified
 * body is `{ id, resourceId, topic, timestamp, _links, created }`; `id` is the
 * event's id (what makes a repeat or a replay change nothing), `resourceId`
 * the customer or transfer it is about.
 *
 * What a topic asks of partnerpay (`actionOf`):
 *
 * | Dwolla topic | Action |
 * |---|---|
 * | `customer_verified` | the company of that customer is Verified |
 * | `customer_suspended`, `customer_deactivated` | a Verified company is Suspended (one not verified yet: Rejected) |
 * | `customer_reactivated` | a Suspended company is Verified again |
 * | `customer_transfer_completed`, `transfer_completed` | the movement (a debit or a refund's credit) Settled |
 * | `customer_transfer_failed`, `transfer_failed` | Failed with the transfer's return code (asked of Dwolla) |
 * | `customer_transfer_cancelled`, `transfer_cancelled` | Failed `R06` |
 * | `customer_reverification_needed` | the company needs its data sent again: `RetryRequired` (the company stays Unverified; its partner is told) |
 * | `customer_verification_document_needed`, `customer_verification_document_failed` | the company needs a document: `DocumentRequired` |
 * | anything else (the bank-transfer legs `customer_bank_transfer_*`, ...) | none (recorded) |
 */
import { timingSafeEqual } from "node:crypto"
import { Hmac } from "@partnerpay/secrets"
import { Redacted, Schema } from "effect"

/** The header Dwolla signs its webhooks with. */
export const signatureHeader = "x-request-signature-sha-256"

/** The hex HMAC-SHA256 of `body` with the subscription's secret (as Dwolla signs it). */
export const signatureOf = (secret: Redacted.Redacted<string>, body: string): string =>
  Hmac.sha256Hex(Redacted.value(secret), body)

/** True when `signature` is the body's signature with `secret` (constant-time). */
export const isSigned = (secret: Redacted.Redacted<string>, signature: string | undefined, body: string): boolean => {
  if (signature === undefined || !/^[0-9a-fA-F]{64}$/.test(signature)) return false
  const expected = Buffer.from(signatureOf(secret, body), "hex")
  const actual = Buffer.from(signature, "hex")
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/**
 * True when `signature` is the body's signature with any of `secrets` (the current subscription's and,
 * during a roll, the replaced one's); every secret is compared, in constant time.
 */
export const isSignedByAny = (
  secrets: ReadonlyArray<Redacted.Redacted<string> | undefined>,
  signature: string | undefined,
  body: string,
): boolean =>
  secrets.reduce((signed, secret) => (secret !== undefined && isSigned(secret, signature, body)) || signed, false)

/** A Dwolla webhook's body (extra fields, such as `_links`, are Dwolla's and ignored). */
export const Event = Schema.Struct({
  id: Schema.NonEmptyString,
  resourceId: Schema.NonEmptyString,
  topic: Schema.NonEmptyString,
})
export type Event = typeof Event.Type

export const decodeEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(Event))

/** What a verified event asks. */
export type Action =
  | {
      readonly _tag: "KybVerdict"
      readonly customerId: string
      readonly outcome: "Verified" | "Rejected" | "Suspended"
    }
  | {
      readonly _tag: "TransferOutcome"
      readonly transferId: string
      readonly outcome: "Settled" | "Failed" | "Cancelled"
    }
  | {
      readonly _tag: "KybRequirement"
      readonly customerId: string
      readonly requirement: "DocumentRequired" | "RetryRequired"
    }
  | { readonly _tag: "None" }

export const actionOf = (event: Event): Action => {
  switch (event.topic) {
    case "customer_verified":
    case "customer_reactivated":
      return { _tag: "KybVerdict", customerId: event.resourceId, outcome: "Verified" }
    case "customer_suspended":
    case "customer_deactivated":
      return { _tag: "KybVerdict", customerId: event.resourceId, outcome: "Suspended" }
    case "customer_transfer_completed":
    case "transfer_completed":
      return { _tag: "TransferOutcome", transferId: event.resourceId, outcome: "Settled" }
    case "customer_transfer_failed":
    case "transfer_failed":
      return { _tag: "TransferOutcome", transferId: event.resourceId, outcome: "Failed" }
    case "customer_transfer_cancelled":
    case "transfer_cancelled":
      return { _tag: "TransferOutcome", transferId: event.resourceId, outcome: "Cancelled" }
    case "customer_reverification_needed":
      return { _tag: "KybRequirement", customerId: event.resourceId, requirement: "RetryRequired" }
    case "customer_verification_document_needed":
    case "customer_verification_document_failed":
      return { _tag: "KybRequirement", customerId: event.resourceId, requirement: "DocumentRequired" }
    default:
      return { _tag: "None" }
  }
}
