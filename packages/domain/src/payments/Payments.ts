/**
 * Payment request use cases: create (partner), read and list (partner),
 * cancel (partner), accept (the payer, a customer; starts the Transfer in the
 * same unit of work and, with `acceptDebitAuth`, grants the payer's debit
 * authorization for the company up to the request's ceiling), and direct settlement entry points for tests and tools
 * (`settleTransfer`, `failTransfer`, `settleBatch`), which apply an outcome to
 * the Transfer and, through its policies, to the payment request it pays.
 * Money moves through `MoneyMovements` (the app's money-movement workers).
 *
 * Tenancy: a request of another partner, or (for a customer) one the customer
 * is not the payer of, is reported exactly like a missing one (NotFound); so
 * is a payer that is not one of the partner's customers (NotFound "Customer",
 * whether another partner's or unknown).
 */

import { Context, DateTime, Effect, Option, Result } from "effect"
import { Company, CompanyReference } from "../companies/index.ts"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import type { EventStoreUnavailable, VersionConflict } from "../infrastructure/EventStore.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { WireAmount } from "../kernel/Amounts.ts"
import type { CalendarDate } from "../kernel/CalendarDate.ts"
import { type DomainError, type FieldIssue, NotFound, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import type {
  BankAccountId,
  CompanyReferenceId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../kernel/Ids.ts"
import type * as Metadata from "../kernel/Metadata.ts"
import * as Money from "../kernel/Money.ts"
import { erased, isErased } from "../kernel/Personal.ts"
import * as Traced from "../kernel/Traced.ts"
import type * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
import * as DebitAuths from "./DebitAuths.ts"
import * as PaymentRequest from "./PaymentRequest.ts"
import type * as PaymentRequestEvents from "./PaymentRequestEvents.ts"
import * as PaymentRequestsProjection from "./PaymentRequestsProjection.ts"
import * as PlatformFees from "./PlatformFees.ts"
import * as RailRules from "./RailRules.ts"
import * as Transfer from "./Transfer.ts"
import type { Attachment, RecipientAddress, TransferInvoice } from "./TransferEvents.ts"
import type * as WhoMayCollect from "./WhoMayCollect.ts"

/** Every failure a payment use case reports (all mapped to HTTP problems). */
export type Failure = DomainError | VersionConflict | EventStoreUnavailable

const notFound = new NotFound({ entity: "PaymentRequest" })
const payerNotFound = new NotFound({ entity: "Customer" })

/**
 * Sandbox: a payment request's `attachmentUrl` may be http and name a local
 * host (a partner's local server); the app provides `true` in the sandbox,
 * production keeps the default (https URLs with a host name only).
 */
export const SandboxAttachmentUrls = Context.Reference<boolean>("partnerpay/domain/payments/SandboxAttachmentUrls", {
  defaultValue: () => false,
})

/** The country of every recipient address: partnerpay serves US companies (state abbreviations are US states). */
export const recipientCountry = "US"

/** A company's address as a transfer's recipient address (no apartment number: empty). */
export const recipientAddressOf = (company: {
  readonly streetNumberAndName: string
  readonly apartmentNumber?: string | undefined
  readonly city: string
  readonly zipCode: string
  readonly state: string
}): RecipientAddress => ({
  streetNumberAndName: company.streetNumberAndName,
  apartmentNumber: company.apartmentNumber ?? "",
  city: company.city,
  zipCode: company.zipCode,
  state: company.state,
  country: recipientCountry,
})

// ---------------------------------------------------------------------------
// Create

export interface CreateInput {
  readonly partnerId: PartnerId
  readonly companyId?: string | undefined
  readonly companyReferenceId?: string | undefined
  readonly payerRegistrationId: RegistrationId
  readonly amount: WireAmount
  readonly description: string
  readonly dueDate: CalendarDate
  readonly enableAutoPay?: boolean | undefined
  readonly autoPayLimit?: WireAmount | undefined
  readonly enableDebitAuth?: boolean | undefined
  /** The request's ceiling for a debit-authorization collection (the command's `debitCeiling`). */
  readonly debitAuthLimit?: WireAmount | undefined
  readonly attachmentUrl?: string | undefined
  readonly invoiceNumber?: string | undefined
  readonly lineItems?:
    | ReadonlyArray<{ readonly description: string; readonly quantity: number; readonly unitAmount: WireAmount }>
    | undefined
  readonly metadata?: Metadata.Metadata | undefined
}

const convert = (issues: Array<FieldIssue>, field: string, wire: WireAmount): Money.Money | undefined =>
  Result.match(Money.fromDecimal(wire.value, wire.currencyCode), {
    onSuccess: (money) => money,
    onFailure: (problem) => {
      issues.push({ field: `${field}.value`, message: Money.describeProblem(problem) })
      return undefined
    },
  })

/** The partner's company named by id or by the partner's reference, or NotFound. */
export const findCompany = Traced.fn("Payments.findCompany")(function* (
  partnerId: PartnerId,
  companyId: string | undefined,
  companyReferenceId: string | undefined,
) {
  let id = companyId
  if (id === undefined && companyReferenceId !== undefined) {
    const reference = yield* UseCase.dieOnCorruptEvent(
      CommandHandler.load(
        CompanyReference.aggregate,
        CompanyReference.idOf(partnerId, companyReferenceId as CompanyReferenceId),
      ),
    )
    if (reference.state._tag === "Reserved") id = reference.state.companyId
  }
  if (id === undefined) return yield* new NotFound({ entity: "Company" })
  const company = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, id))
  if (company.state._tag === "Initial" || company.state.partnerId !== partnerId)
    return yield* new NotFound({ entity: "Company" })
  return company.state
})

/**
 * Who may collect, as the aggregates have it now: the company's KYB status
 * (a missing company, or another partner's, counts as Unverified) and the
 * payer's KYC status ("NotStarted" for a registration that is not the
 * partner's customer), for the deciders' `WhoMayCollect` rules.
 */
export const partiesOf = Traced.fn("Payments.partiesOf")(function* (
  partnerId: PartnerId,
  companyId: string,
  payerRegistrationId: RegistrationId,
) {
  const company = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, companyId))
  const payer = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, payerRegistrationId))
  const parties: WhoMayCollect.Parties = {
    companyStatus:
      company.state._tag === "Initial" || company.state.partnerId !== partnerId ? "Unverified" : company.state._tag,
    payerKyc: Customer.belongsTo(payer.state, partnerId) ? Customer.kycStatus(payer.state) : "NotStarted",
  }
  return parties
})

/** Creates a Pending payment request for one of the partner's companies; returns its id and status. */
export const create = UseCase.fn("Payments.create")(function* (input: CreateInput) {
  const issues: Array<FieldIssue> = []
  if ((input.companyId === undefined) === (input.companyReferenceId === undefined)) {
    const message =
      input.companyId === undefined
        ? "give companyId or companyReferenceId"
        : "give either companyId or companyReferenceId, not both"
    issues.push({ field: "companyId", message }, { field: "companyReferenceId", message })
  }
  const amount = convert(issues, "amount", input.amount)
  const autoPayLimit =
    input.autoPayLimit === undefined ? undefined : convert(issues, "autoPayLimit", input.autoPayLimit)
  const debitCeiling =
    input.debitAuthLimit === undefined ? undefined : convert(issues, "debitAuthLimit", input.debitAuthLimit)
  const lineItems = input.lineItems?.map((line, index) => ({
    description: line.description,
    quantity: line.quantity,
    unitAmount:
      convert(issues, `lineItems[${index}].unitAmount`, line.unitAmount) ?? Money.zero(line.unitAmount.currencyCode),
  }))
  if (issues.length > 0 || amount === undefined) return yield* new ValidationFailed({ issues })
  // The rail moves only its currencies: refused when asked, not when originated (RailCapabilities.ts).
  yield* RailRules.checkCurrency(amount.currency)
  const company = yield* findCompany(input.partnerId, input.companyId, input.companyReferenceId)
  // The payer is one of the partner's customers; another partner's customer is NotFound exactly like an
  // unknown registration id, so the answer does not tell that the other partner's customer exists.
  const payer = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, input.payerRegistrationId))
  if (!Customer.belongsTo(payer.state, input.partnerId)) return yield* payerNotFound
  const ids = yield* IdGenerator
  const paymentRequestId = (yield* ids.next) as PaymentRequestId
  const at = yield* DateTime.now
  const command: PaymentRequest.CreatePaymentRequest = {
    _tag: "CreatePaymentRequest",
    paymentRequestId,
    partnerId: input.partnerId,
    companyId: company.companyId,
    companyStatus: company._tag,
    payerRegistrationId: input.payerRegistrationId,
    amount,
    description: input.description,
    dueDate: input.dueDate,
    ...(input.attachmentUrl === undefined
      ? {}
      : { attachmentUrl: input.attachmentUrl, sandboxAttachmentUrl: yield* SandboxAttachmentUrls }),
    ...(input.enableAutoPay === undefined ? {} : { enableAutoPay: input.enableAutoPay }),
    ...(autoPayLimit === undefined ? {} : { autoPayLimit }),
    ...(input.enableDebitAuth === undefined ? {} : { enableDebitAuth: input.enableDebitAuth }),
    ...(debitCeiling === undefined ? {} : { debitCeiling }),
    ...(input.invoiceNumber === undefined ? {} : { invoiceNumber: input.invoiceNumber }),
    ...(lineItems === undefined ? {} : { lineItems }),
    ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
    at,
  }
  // Every field first (422 VALIDATION_FAILED naming it), as the decider validates them: the payer limit
  // below must not hide a bad field behind PAYER_LIMIT_EXCEEDED.
  const invalid = PaymentRequest.validateCreate(command)
  if (invalid !== undefined && Result.isFailure(invalid)) return yield* invalid.failure
  // Autopay or a debit authorization within its ceiling collects it without an Accept: the payer limit
  // is checked now.
  const ceiling =
    input.enableAutoPay === true ? autoPayLimit : input.enableDebitAuth === true ? debitCeiling : undefined
  if (ceiling !== undefined && ceiling.currency === amount.currency && amount.minorUnits <= ceiling.minorUnits)
    yield* RailRules.checkAutoCollection(input.partnerId, input.payerRegistrationId, amount, input.dueDate)
  yield* CommandHandler.handle(PaymentRequest.aggregate, paymentRequestId, command, { expectNew: true })
  return { paymentRequestId, status: "Pending" as const }
})

// ---------------------------------------------------------------------------
// Read

/** A payment request as clients read it: the one declaration the HTTP response reuses. */
export const PaymentRequestView = PaymentRequestsProjection.PaymentRequestView
export type PaymentRequestView = PaymentRequestsProjection.PaymentRequestView

/** The payment request document, or NotFound when missing or of another partner. */
export const get = Traced.fn("Payments.get")(function* (partnerId: PartnerId, paymentRequestId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(PaymentRequestsProjection.collection, paymentRequestId)
  if (Option.isNone(stored) || stored.value.index.partnerId !== partnerId) return yield* notFound
  return decodeDocument(PaymentRequestsProjection.projection, stored.value)
})

/**
 * The invoice (number and lines) of the payment request a transfer pays, for
 * showing on the transfer; undefined when the transfer pays no request, or a
 * request without an invoice. The transfer recorded it at initiation; one
 * initiated before that was recorded has it read from the request's document.
 */
export const invoiceOf = Traced.fn("Payments.invoiceOf")(function* (
  partnerId: PartnerId,
  transfer: {
    readonly paymentRequestId?: string | undefined
    readonly invoice?: TransferInvoice | undefined
  },
) {
  const recorded = transfer.invoice
  if (recorded !== undefined)
    return recorded.invoiceNumber === undefined && recorded.lineItems === undefined ? undefined : recorded
  const paymentRequestId = transfer.paymentRequestId
  if (paymentRequestId === undefined) return undefined
  const store = yield* ReadModelStore
  const stored = yield* store.get(PaymentRequestsProjection.collection, paymentRequestId)
  if (Option.isNone(stored) || stored.value.index.partnerId !== partnerId) return undefined
  const doc = decodeDocument(PaymentRequestsProjection.projection, stored.value)
  if (doc.invoiceNumber === undefined && doc.lineItems === undefined) return undefined
  return {
    ...(doc.invoiceNumber === undefined ? {} : { invoiceNumber: doc.invoiceNumber }),
    ...(doc.lineItems === undefined ? {} : { lineItems: doc.lineItems }),
  }
})

export interface HistoryQuery {
  readonly partnerId: PartnerId
  readonly companyId?: string | undefined
  readonly status?: PaymentRequest.PaymentRequestStatus | undefined
  readonly payerRegistrationId?: string | undefined
  /** Inclusive UTC calendar dates of creation. */
  readonly from?: CalendarDate | undefined
  readonly to?: CalendarDate | undefined
  readonly limit: number
  readonly startingAfter?: string | undefined
}

/** The partner's payment requests, newest first, filtered and paginated by cursor. */
export const history = Traced.fn("Payments.history")(function* (query: HistoryQuery) {
  if (query.from !== undefined && query.to !== undefined && query.from > query.to)
    return yield* ValidationFailed.of("from", "must not be after to")
  const store = yield* ReadModelStore
  const keys: Record<string, string> = {}
  if (query.companyId !== undefined) keys.companyId = query.companyId
  if (query.status !== undefined) keys.status = query.status
  if (query.payerRegistrationId !== undefined) keys.payerRegistrationId = query.payerRegistrationId
  const page = yield* store.find(PaymentRequestsProjection.collection, {
    partnerId: query.partnerId,
    keys,
    ...(query.from === undefined ? {} : { sortKeyFrom: `${query.from}T00:00:00.000Z` }),
    ...(query.to === undefined ? {} : { sortKeyTo: `${query.to}T23:59:59.999Z` }),
    ...(query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter }),
    limit: query.limit,
    order: "desc",
  })
  return {
    data: page.items.map((item) => decodeDocument(PaymentRequestsProjection.projection, item)),
    hasMore: page.hasMore,
  }
})

// ---------------------------------------------------------------------------
// Cancel

/** Cancels a Pending request; a repeat is a no-op; after acceptance IllegalTransition (409). */
/**
 * Replaces the partner's metadata of its payment request (any status); answers the metadata now held.
 * Another partner's request, or an unknown one, is NotFound.
 */
export const setMetadata = UseCase.fn("Payments.setMetadata")(function* (
  partnerId: PartnerId,
  paymentRequestId: string,
  metadata: Metadata.Metadata,
) {
  yield* CommandHandler.handleNow(PaymentRequest.aggregate, paymentRequestId, {
    _tag: "SetPaymentRequestMetadata",
    paymentRequestId: paymentRequestId as PaymentRequestId,
    partnerId,
    metadata,
  })
  return { metadata }
})

export const cancel = UseCase.fn("Payments.cancel")(function* (partnerId: PartnerId, paymentRequestId: string) {
  yield* CommandHandler.handleNow(PaymentRequest.aggregate, paymentRequestId, {
    _tag: "CancelPaymentRequest",
    paymentRequestId: paymentRequestId as PaymentRequestId,
    partnerId,
  }).pipe(
    // Another partner's request looks missing.
    Effect.catchIf(
      (error) => error._tag === "RuleViolated" && error.code === "NOT_THE_PARTNER",
      () => Effect.fail(notFound),
    ),
  )
})

// ---------------------------------------------------------------------------
// Accept (the payer)

export interface AcceptInput {
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  readonly paymentRequestId: string
  readonly bankAccountId: BankAccountId
  readonly acceptDebitAuth: boolean
  readonly transferDescription: string
  /** The request that carried the acceptance: the authorization's evidence (address, user agent). */
  readonly client?: AuthorizationEvidence.ClientContext
}

const contentTypes: Record<string, string> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  xml: "application/xml",
  html: "text/html",
}

/** The attachment a request's attachment URL becomes on its transfer: named after the URL's last path segment. */
export const attachmentOf = (attachmentId: string, url: string): Attachment => {
  const path = url.replace(/[?#].*$/, "").replace(/^https?:\/\/[^/]+/, "")
  let name =
    path
      .split("/")
      .filter((segment) => segment !== "")
      .pop() ?? ""
  try {
    name = decodeURIComponent(name)
  } catch {
    // keep the raw segment
  }
  name = name.trim().slice(0, 200)
  if (name === "") name = "attachment"
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase()
  return {
    id: attachmentId,
    name,
    contentType: (extension === undefined ? undefined : contentTypes[extension]) ?? "application/octet-stream",
  }
}

/**
 * The display name of a customer: verified first and last name, else the bank account's name. A customer
 * whose name was erased is "[erased]" (never "[erased] [erased]").
 */
export const senderNameOf = (customer: Customer.RegisteredCustomer, accountName: string): string => {
  const personal = customer.personalData
  if (personal !== null && (isErased(personal.firstName) || isErased(personal.lastName))) return erased
  const name = personal === null ? "" : `${personal.firstName} ${personal.lastName}`.trim()
  return name !== "" ? name : accountName.trim() !== "" ? accountName : "Customer"
}

/**
 * Who a transfer moves money between, as it records them: the payer's name (`senderNameOf`) and masked
 * account, the company's name, masked payout account (when it has one) and address.
 */
export const transferPartiesOf = (
  payer: Customer.RegisteredCustomer,
  account: { readonly name: string; readonly accountNumberMasked: string },
  company: Parameters<typeof recipientAddressOf>[0] & { readonly name: string },
  payoutAccount: { readonly accountNumberMasked: string } | undefined,
) => ({
  senderName: senderNameOf(payer, account.name),
  recipientName: company.name,
  senderAccountMasked: account.accountNumberMasked,
  ...(payoutAccount === undefined ? {} : { recipientAccountMasked: payoutAccount.accountNumberMasked }),
  recipientAddress: recipientAddressOf(company),
})

/**
 * The payer accepts a Pending request with one of their linked bank accounts:
 * the request becomes Accepted and its Transfer is initiated, in one unit of
 * work. Repeating the acceptance with the same account changes nothing.
 */
export const accept = UseCase.fn("Payments.accept")(function* (input: AcceptInput) {
  const loaded = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(PaymentRequest.aggregate, input.paymentRequestId))
  const state = loaded.state
  if (
    state._tag === "Initial" ||
    state.request.partnerId !== input.partnerId ||
    state.request.payerRegistrationId !== input.registrationId
  )
    return yield* notFound
  const request = state.request
  // The payer's linked account (TODO: read it from the customers read model once it exists).
  const customer = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, input.registrationId))
  const account = Customer.linkedBankAccounts(customer.state).find((a) => a.bankAccountId === input.bankAccountId)
  if (customer.state._tag !== "Registered" || account === undefined)
    return yield* new RuleViolated({
      code: "BANK_ACCOUNT_NOT_LINKED",
      reason: "the bank account is not linked to the payer",
    })
  const unusable = Customer.bankAccountRefusal(customer.state, input.bankAccountId)
  if (unusable !== undefined) return yield* unusable
  const payer = customer.state
  const ids = yield* IdGenerator
  const transferId = (yield* ids.next) as TransferId
  const at = yield* DateTime.now
  const acceptCommand: PaymentRequest.AcceptPaymentRequest = {
    _tag: "AcceptPaymentRequest",
    paymentRequestId: request.paymentRequestId,
    registrationId: input.registrationId,
    payerKyc: payer.kycStatus,
    bankAccountId: input.bankAccountId,
    accountNumberMasked: Transfer.maskAccountNumber(account.mask),
    acceptDebitAuth: input.acceptDebitAuth,
    transferDescription: input.transferDescription,
    transferId,
    ...(input.client === undefined ? {} : { client: input.client }),
    at,
  }
  // Each aggregate decided once: the Transfer is built from the acceptance's events, both recorded
  // after (in this unit: a refusal of either records nothing), the request's stream not read again.
  const decision = PaymentRequest.aggregate.decide(acceptCommand, state)
  if (decision._tag === "Failure") return yield* Effect.fail(decision.failure)
  const accepted = decision.success[0]
  if (accepted?._tag !== "PaymentRequestAccepted") return { status: PaymentRequest.status(state) ?? "Accepted" }
  // What the rail cannot do is refused now, not at origination: its currencies and the payer's rolling limit.
  yield* RailRules.checkCurrency(request.amount.currency)
  yield* RailRules.checkPayerLimit(request.partnerId, input.registrationId, request.amount)
  const initiate = yield* transferOf(request, payer, account, accepted)
  const initiated = Transfer.aggregate.decide(initiate, Transfer.initialState)
  if (initiated._tag === "Failure") return yield* Effect.fail(initiated.failure)
  const handled = yield* CommandHandler.record(
    PaymentRequest.aggregate,
    request.paymentRequestId,
    loaded,
    decision.success,
  )
  yield* CommandHandler.record(
    Transfer.aggregate,
    transferId,
    { state: Transfer.initialState, version: 0 },
    initiated.success,
  )
  // Accepting with acceptDebitAuth grants the payer's debit authorization for the company, in the same unit.
  const grant = PaymentRequest.debitAuthGrantOf(request, accepted)
  if (grant !== undefined)
    yield* UseCase.dieOnCorruptEvent(
      DebitAuths.grant(input.client === undefined ? grant : { ...grant, client: input.client }),
    )
  return { status: PaymentRequest.status(handled.state) ?? "Accepted" }
})

/** The request's recipient company; RuleViolated COMPANY_NOT_FOUND when it no longer exists. */
const recipientCompany = (request: PaymentRequest.RequestDetails) =>
  findCompany(request.partnerId, request.companyId, undefined).pipe(
    Effect.catchTag("NotFound", () =>
      Effect.fail(new RuleViolated({ code: "COMPANY_NOT_FOUND", reason: "the recipient company no longer exists" })),
    ),
  )

/**
 * @internal The transfer an acceptance starts (manual, or automatic: autopay
 * and debit authorization), from the payer's account to the company, with
 * the request's attachment (the caller has the Transfer decide on it).
 */
export const transferOf = Traced.fn("Payments.transferOf")(function* (
  request: PaymentRequest.RequestDetails,
  payer: Customer.RegisteredCustomer,
  account: { readonly name: string },
  accepted: PaymentRequestEvents.Of<"PaymentRequestAccepted">,
) {
  const company = yield* recipientCompany(request)
  const ids = yield* IdGenerator
  const profile = company.profile
  const attachments =
    request.attachmentUrl === undefined ? [] : [attachmentOf((yield* ids.next) as string, request.attachmentUrl)]
  // The partner's ACH fee schedule and the provider's terms in force now are recorded on the transfer.
  const fees = yield* PlatformFees.appliedFor(request.partnerId, "AchDebit", request.amount)
  const initiate: Transfer.InitiateTransfer = {
    _tag: "InitiateTransfer",
    transferId: accepted.transferId,
    paymentRequestId: request.paymentRequestId,
    ...fees,
    payerRegistrationId: payer.registrationId,
    bankAccountId: accepted.bankAccountId,
    partnerId: request.partnerId,
    companyId: request.companyId,
    parties: { companyStatus: company._tag, payerKyc: payer.kycStatus },
    amount: request.amount,
    ...transferPartiesOf(
      payer,
      { name: account.name, accountNumberMasked: accepted.accountNumberMasked },
      profile,
      company.payoutAccount,
    ),
    attachments,
    description: accepted.transferDescription,
    invoice: {
      ...(request.invoiceNumber === undefined ? {} : { invoiceNumber: request.invoiceNumber }),
      ...(request.lineItems === undefined ? {} : { lineItems: request.lineItems }),
    },
    at: accepted.at,
  }
  return initiate
})

/** The ports the payment use cases need (those of `accept`, which reads and records the most). */
export type Requirements = Effect.Services<ReturnType<typeof accept>>

export {
  failTransfer,
  type SettlementBatchResult,
  type SettlementDecision,
  settleBatch,
  settleTransfer,
} from "./PaymentSettlements.ts"
