/**
 * The state of the PaymentRequest aggregate (`PaymentRequest.ts`), the status
 * a client reads, and the refusals its decisions share.
 */
import type { DateTime } from "effect"
import { refuse } from "../kernel/Decider.ts"
import { IllegalTransition, NotFound } from "../kernel/DomainError.ts"
import type * as Money from "../kernel/Money.ts"
import * as PaymentRequestCardRefunds from "./PaymentRequestCardRefunds.ts"
import type {
  Acceptance as AcceptanceFields,
  AutoCollectionSkipReason,
  CardCharge as CardChargeFields,
  Of,
  PaymentRequestEvent,
  PaymentRequestStatus,
} from "./PaymentRequestEvents.ts"
import type { RefundId } from "./TransferEvents.ts"

/** What was asked, of whom, for whom: fixed at creation. */
export type RequestDetails = Omit<Of<"PaymentRequestCreated">, "_tag" | "at" | "debitAuthLimit"> & {
  /** The partner's ceiling for a debit-authorization collection (recorded as the event's `debitAuthLimit`). */
  readonly debitCeiling?: Money.Money
  readonly createdAt: DateTime.Utc
}

/** How the payer accepted (`PaymentRequestEvents.Acceptance`), and when. */
export type Acceptance = AcceptanceFields & { readonly acceptedAt: DateTime.Utc }

/** The card a request was paid with in the app. */
export type CardCharge = CardChargeFields

export interface Refund {
  readonly refundId: RefundId
  readonly amount: Money.Money
}

export type State =
  | { readonly _tag: "Initial" }
  | {
      readonly _tag: "Pending"
      readonly request: RequestDetails
      /** Set once the service tried to collect it by itself and could not: it does not try again. */
      readonly autoCollectionSkipped?: AutoCollectionSkipReason
    }
  | { readonly _tag: "Cancelled"; readonly request: RequestDetails; readonly cancelledAt: DateTime.Utc }
  | { readonly _tag: "Accepted"; readonly request: RequestDetails; readonly acceptance: Acceptance }
  | {
      readonly _tag: "Paid"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly paidAt: DateTime.Utc
      readonly refunds: ReadonlyArray<Refund>
      readonly refundedAmount: Money.Money
    }
  | {
      readonly _tag: "Failed"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly failedAt: DateTime.Utc
      readonly returnCode?: string
      readonly reason: string
    }
  | {
      readonly _tag: "Refunded"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly paidAt: DateTime.Utc
      readonly refunds: ReadonlyArray<Refund>
      readonly refundedAmount: Money.Money
      readonly refundedAt: DateTime.Utc
    }
  | {
      readonly _tag: "PaidByCard"
      readonly request: RequestDetails
      readonly card: CardCharge
      readonly paidAt: DateTime.Utc
      /** The card refunds the processor completed (`PaymentRequestCardRefunds`; absent: none). */
      readonly refunds?: ReadonlyArray<Refund>
      readonly refundedAmount?: Money.Money
    }
  | {
      readonly _tag: "Returned"
      readonly request: RequestDetails
      readonly acceptance: Acceptance
      readonly paidAt: DateTime.Utc
      readonly refunds: ReadonlyArray<Refund>
      readonly refundedAmount: Money.Money
      readonly returnedAt: DateTime.Utc
      readonly returnCode: string
      readonly reason: string
    }

export const initialState: State = { _tag: "Initial" }

/** The status a client reads, or undefined when the request does not exist. */
export const status = (state: State): PaymentRequestStatus | undefined =>
  state._tag === "Initial"
    ? undefined
    : state._tag === "PaidByCard"
      ? PaymentRequestCardRefunds.statusOf(state)
      : state._tag

/** The new status an event moves the request to, or undefined for an event that keeps the status. */
export const statusOf = (event: PaymentRequestEvent): PaymentRequestStatus | undefined => statusByEvent[event._tag]

/**
 * The one table of the statuses the events move a request to (undefined: the event keeps the
 * status). A card payment makes the request Paid, as a settled transfer does.
 */
const statusByEvent: { readonly [Tag in PaymentRequestEvent["_tag"]]: PaymentRequestStatus | undefined } = {
  PaymentRequestCreated: "Pending",
  PaymentRequestAccepted: "Accepted",
  PaymentRequestCancelled: "Cancelled",
  PaymentRequestPaid: "Paid",
  PaymentRequestPaidByCard: "Paid",
  PaymentRequestFailed: "Failed",
  PaymentRequestReturned: "Returned",
  PaymentRequestRefunded: "Refunded",
  PaymentRequestPartiallyRefunded: undefined,
  PaymentRequestAutoCollectionSkipped: undefined,
  PaymentRequestMetadataSet: undefined,
}

/** The refusal of a command the request's state does not allow. */
export const illegal = (state: State, command: { readonly _tag: string }, reason: string) =>
  refuse(new IllegalTransition({ entity: "PaymentRequest", state: state._tag, command: command._tag, reason }))

/** The refusal of a command for a request that does not exist. */
export const notFound = refuse(new NotFound({ entity: "PaymentRequest" }))
