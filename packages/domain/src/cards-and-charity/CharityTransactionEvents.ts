/** The events of CharityTransaction, and its id. */
import { Schema } from "effect"
import { CompanyId, PartnerId, TransferId, Uuid, VerificationId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"

/** The id of one anonymous charity transaction (made by the application like every other id). */
export const CharityTransactionId = Uuid.pipe(Schema.brand("CharityTransactionId"))
export type CharityTransactionId = typeof CharityTransactionId.Type

export const AnonymousCharityTransactionCreated = Schema.TaggedStruct("AnonymousCharityTransactionCreated", {
  charityTransactionId: CharityTransactionId,
  partnerId: PartnerId,
  verificationId: VerificationId,
  companyId: CompanyId,
  /** The donation as asked. */
  amount: Money.Money,
  isRecurring: Schema.Boolean,
  payerCoversFee: Schema.Boolean,
  fee: Money.Money,
  payerCharged: Money.Money,
  charityReceives: Money.Money,
  /** The transfer collecting the gift from the donor's account (absent on gifts recorded before gifts moved money). */
  transferId: Schema.optionalKey(TransferId),
  at: Schema.DateTimeUtcFromString,
})
export type AnonymousCharityTransactionCreated = typeof AnonymousCharityTransactionCreated.Type

export const CharityTransactionEvent = Schema.Union([AnonymousCharityTransactionCreated])
export type CharityTransactionEvent = typeof CharityTransactionEvent.Type
