/**
 * The PaymentRequest's same-day autopay and debit-authorization rules: how a
 * request is collected automatically, when it is due for it, whether it may be
 * (`autoCollectionRefusal`), and the debit authorization a payer's acceptance
 * grants. The decision itself is `TryAutoCollection` in `PaymentRequest.ts`.
 */
import * as CalendarDate from "../kernel/CalendarDate.ts"
import type { CompanyId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import type { TryAutoCollection } from "./PaymentRequestCommands.ts"
import type { AutoCollectionMethod, AutoCollectionSkipReason, Of } from "./PaymentRequestEvents.ts"
import type { RequestDetails, State } from "./PaymentRequestState.ts"
import * as WhoMayCollect from "./WhoMayCollect.ts"

/** How a request is collected automatically (autopay or debit authorization), or undefined when it is not. */
export const autoCollectionMethodOf = (request: RequestDetails): AutoCollectionMethod | undefined =>
  request.autoPayLimit !== undefined ? "AutoPay" : request.debitCeiling !== undefined ? "DebitAuth" : undefined

/**
 * True when the service should try to collect the request by itself on
 * `today`: Pending, offering autopay or a debit authorization, due on or
 * before `today`, and not tried before.
 */
export const isDueForAutoCollection = (state: State, today: CalendarDate.CalendarDate): boolean =>
  state._tag === "Pending" &&
  state.autoCollectionSkipped === undefined &&
  autoCollectionMethodOf(state.request) !== undefined &&
  CalendarDate.compare(state.request.dueDate, today) <= 0

/**
 * Whether a due request may be collected, the payer's designated account
 * aside (`TryAutoCollection` checks it last): the reason it may not, or
 * undefined when it may. First, who may collect: a Verified company from a
 * Verified payer (`WhoMayCollect`). Autopay: within `autoPayLimit`.
 * Debit authorization: the amount within the request's `debitCeiling` (the
 * partner's), and an Active authorization whose limit (the payer's, same
 * currency) covers it.
 */
export const autoCollectionRefusal = (
  request: RequestDetails,
  command: Pick<TryAutoCollection, "debitAuth" | "parties" | "autoPayRevoked">,
): AutoCollectionSkipReason | undefined => {
  if (WhoMayCollect.companyRefusal(command.parties.companyStatus) !== undefined) return "CompanyNotVerified"
  if (WhoMayCollect.payerRefusal(command.parties.payerKyc) !== undefined) return "PayerNotVerified"
  const within = (limit: Money.Money) => Money.isWithin(request.amount, limit)
  if (request.autoPayLimit !== undefined) {
    if (command.autoPayRevoked === true) return "AutoPayRevoked"
    return within(request.autoPayLimit) ? undefined : "OverAutoPayLimit"
  }
  // Stryker disable next-line ConditionalExpression: equivalent, a request offering neither autopay nor a debit authorization is refused (NOT_AUTOMATIC) before this is asked (the test narrows the type)
  if (request.debitCeiling === undefined) return undefined
  if (!within(request.debitCeiling)) return "OverDebitAuthLimit"
  if (command.debitAuth === undefined || !command.debitAuth.active) return "NoDebitAuthorization"
  return within(command.debitAuth.limit) ? undefined : "OverDebitAuthLimit"
}

/**
 * The debit authorization a payer grants by accepting a request with `acceptDebitAuth: true`: for
 * the request's company, up to the request's ceiling (`debitCeiling`, the partner's offer). The
 * payer's own acceptance only: the service's collection of a debit-authorization request uses the
 * authorization, it grants nothing. Undefined when the acceptance grants nothing.
 */
export const debitAuthGrantOf = (
  request: RequestDetails,
  accepted: Of<"PaymentRequestAccepted">,
):
  | {
      readonly partnerId: PartnerId
      readonly registrationId: RegistrationId
      readonly companyId: CompanyId
      readonly limit: Money.Money
    }
  | undefined =>
  accepted.debitAuthAccepted && accepted.collectedBy === undefined && request.debitCeiling !== undefined
    ? {
        partnerId: request.partnerId,
        registrationId: accepted.registrationId,
        companyId: request.companyId,
        limit: request.debitCeiling,
      }
    : undefined
