/**
 * The personal data of the payments area, and whose it is.
 *
 * A transfer's `senderName` is the payer's name (their KYC-verified first and
 * last name, else their bank account's name): personal data of the payer, the
 * customer `payerRegistrationId`, sealed under the customer's subject
 * (`customer:<registrationId>`, `CustomerPersonalData.customerSubject`) in
 * `TransferInitiated` events and in the `transfers` read model (payment
 * request transfers and plan instalments alike), so erasing the customer
 * erases it. A transfer initiated before the payer was named on every
 * transfer has no `payerRegistrationId` and keeps its sender name as written.
 *
 * Everything else of the area is not a person's: ids, amounts, statuses,
 * masked account numbers (last four digits), the recipient company's name and
 * address, the partner's descriptions. The webhooks of the area carry ids,
 * statuses, masks and instants only.
 */
import { CustomerPersonalData } from "../customers/index.ts"
import type { FieldsOf } from "../infrastructure/PersonalData.ts"

const ofPayer =
  (paths: ReadonlyArray<string>): FieldsOf =>
  (data) =>
    typeof data.payerRegistrationId === "string"
      ? [{ subject: CustomerPersonalData.customerSubject(data.payerRegistrationId), paths }]
      : []

/** Personal fields of Transfer events, by event type. */
export const transferEvents: Readonly<Record<string, FieldsOf>> = { TransferInitiated: ofPayer(["senderName"]) }

/** Personal fields of a `transfers` read-model document. */
export const transferDocument: FieldsOf = ofPayer(["senderName"])
