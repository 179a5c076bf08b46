/**
 * Same-day autopay and debit-authorization collection: the use cases the
 * auto-collection scheduler calls, `due(today)` (the work list) and
 * `collect(paymentRequestId)` (one request, in one unit of work).
 *
 * The rule whether a request may be collected is the PaymentRequest
 * aggregate's (`TryAutoCollection`); this module only gathers what the
 * decision needs and the request does not hold:
 * - the payer's designated account (`designatedAccount`): the default account
 *   the payer set with PUT /Account/Default if it is still linked, else the
 *   account of the payer's most recent acceptance (among their 100 newest
 *   payment requests of the partner) if it is still linked, else none;
 * - for a debit-authorization request, the payer's debit authorization for the
 *   request's company (its current state, from its stream).
 *
 * When the request is collected, everything a manual acceptance does happens
 * in the same unit of work: the request is Accepted (PAYMENT_REQUEST_STATUS_CHANGED),
 * its Transfer is initiated (then settled by the bank, which makes the request
 * Paid), and for a debit authorization the debit is authorized on it.
 */

import { DateTime, Effect } from "effect"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { NotFound } from "../kernel/DomainError.ts"
import type { BankAccountId, DebitAuthId, PartnerId, PaymentRequestId, TransferId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as DebitAuth from "./DebitAuth.ts"
import * as DebitAuthsProjection from "./DebitAuthsProjection.ts"
import * as PaymentRequest from "./PaymentRequest.ts"
import type { AutoCollectionMethod, AutoCollectionSkipReason } from "./PaymentRequestEvents.ts"
import * as PaymentRequestsProjection from "./PaymentRequestsProjection.ts"
import * as Payments from "./Payments.ts"
import * as Transfer from "./Transfer.ts"

/** How many of the payer's newest payment requests are searched for their most recent acceptance. */
export const acceptanceLookback = 100

/** A request the scheduler should try to collect. */
export interface DueRequest {
  readonly paymentRequestId: PaymentRequestId
  readonly partnerId: PartnerId
  readonly collection: AutoCollectionMethod
  readonly dueDate: CalendarDate.CalendarDate
}

/** Requests of every partner offering autopay or a debit authorization, not tried yet, due by `today`, earliest first. */
export const due = Traced.fn("AutoCollection.due")(function* (today: CalendarDate.CalendarDate, limit = 100) {
  const store = yield* ReadModelStore
  const projection = PaymentRequestsProjection.dueForAutoCollection
  const page = yield* store.find(projection.collection, {
    partnerId: PaymentRequestsProjection.systemTenant,
    sortKeyTo: today,
    limit,
    order: "asc",
  })
  return page.items.map((item): DueRequest => {
    const doc = decodeDocument(projection, item)
    return {
      paymentRequestId: doc.paymentRequestId,
      partnerId: doc.partnerId as PartnerId,
      collection: doc.collection,
      dueDate: doc.dueDate as CalendarDate.CalendarDate,
    }
  })
})

/** One earlier acceptance of the payer: the account used and when. */
export interface EarlierAcceptance {
  readonly bankAccountId: string
  /** ISO 8601 instant. */
  readonly acceptedAt: string
}

/**
 * The payer's designated account (pure): the default if it is linked, else
 * the account of the most recent earlier acceptance that is still linked.
 */
export const designatedAccount = (
  payer: Customer.RegisteredCustomer,
  acceptances: ReadonlyArray<EarlierAcceptance>,
): Customer.LinkedBankAccount | undefined => {
  const explicit = Customer.defaultBankAccount(payer)
  if (explicit !== undefined) return explicit
  // An account an account-level return made unusable is never designated.
  const linked = Customer.linkedBankAccounts(payer).filter(
    (a) => Customer.unusableReturnCode(payer, a.bankAccountId) === undefined,
  )
  const newestFirst = [...acceptances].sort((a, b) => (a.acceptedAt < b.acceptedAt ? 1 : -1))
  for (const acceptance of newestFirst) {
    const account = linked.find((a) => a.bankAccountId === acceptance.bankAccountId)
    if (account !== undefined) return account
  }
  return undefined
}

/** The payer's earlier acceptances of the partner's requests (their newest `acceptanceLookback` requests). */
const earlierAcceptances = Traced.fn("AutoCollection.earlierAcceptances")(function* (
  partnerId: PartnerId,
  payerRegistrationId: string,
) {
  const store = yield* ReadModelStore
  const page = yield* store.find(PaymentRequestsProjection.collection, {
    partnerId,
    keys: { payerRegistrationId },
    limit: acceptanceLookback,
    order: "desc",
  })
  const acceptances: Array<EarlierAcceptance> = []
  for (const item of page.items) {
    const doc = decodeDocument(PaymentRequestsProjection.projection, item)
    const acceptedAt = doc.statusHistory.find((change) => change.status === "Accepted")?.timestamp
    if (doc.bankAccountId !== undefined && acceptedAt !== undefined)
      acceptances.push({ bankAccountId: doc.bankAccountId, acceptedAt })
  }
  return acceptances
})

/** The payer's debit authorization for the request's company, with its current state. */
const debitAuthOf = Traced.fn("AutoCollection.debitAuthOf")(function* (request: PaymentRequest.RequestDetails) {
  const store = yield* ReadModelStore
  const page = yield* store.find(DebitAuthsProjection.collection, {
    partnerId: request.partnerId,
    keys: { registrationId: request.payerRegistrationId, companyId: request.companyId },
    limit: 1,
  })
  const item = page.items[0]
  if (item === undefined) return undefined
  const debitAuthId = item.id as DebitAuthId
  const { state } = yield* CommandHandler.load(DebitAuth.aggregate, debitAuthId)
  if (state._tag === "Initial") return undefined
  return { debitAuthId, active: state._tag === "Active", limit: state.limit }
})

/** What one collection attempt did. */
export type Outcome =
  | {
      readonly _tag: "Collected"
      readonly paymentRequestId: PaymentRequestId
      readonly collection: AutoCollectionMethod
      readonly transferId: TransferId
      readonly bankAccountId: BankAccountId
    }
  | { readonly _tag: "Skipped"; readonly paymentRequestId: PaymentRequestId; readonly reason: AutoCollectionSkipReason }
  | { readonly _tag: "NothingToDo"; readonly paymentRequestId: PaymentRequestId }

/**
 * Tries to collect one request by itself, in one unit of work: when it is due
 * for auto-collection on `today` (default: the clock's UTC date), the
 * aggregate decides (`TryAutoCollection`) to accept it from the payer's
 * designated account, which initiates its transfer (and authorizes the debit
 * on the payer's debit authorization), or to skip it once with a reason.
 * A request already collected, paid, cancelled or tried: NothingToDo.
 */
export const collect = UseCase.fn("AutoCollection.collect")(function* (
  paymentRequestId: string,
  today?: CalendarDate.CalendarDate,
) {
  const at = yield* DateTime.now
  const day = today ?? CalendarDate.fromEpochMillis(DateTime.toEpochMillis(at))
  const loaded = yield* CommandHandler.load(PaymentRequest.aggregate, paymentRequestId)
  const state = loaded.state
  if (state._tag === "Initial") return yield* new NotFound({ entity: "PaymentRequest" })
  const request = state.request
  const nothingToDo: Outcome = { _tag: "NothingToDo", paymentRequestId: request.paymentRequestId }
  if (!PaymentRequest.isDueForAutoCollection(state, day)) return nothingToDo
  const customer = yield* CommandHandler.load(Customer.aggregate, request.payerRegistrationId)
  const payer = Customer.belongsTo(customer.state, request.partnerId)
    ? (customer.state as Customer.RegisteredCustomer)
    : undefined
  const account =
    payer === undefined
      ? undefined
      : designatedAccount(payer, yield* earlierAcceptances(request.partnerId, request.payerRegistrationId))
  const debitAuth = request.debitCeiling === undefined ? undefined : yield* debitAuthOf(request)
  const parties = yield* Payments.partiesOf(request.partnerId, request.companyId, request.payerRegistrationId)
  const transferId = (yield* (yield* IdGenerator).next) as TransferId
  const command: PaymentRequest.TryAutoCollection = {
    _tag: "TryAutoCollection",
    paymentRequestId: request.paymentRequestId,
    today: day,
    ...(account === undefined
      ? {}
      : {
          account: {
            bankAccountId: account.bankAccountId,
            accountNumberMasked: Transfer.maskAccountNumber(account.mask),
          },
        }),
    ...(debitAuth === undefined ? {} : { debitAuth: { active: debitAuth.active, limit: debitAuth.limit } }),
    ...(payer !== undefined && !Customer.autoPayAllowedFor(payer, request.companyId) ? { autoPayRevoked: true } : {}),
    ...(payer?.autopayAuthorization !== undefined && payer.defaultBankAccountId === account?.bankAccountId
      ? { autopayAuthorization: payer.autopayAuthorization }
      : {}),
    parties,
    transferId,
    at,
  }
  // The request's stream is read once: its decision is recorded at the version loaded above.
  const decision = PaymentRequest.aggregate.decide(command, state)
  if (decision._tag === "Failure") return yield* Effect.fail(decision.failure)
  const handled = yield* CommandHandler.record(
    PaymentRequest.aggregate,
    request.paymentRequestId,
    loaded,
    decision.success,
  )
  const event = handled.events[0]
  if (event?._tag === "PaymentRequestAutoCollectionSkipped")
    return { _tag: "Skipped", paymentRequestId: request.paymentRequestId, reason: event.reason } satisfies Outcome
  if (event?._tag !== "PaymentRequestAccepted" || payer === undefined || account === undefined) return nothingToDo
  if (debitAuth !== undefined && event.collectedBy === "DebitAuth") {
    yield* CommandHandler.handle(DebitAuth.aggregate, debitAuth.debitAuthId, {
      _tag: "AuthorizeDebit",
      paymentRequestId: request.paymentRequestId,
      companyId: request.companyId,
      amount: request.amount,
      at,
    })
  }
  const initiate = yield* Payments.transferOf(request, payer, account, event)
  yield* CommandHandler.handle(Transfer.aggregate, transferId, initiate, { expectNew: true })
  return {
    _tag: "Collected",
    paymentRequestId: request.paymentRequestId,
    collection: event.collectedBy ?? "AutoPay",
    transferId,
    bankAccountId: account.bankAccountId,
  } satisfies Outcome
})
