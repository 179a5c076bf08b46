/**
 * Transfer use cases: read one transfer (the partner, or the customer who paid
 * it), refund it (partner; mirrored onto the payment request it pays, in the
 * same unit of work), the transaction report (partner), and reimbursement
 * (the payer applies to a provider and gets an e-signature URL).
 *
 * A transfer of another partner, or one the customer did not pay, is reported
 * exactly like a missing one (NotFound).
 */

import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { notAvailable } from "../infrastructure/Providers.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type { WireAmount } from "../kernel/Amounts.ts"
import type { CalendarDate } from "../kernel/CalendarDate.ts"
import { inCurrencyOrder } from "../kernel/CurrencyOrder.ts"
import { NotFound, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import type { PartnerId, RegistrationId, TransferId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { type EnvelopeStatus, ESignature } from "./PaymentProviders.ts"
import * as PaymentRequestsProjection from "./PaymentRequestsProjection.ts"
import * as RailRules from "./RailRules.ts"
import * as ReturnCodes from "./ReturnCodes.ts"
import * as Transfer from "./Transfer.ts"
import {
  Attachment,
  RecipientAddress,
  type RefundId,
  type ReimbursementProviderId,
  TransferStatus,
} from "./TransferEvents.ts"
import * as TransfersProjection from "./TransfersProjection.ts"

const notFound = new NotFound({ entity: "Transfer" })

/** Who reads a transfer: a partner (its own transfers) or a customer (transfers they paid). */
export type Reader =
  | { readonly _tag: "Partner"; readonly partnerId: PartnerId }
  | { readonly _tag: "Customer"; readonly partnerId: PartnerId; readonly registrationId: RegistrationId }

/**
 * The payer of a transfer: named on a plan instalment's transfer, else the
 * payer of the payment request it pays (undefined for a stand-alone transfer).
 */
const payerOf = Traced.fn("Transfers.payerOf")(function* (doc: TransfersProjection.TransferDocument) {
  if (doc.payerRegistrationId !== undefined) return doc.payerRegistrationId
  if (doc.paymentRequestId === undefined) return undefined
  const store = yield* ReadModelStore
  const stored = yield* store.get(PaymentRequestsProjection.collection, doc.paymentRequestId)
  return Option.isNone(stored)
    ? undefined
    : decodeDocument(PaymentRequestsProjection.projection, stored.value).payerRegistrationId
})

/**
 * A transfer as clients read it (spec 2.9, field for field): the one
 * declaration the HTTP response reuses with the amount in wire form.
 */
/**
 * What `recipientAccount` says of a transfer that started while its company had no payout account:
 * the money waits in the company's balance until one is set (never a made-up mask).
 */
export const noPayoutAccountYet = "pending payout account"

export const TransferView = Schema.Struct({
  externalTransferId: Schema.String,
  status: TransferStatus,
  amount: Money.Money,
  fee: Schema.NullOr(Money.Money).annotate({
    description:
      "Addition: the platform's fee kept from the amount (the partner's fee schedule, or a charity gift's fee); null: none",
  }),
  date: Schema.String.annotate({ description: "ISO 8601 instant the transfer was initiated" }),
  senderName: Schema.String,
  recipientName: Schema.String,
  senderAccount: Schema.String.annotate({ description: "Masked, e.g. ****6789" }),
  recipientAccount: Schema.String.annotate({
    description: `The company's payout account, masked (e.g. ****4321), or "${noPayoutAccountYet}" while the company had none when the transfer started`,
  }),
  isRefunded: Schema.Boolean,
  isReimbursed: Schema.Boolean,
  appliedForReimbursement: Schema.Boolean,
  recipientAddress: RecipientAddress,
  attachments: Schema.Array(Attachment),
  ...ReturnCodes.failureViewFields({
    returnCode:
      "Failed or Returned: the ACH return code (e.g. R01, R10); null when the rail refused the transfer (see failureReason); absent otherwise",
    failureReason: "Failed with no return code: why the rail refused the transfer",
  }),
})
export type TransferView = typeof TransferView.Type

/** The view of a transfer document. */
export const viewOf = (doc: TransfersProjection.TransferDocument): TransferView => ({
  externalTransferId: doc.transferId,
  status: doc.status,
  amount: doc.amount,
  fee: doc.platformFee ?? null,
  date: doc.createdAt,
  senderName: doc.senderName,
  recipientName: doc.recipientName,
  senderAccount: doc.senderAccountMasked,
  recipientAccount: doc.recipientAccountMasked ?? noPayoutAccountYet,
  isRefunded: doc.isRefunded,
  isReimbursed: doc.isReimbursed,
  appliedForReimbursement: doc.appliedForReimbursement,
  recipientAddress: doc.recipientAddress,
  attachments: doc.attachments,
  ...(doc.returnCode !== undefined
    ? { returnCode: doc.returnCode, returnReason: ReturnCodes.returnReason(doc.returnCode, doc.failureReason ?? "") }
    : doc.status === "Failed"
      ? { returnCode: null, failureReason: doc.failureReason ?? "refused by the rail" }
      : {}),
})

/** The transfer document if the reader may see it, else NotFound. */
export const get = Traced.fn("Transfers.get")(function* (reader: Reader, transferId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(TransfersProjection.collection, transferId)
  if (Option.isNone(stored) || stored.value.index.partnerId !== reader.partnerId) return yield* notFound
  const doc = decodeDocument(TransfersProjection.projection, stored.value)
  if (reader._tag === "Customer" && (yield* payerOf(doc)) !== reader.registrationId) return yield* notFound
  return doc
})

// ---------------------------------------------------------------------------
// Refund

export interface RefundInput {
  readonly partnerId: PartnerId
  readonly transferId: string
  /** Omitted: refund everything not refunded yet. */
  readonly amount?: WireAmount | undefined
  readonly reason?: string | undefined
}

/**
 * Refunds part or all of a settled transfer: the refund is Pending (its amount
 * held) until the money-movement worker's credit completes or fails it
 * (`MoneyMovements`). Pending and completed refunds never exceed the amount:
 * the transfer's stream version guards it, so of two concurrent refunds that
 * would together exceed it, the second is decided again on the first and
 * refused.
 */
export const refund = UseCase.fn("Transfers.refund")(function* (input: RefundInput) {
  if (input.reason !== undefined && input.reason.length > 500)
    return yield* ValidationFailed.of("reason", "must be at most 500 characters")
  const loaded = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Transfer.aggregate, input.transferId))
  const state = loaded.state
  if (state._tag === "Initial" || state.details.partnerId !== input.partnerId) return yield* notFound
  let amount: Money.Money
  if (input.amount === undefined) {
    const remaining = state.details.amount.minorUnits - Transfer.heldByRefunds(Transfer.refundsOf(state))
    if (remaining === 0)
      return yield* new RuleViolated({
        code: "NOTHING_TO_REFUND",
        reason: "the transfer is already fully refunded (counting pending refunds)",
      })
    amount = { minorUnits: remaining, currency: state.details.amount.currency }
  } else {
    const converted = Money.fromDecimal(input.amount.value, input.amount.currencyCode)
    if (converted._tag === "Failure")
      return yield* ValidationFailed.of("amount.value", Money.describeProblem(converted.failure))
    amount = converted.success
  }
  // A refund moves money back on the rail: in a currency it moves (RailCapabilities.ts).
  yield* RailRules.checkCurrency(amount.currency)
  const ids = yield* IdGenerator
  const refundId = (yield* ids.next) as RefundId
  const handled = yield* CommandHandler.handleNow(Transfer.aggregate, input.transferId, {
    _tag: "RefundTransfer",
    transferId: state.details.transferId,
    refundId,
    amount,
  })
  const summary = Transfer.summary(handled.state)
  return {
    refundId,
    status: "Pending" as const,
    amount,
    refundedAmount: summary?.refundedAmount ?? amount,
    isRefunded: summary?.isRefunded ?? false,
  }
})

// ---------------------------------------------------------------------------
// Report

export interface ReportQuery {
  readonly partnerId: PartnerId
  /** Inclusive UTC calendar dates of the transfers' `date` (initiation). */
  readonly from: CalendarDate
  readonly to: CalendarDate
  readonly companyId?: string | undefined
  readonly limit: number
  readonly startingAfter?: string | undefined
}

export interface CurrencyTotal {
  readonly currencyCode: Money.CurrencyCode
  readonly count: number
  readonly totalAmount: Money.Money
  readonly refundedAmount: Money.Money
  readonly netAmount: Money.Money
}

/** Longest report window, in days (inclusive of both ends). */
export const maxReportDays = 366

/**
 * The settled transfers of the partner initiated between `from` and `to`
 * (inclusive), optionally of one company: totals per currency over the whole
 * window, and one page of items (newest first, cursor `startingAfter`).
 */
export const report = Traced.fn("Transfers.report")(function* (query: ReportQuery) {
  if (query.from > query.to) return yield* ValidationFailed.of("from", "must not be after to")
  const days = (Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 + 1
  if (days > maxReportDays) return yield* ValidationFailed.of("to", `the window must be at most ${maxReportDays} days`)
  const store = yield* ReadModelStore
  const base = {
    partnerId: query.partnerId,
    keys: { status: "Settled", ...(query.companyId === undefined ? {} : { companyId: query.companyId }) },
    sortKeyFrom: `${query.from}T00:00:00.000Z`,
    sortKeyTo: `${query.to}T23:59:59.999Z`,
  }
  const totals = new Map<Money.CurrencyCode, { count: number; total: number; refunded: number }>()
  let cursor: string | undefined
  while (true) {
    const page = yield* store.find(TransfersProjection.collection, {
      ...base,
      limit: 500,
      order: "asc",
      ...(cursor === undefined ? {} : { startingAfter: cursor }),
    })
    for (const item of page.items) {
      const doc = decodeDocument(TransfersProjection.projection, item)
      const entry = totals.get(doc.amount.currency) ?? { count: 0, total: 0, refunded: 0 }
      entry.count += 1
      entry.total += doc.amount.minorUnits
      entry.refunded += doc.refundedAmount.minorUnits
      totals.set(doc.amount.currency, entry)
    }
    if (!page.hasMore || page.items.length === 0) break
    cursor = page.items[page.items.length - 1]!.id
  }
  const items = yield* store.find(TransfersProjection.collection, {
    ...base,
    limit: query.limit,
    order: "desc",
    ...(query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter }),
  })
  const currencyTotals: Array<CurrencyTotal> = inCurrencyOrder(totals).map(([currency, entry]) => ({
    currencyCode: currency,
    count: entry.count,
    totalAmount: Money.make(entry.total, currency),
    refundedAmount: Money.make(entry.refunded, currency),
    netAmount: Money.make(entry.total - entry.refunded, currency),
  }))
  return {
    from: query.from,
    to: query.to,
    currencyTotals,
    items: items.items.map((item) => decodeDocument(TransfersProjection.projection, item)),
    hasMore: items.hasMore,
  }
})

// ---------------------------------------------------------------------------
// Reimbursement

export interface ReimbursementInput {
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  readonly transferId: string
  readonly providerId: ReimbursementProviderId
}

/** A signing URL only used to check, before calling the provider, that the application would be accepted. */
const dryRunUrl = "https://sandbox.partnerpay.dev/sign/dry-run"

/** Records the e-signature provider's envelope on the transfer (its own unit, after the provider answered). */
const recordReimbursement = UseCase.fn("Transfers.recordReimbursement")(function* (
  transferId: string,
  command: Transfer.ApplyForReimbursement,
) {
  return yield* CommandHandler.handle(Transfer.aggregate, transferId, command)
})

/**
 * The payer applies to a provider for reimbursement of a settled transfer they
 * paid: the e-signature provider creates the claim document and the signer's
 * URL, recorded on the transfer. A repeat with the same provider returns the
 * first URL without a new envelope.
 */
export const createReimbursement = Traced.fn("Transfers.createReimbursement")(function* (input: ReimbursementInput) {
  yield* get({ _tag: "Customer", partnerId: input.partnerId, registrationId: input.registrationId }, input.transferId)
  const loaded = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Transfer.aggregate, input.transferId))
  const state = loaded.state
  if (state._tag === "Initial") return yield* notFound
  const at = yield* DateTime.now
  const transferId = state.details.transferId
  const command = (signingUrl: string, envelopeId?: string): Transfer.ApplyForReimbursement => ({
    _tag: "ApplyForReimbursement",
    transferId,
    providerId: input.providerId,
    signingUrl,
    ...(envelopeId === undefined ? {} : { envelopeId }),
    at,
  })
  const dryRun = Transfer.aggregate.decide(command(dryRunUrl), state)
  if (dryRun._tag === "Failure") return yield* Effect.fail(dryRun.failure)
  if (dryRun.success.length === 0 && state._tag === "Settled" && state.reimbursement._tag !== "NotApplied")
    return { signingUrl: state.reimbursement.signingUrl }
  const customer = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, input.registrationId))
  const personal = Customer.personalData(customer.state)
  const signing = yield* ESignature
  const envelope = yield* signing
    .createReimbursementEnvelope({
      transferId,
      providerId: input.providerId,
      signer: {
        registrationId: input.registrationId,
        name: personal === null ? state.details.senderName : `${personal.firstName} ${personal.lastName}`,
        emailAddress: personal?.emailAddress ?? "",
      },
    })
    .pipe(
      Effect.catchTags({
        ESignatureRefused: (error) =>
          Effect.fail(new RuleViolated({ code: "ESIGNATURE_REFUSED", reason: error.reason })),
        ProviderUnavailable: (error) => Effect.fail(new EventStoreUnavailable({ reason: error.message, cause: error })),
        FeatureNotAvailable: (error) => Effect.fail(notAvailable(error)),
      }),
    )
  const handled = yield* recordReimbursement(input.transferId, command(envelope.signingUrl, envelope.envelopeId))
  const reimbursement = handled.state._tag === "Settled" ? handled.state.reimbursement : undefined
  return {
    signingUrl:
      reimbursement !== undefined && reimbursement._tag !== "NotApplied"
        ? reimbursement.signingUrl
        : envelope.signingUrl,
  }
})

/** Records an envelope's status on its transfer (a `Completed` one completes the reimbursement): its own unit. */
export const recordEnvelopeStatus = UseCase.fn("Transfers.recordEnvelopeStatus")(function* (
  transferId: TransferId,
  status: EnvelopeStatus,
) {
  const command = Transfer.fromEnvelopeStatus(transferId, status, yield* DateTime.now)
  if (command === undefined) return { reimbursed: false }
  const handled = yield* CommandHandler.handle(Transfer.aggregate, transferId, command)
  return { reimbursed: handled.state._tag === "Settled" && handled.state.reimbursement._tag === "Reimbursed" }
})

/**
 * Asks the e-signature provider where the reimbursement envelope of a transfer is and records it
 * (`recordEnvelopeStatus`, after the provider answered): once the payer signed (Completed), the
 * transfer is reimbursed (`isReimbursed: true`). A transfer not waiting on an envelope: nothing
 * asked, `{ reimbursed: false }`.
 */
export const checkReimbursement = Traced.fn("Transfers.checkReimbursement")(function* (transferId: TransferId) {
  const loaded = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Transfer.aggregate, transferId))
  const envelope = Transfer.pendingEnvelopeOf(loaded.state)
  if (envelope === undefined) return { reimbursed: false }
  const signing = yield* ESignature
  const { status } = yield* signing
    .envelopeStatus({ envelopeId: envelope.envelopeId, transferId, sentAt: envelope.sentAt })
    .pipe(
      Effect.catchTag("ProviderUnavailable", (error) =>
        Effect.fail(new EventStoreUnavailable({ reason: error.message, cause: error })),
      ),
    )
  return yield* recordEnvelopeStatus(transferId, status)
})

/** The sandbox e-signature provider's base signing address. */
export const sandboxSigningBase = "https://sandbox.partnerpay.dev/sign/"

/**
 * A deterministic sandbox ESignature provider: the envelope id is built from
 * the transfer and provider ids, and the signing URL is
 * `https://sandbox.partnerpay.dev/sign/<envelopeId>`; the sandbox payer signs
 * `completeAfterMillis` after the envelope was sent (on the Effect clock: the
 * partner's sandbox clock in the app), so its status is Sent until then and
 * Completed after. No I/O, no state.
 */
export const eSignatureSandboxWith = (options: { readonly completeAfterMillis: number }): Layer.Layer<ESignature> =>
  Layer.succeed(
    ESignature,
    ESignature.of({
      createReimbursementEnvelope: (request) => {
        const envelopeId = `rb-${request.transferId}-${request.providerId}`
        return Effect.succeed({ envelopeId, signingUrl: `${sandboxSigningBase}${envelopeId}` })
      },
      envelopeStatus: (request) =>
        Effect.map(DateTime.now, (now) => ({
          status:
            DateTime.toEpochMillis(now) - DateTime.toEpochMillis(request.sentAt) >= options.completeAfterMillis
              ? ("Completed" as const)
              : ("Sent" as const),
        })),
    }),
  )

/** The sandbox e-signature provider whose payer signs at once (Completed at the first status check). */
export const eSignatureSandbox: Layer.Layer<ESignature> = eSignatureSandboxWith({ completeAfterMillis: 0 })
