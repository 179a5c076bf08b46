/**
 * The `charity_gifts_due` read model: the recurring-charity scheduler's work
 * list, one document per recurring gift still Active, sorted by its next due
 * date (`RecurringGift.ts`). A one-time gift has none; a stopped gift's is
 * deleted. It spans every partner, so it is owned by the system tenant
 * `schedulerTenant` (the nil UUID, never a partner's id), as the plans' work
 * list is: no partner query can ever see it. A pure function of the
 * CharityTransaction events.
 */
import { Schema } from "effect"
import type * as Envelope from "../infrastructure/Envelope.ts"
import { type Projection, perAggregate } from "../infrastructure/ReadModel.ts"
import * as Tenancy from "../infrastructure/Tenancy.ts"
import { CalendarDate } from "../kernel/CalendarDate.ts"
import * as Ids from "../kernel/Ids.ts"
import { dateOf } from "./CharityTransaction.ts"
import { type CharityTransactionEvent, CharityTransactionId } from "./CharityTransactionEvents.ts"
import * as RecurringGift from "./RecurringGift.ts"

export type CharityTransactionEnvelope = Envelope.Of<"CharityTransaction", CharityTransactionEvent>

export const collection = "charity_gifts_due"

/** The owner of the work list: no partner (the nil UUID). */
export const schedulerTenant: string = Tenancy.systemTenant

export const DueGiftDocument = Schema.Struct({
  charityTransactionId: CharityTransactionId,
  partnerId: Ids.PartnerId,
  /** The day of the first collection: the schedule counts from it. */
  startDate: CalendarDate,
  nextDueDate: CalendarDate,
})
export type DueGiftDocument = typeof DueGiftDocument.Type

export const projection: Projection<DueGiftDocument, CharityTransactionEnvelope> = {
  collection,
  document: DueGiftDocument,
  ...perAggregate<CharityTransactionEnvelope>("CharityTransaction", (event) => event.charityTransactionId),
  apply: (current, envelope) => {
    if (envelope.streamType !== "CharityTransaction") return current
    const event = envelope.event
    switch (event._tag) {
      case "AnonymousCharityTransactionCreated": {
        // Only a recurring gift that knows its donor's account collects again (as the aggregate decides).
        if (!event.isRecurring || event.bankAccountId === undefined || event.payerRegistrationId === undefined)
          return current
        const startDate = dateOf(event.at)
        return {
          charityTransactionId: event.charityTransactionId,
          partnerId: event.partnerId,
          startDate,
          nextDueDate: RecurringGift.nextDueDateAfter(startDate, startDate),
        }
      }
      case "RecurringCharityGiftCollected":
        return current === undefined
          ? current
          : { ...current, nextDueDate: RecurringGift.nextDueDateAfter(current.startDate, event.dueDate) }
      case "RecurringCharityGiftStopped":
        return undefined
    }
  },
  index: (doc) => ({ partnerId: schedulerTenant, keys: { collecting: "true" }, sortKey: doc.nextDueDate }),
}
