/**
 * Which notifications (webhooks) an event causes. Pure mapping from events to
 * the interface's webhook `Event` and `Data`; it may read read models (already
 * updated by the same append) for data the event itself does not carry, such
 * as the partner owning a payment request. `Live` is added at delivery.
 */
import type { Effect } from "effect"
import * as CompanyVerification from "./companies/CompanyVerificationNotification.ts"
import type { Envelope } from "./DomainEvents.ts"
import type { EventStoreUnavailable } from "./infrastructure/EventStore.ts"
import type { Notification } from "./infrastructure/Outbox.ts"
import type { ReadModelStore } from "./infrastructure/ReadModel.ts"
import * as PaymentRequestStatus from "./payments/PaymentRequestStatusNotification.ts"
import * as PaymentPlanInstalmentStatus from "./plans/PaymentPlanInstalmentNotification.ts"

/** One source of notifications, e.g. company verification or payment request status. */
export type NotificationRule = (
  event: Envelope,
) => Effect.Effect<ReadonlyArray<Notification>, EventStoreUnavailable, ReadModelStore>

/** Every notification rule; each webhook module adds itself here. */
export const rules: ReadonlyArray<NotificationRule> = [
  CompanyVerification.rule,
  PaymentRequestStatus.rule,
  PaymentPlanInstalmentStatus.rule,
]
