/**
 * Use cases of the payer's consents (spec 3.2, changelog v0.4.1-v0.4.4): the
 * payer (a customer, by registration id) lists its Pending and Accepted
 * consents, reads one, accepts it with a bank account, or declines it (a
 * Pending consent becomes Declined, an Accepted one Revoked).
 *
 * The consent policy is applied in the same unit of work: acceptance tells
 * the plan (RecordConsentAccepted); a decline or revocation withdraws it
 * (RecordConsentWithdrawn), which cancels the plan.
 *
 * Tenancy: a consent of another payer or another partner is `NotFound`.
 * The recipient company is the company's current contact data, joined from the
 * `companies` read model when the consent is read.
 */

import { DateTime, Effect, Option, Schema } from "effect"
import { CompaniesProjection } from "../companies/index.ts"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import type { EventDecodeFailed, EventStore, EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { decodeDocument, ReadModelStore, type StoredDocument } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { NotFound, type RuleViolated } from "../kernel/DomainError.ts"
import * as Ids from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { AuthorizationEvidence, RailRules } from "../payments/index.ts"
import * as Consent from "./Consent.ts"
import { type ConsentDocument, consents } from "./ConsentsProjection.ts"
import { Frequency } from "./PaymentPlanSchedule.ts"
import { RecipientCompany, recipientCompanyOf } from "./PaymentPlans.ts"
import { paymentPlans } from "./PaymentPlansProjection.ts"

/** The recipient company of a consent (changelog v0.4.2). */
export type { RecipientCompany } from "./PaymentPlans.ts"

/**
 * A consent as the payer sees it: the one declaration of the consent view.
 * The HTTP response reuses it, replacing only the wire form of `amount`.
 */
export const ConsentView = Schema.Struct({
  consentId: Ids.ConsentId,
  paymentPlanId: Ids.PaymentPlanId,
  status: Consent.ConsentStatus,
  amount: Money.Money,
  frequency: Frequency,
  recurrenceInterval: Schema.Int,
  startDate: CalendarDate.CalendarDate,
  recipientCompany: RecipientCompany,
  createdAt: Schema.DateTimeUtcFromString,
  acceptedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  declinedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  revokedAt: Schema.optionalKey(Schema.DateTimeUtcFromString),
  authorization: Schema.optionalKey(
    AuthorizationEvidence.AuthorizationEvidence.annotate({
      description: "From acceptance on: the evidence of the payer's authorization (docs/api/authorization-evidence.md)",
    }),
  ),
})
export type ConsentView = typeof ConsentView.Type

/** Who asks: the payer, a customer of one partner. */
export interface Payer {
  readonly partnerId: Ids.PartnerId
  readonly registrationId: Ids.RegistrationId
}

const unknownCompany: RecipientCompany = {
  name: "",
  contactNumber: "",
  emailAddress: "",
  address: { streetNumberAndName: "", city: "", zipCode: "", state: "" },
}

const recipientCompany = Traced.fn("Consents.recipientCompany")(function* (doc: ConsentDocument) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(CompaniesProjection.collection, doc.companyId)
  // A consent's company always exists (the plan was created for it); the fallback keeps reads total.
  return Option.isSome(stored)
    ? recipientCompanyOf(decodeDocument(CompaniesProjection.projection, stored.value))
    : unknownCompany
})

/** The plan's schedule terms, when the consent document lacks them (never after a complete creation). */
const scheduleOf = Traced.fn("Consents.scheduleOf")(function* (doc: ConsentDocument) {
  if (doc.recurrenceInterval !== undefined && doc.startDate !== undefined) {
    return { recurrenceInterval: doc.recurrenceInterval, startDate: doc.startDate }
  }
  const store = yield* ReadModelStore
  const stored = yield* store.get(paymentPlans.collection, doc.paymentPlanId)
  if (Option.isNone(stored)) return yield* new NotFound({ entity: "Consent" })
  const plan = decodeDocument(paymentPlans, stored.value)
  return { recurrenceInterval: plan.recurrenceInterval, startDate: plan.startDate }
})

const toView = Traced.fn("Consents.toView")(function* (doc: ConsentDocument) {
  const view: ConsentView = {
    consentId: doc.consentId,
    paymentPlanId: doc.paymentPlanId,
    status: doc.status,
    amount: doc.amount,
    frequency: doc.frequency,
    ...(yield* scheduleOf(doc)),
    recipientCompany: yield* recipientCompany(doc),
    createdAt: doc.createdAt,
    ...(doc.acceptedAt !== undefined ? { acceptedAt: doc.acceptedAt } : {}),
    ...(doc.declinedAt !== undefined ? { declinedAt: doc.declinedAt } : {}),
    ...(doc.revokedAt !== undefined ? { revokedAt: doc.revokedAt } : {}),
    ...(doc.authorization !== undefined ? { authorization: doc.authorization } : {}),
  }
  return view
})

const isPayers = (payer: Payer, stored: StoredDocument, doc: ConsentDocument): boolean =>
  stored.index.partnerId === payer.partnerId && doc.payerRegistrationId === payer.registrationId

/** The payer's consent document; anyone else's (or a missing one) is NotFound. */
const findOwn = Traced.fn("Consents.findOwn")(function* (payer: Payer, consentId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(consents.collection, consentId)
  if (Option.isSome(stored)) {
    const doc = decodeDocument(consents, stored.value)
    if (isPayers(payer, stored.value, doc)) return doc
  }
  return yield* new NotFound({ entity: "Consent" })
})

/** One consent of the payer, whatever its status. */
export const get = Traced.fn("Consents.get")(function* (payer: Payer, consentId: string) {
  return yield* toView(yield* findOwn(payer, consentId))
})

export interface ListInput {
  readonly limit: number
  readonly startingAfter?: string | undefined
}

/** The payer's Pending and Accepted consents, newest first, one page at a time. */
export const list = Traced.fn("Consents.list")(function* (payer: Payer, input: ListInput) {
  const store = yield* ReadModelStore
  const page = yield* store.find(consents.collection, {
    partnerId: payer.partnerId,
    keys: { payerRegistrationId: payer.registrationId, listable: "true" },
    limit: input.limit,
    ...(input.startingAfter !== undefined ? { startingAfter: input.startingAfter } : {}),
  })
  const data = yield* Effect.forEach(page.items, (item) => toView(decodeDocument(consents, item)))
  return { data, hasMore: page.hasMore }
})

/** The payer's answer: the consent must be the payer's and `check` pass; the consent as it is afterwards. */
const answer = Traced.fn("Consents.answer")(function* (
  payer: Payer,
  command: (at: DateTime.Utc) => Consent.Command,
  consentId: string,
  check: Effect.Effect<
    void,
    NotFound | RuleViolated | EventStoreUnavailable | EventDecodeFailed,
    EventStore
  > = Effect.void,
) {
  yield* findOwn(payer, consentId)
  yield* check
  const at = yield* DateTime.now
  yield* CommandHandler.handle(Consent.aggregate, consentId, command(at), { metadata: { partnerId: payer.partnerId } })
  return yield* get(payer, consentId)
})

/** The payer's KYC status, for who may consent (`WhoMayCollect`). */
const payerKycOf = Traced.fn("Consents.payerKycOf")(function* (payer: Payer) {
  const customer = yield* CommandHandler.load(Customer.aggregate, payer.registrationId)
  return Customer.belongsTo(customer.state, payer.partnerId) ? Customer.kycStatus(customer.state) : "NotStarted"
})

/**
 * The payer's linked bank account, else NotFound("BankAccount") like any unknown account; an account
 * an account-level return made unusable is BANK_ACCOUNT_UNUSABLE.
 */
const requireLinkedAccount = Traced.fn("Consents.requireLinkedAccount")(function* (
  payer: Payer,
  bankAccountId: Ids.BankAccountId,
) {
  const customer = yield* CommandHandler.load(Customer.aggregate, payer.registrationId)
  if (!Customer.belongsTo(customer.state, payer.partnerId) || !Customer.hasBankAccount(customer.state, bankAccountId))
    return yield* new NotFound({ entity: "BankAccount" })
  const unusable = Customer.bankAccountRefusal(customer.state, bankAccountId)
  if (unusable !== undefined) return yield* unusable
})

/**
 * The payer accepts, naming one of their linked bank accounts to debit (any
 * other account is NotFound); the plan learns it in the same unit of work. A
 * payer whose KYC is not Verified cannot consent (CUSTOMER_NOT_VERIFIED).
 */
export const accept = UseCase.fn("Consents.accept")(function* (
  payer: Payer,
  consentId: Ids.ConsentId,
  bankAccountId: Ids.BankAccountId,
  client?: AuthorizationEvidence.ClientContext,
) {
  const payerKyc = yield* payerKycOf(payer)
  // The instalment's amount is known: a payer it would take past the rail's rolling limit cannot consent.
  const consent = yield* findOwn(payer, consentId)
  if (consent.status === "Pending")
    yield* RailRules.checkPayerLimit(payer.partnerId, payer.registrationId, consent.amount)
  return yield* answer(
    payer,
    (at) => ({
      _tag: "AcceptConsent",
      consentId,
      registrationId: payer.registrationId,
      payerKyc,
      bankAccountId,
      ...(client === undefined ? {} : { client }),
      at,
    }),
    consentId,
    requireLinkedAccount(payer, bankAccountId),
  )
})

/** The payer declines: Pending -> Declined, Accepted -> Revoked; either way the plan is cancelled. */
export const decline = UseCase.fn("Consents.decline")(function* (payer: Payer, consentId: Ids.ConsentId) {
  return yield* answer(
    payer,
    (at) => ({ _tag: "DeclineConsent", consentId, registrationId: payer.registrationId, at }),
    consentId,
  )
})
