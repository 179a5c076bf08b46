/**
 * The events of CharityTransaction, and its id: a gift created (collected once), and for a
 * recurring gift each later monthly collection and the end of the schedule (`RecurringGift.ts`).
 */
import { Schema } from "effect"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import { unionOf } from "../kernel/EventSchema.ts"
import { BankAccountId, CompanyId, PartnerId, RegistrationId, TransferId, Uuid, VerificationId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import { AuthorizationEvidence } from "../payments/index.ts"

/** The id of one anonymous charity transaction (made by the application like every other id). */
export const CharityTransactionId = Uuid.pipe(Schema.brand("CharityTransactionId"))
export type CharityTransactionId = typeof CharityTransactionId.Type

/** Why a recurring gift stopped: cancelled by the partner or the donor, or it can no longer be collected. */
export const RecurringGiftStopReason = Schema.Literals([
  "CancelledByPartner",
  "CancelledByDonor",
  "BankAccountUnlinked",
  "CompanyNotVerified",
  /** The donor's bank returned a collection as unauthorized (R05, R07, R10, R11, R29, R51). */
  "UnauthorizedReturn",
  "PayerNotVerified",
])
export type RecurringGiftStopReason = typeof RecurringGiftStopReason.Type

/**
 * Every charity transaction event, by tag: the codec of the stream, each event's schema in its `cases`.
 * Each names the transaction, and the instant `at`.
 */
export const CharityTransactionEvent = unionOf(
  { charityTransactionId: CharityTransactionId },
  {
    /** A gift was made: collected once, and monthly after that when recurring (`RecurringGift.ts`). */
    AnonymousCharityTransactionCreated: {
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
      /** The donor (absent on gifts recorded before recurring gifts were collected again). */
      payerRegistrationId: Schema.optionalKey(RegistrationId),
      /** The donor's account the gift is collected from, each month for a recurring gift. */
      bankAccountId: Schema.optionalKey(BankAccountId),
      /** The donor's authorization of the debit(s) (absent on gifts recorded before it was, and without a request). */
      authorization: Schema.optionalKey(AuthorizationEvidence.AuthorizationEvidence),
    },
    /** A recurring gift was collected again for `dueDate` (`collectionNumber` 2, 3...: the first is the creation's). */
    RecurringCharityGiftCollected: { dueDate: CalendarDate, collectionNumber: Schema.Int, transferId: TransferId },
    /** A recurring gift will not be collected again. */
    RecurringCharityGiftStopped: { reason: RecurringGiftStopReason },
  },
)
export type CharityTransactionEvent = typeof CharityTransactionEvent.Type
export const { AnonymousCharityTransactionCreated, RecurringCharityGiftCollected, RecurringCharityGiftStopped } =
  CharityTransactionEvent.cases

/** The charity transaction event tagged `Tag`. */
export type Of<Tag extends CharityTransactionEvent["_tag"]> = Extract<CharityTransactionEvent, { readonly _tag: Tag }>
export type AnonymousCharityTransactionCreated = Of<"AnonymousCharityTransactionCreated">
