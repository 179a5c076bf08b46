/**
 * Use cases of recurring payment plans (spec 2.16, changelog v0.4.1):
 * create a plan with its payer consent, read it, activate, pause, resume and
 * cancel it (the partner's operations), and the scheduler's two entry points,
 * `duePlans(today)` and `collectDue(paymentPlanId)`, which initiates the
 * instalment's Transfer with the plan's event.
 *
 * Tenancy: a plan, company or payer (customer) of another partner is `NotFound`, exactly like a
 * missing one. Business rules stay in the PaymentPlan and Consent aggregates;
 * this module only orchestrates (one unit of work per operation).
 */

import { DateTime, Effect, Option, Schema } from "effect"
import { Companies } from "../companies/index.ts"
import { Customer } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import { NotFound, RuleViolated, ValidationFailed } from "../kernel/DomainError.ts"
import * as Ids from "../kernel/Ids.ts"
import type * as Metadata from "../kernel/Metadata.ts"
import type * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { Payments, PlatformFees, RailRules, Transfer } from "../payments/index.ts"
import * as Consent from "./Consent.ts"
import * as PaymentPlan from "./PaymentPlan.ts"
import type { Frequency } from "./PaymentPlanSchedule.ts"
import {
  type DuePlanDocument,
  duePlans as duePlansProjection,
  type PaymentPlanDocument,
  paymentPlans,
  schedulerTenant,
} from "./PaymentPlansProjection.ts"

// ---------------------------------------------------------------------------
// Companies (read model `companies`)

/** A company's public contact data, as a consent's recipient company shows it. */
export const RecipientCompany = Schema.Struct({
  name: Schema.String,
  contactNumber: Schema.String,
  emailAddress: Schema.String,
  websiteUrl: Schema.optionalKey(Schema.String),
  address: Schema.Struct({
    streetNumberAndName: Schema.String,
    apartmentNumber: Schema.optionalKey(Schema.String),
    city: Schema.String,
    zipCode: Schema.String,
    state: Schema.String,
  }),
})
export type RecipientCompany = typeof RecipientCompany.Type

/** The recipient company of a consent, from the company document (its current contact data). */
export const recipientCompanyOf = (company: Companies.CompanyDocument): RecipientCompany => ({
  name: company.name,
  contactNumber: company.contactNumber,
  emailAddress: company.emailAddress,
  ...(company.websiteUrl !== undefined ? { websiteUrl: company.websiteUrl } : {}),
  address: {
    streetNumberAndName: company.streetNumberAndName,
    ...(company.apartmentNumber !== undefined ? { apartmentNumber: company.apartmentNumber } : {}),
    city: company.city,
    zipCode: company.zipCode,
    state: company.state,
  },
})

/** How a partner names its company: by id or by its own reference id. */
export type CompanySelector = Companies.CompanyLookup

// ---------------------------------------------------------------------------
// Create

export interface CreateInput {
  readonly partnerId: Ids.PartnerId
  readonly companyId?: string | undefined
  readonly companyReferenceId?: string | undefined
  readonly payerRegistrationId: Ids.RegistrationId
  readonly amount: Money.Money
  readonly frequency: Frequency
  readonly recurrenceInterval: number
  readonly startDate: CalendarDate.CalendarDate
  readonly numberOfPayments?: number | undefined
  readonly endDate?: CalendarDate.CalendarDate | undefined
  readonly description?: string | undefined
  readonly metadata?: Metadata.Metadata | undefined
}

export interface Created {
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly consentId: Ids.ConsentId
  readonly status: PaymentPlan.PlanStatus
}

const companySelector = (input: CreateInput): Effect.Effect<CompanySelector, ValidationFailed> => {
  if (input.companyId !== undefined && input.companyReferenceId !== undefined) {
    return Effect.fail(
      ValidationFailed.of("companyReferenceId", "give either companyId or companyReferenceId, not both"),
    )
  }
  if (input.companyId !== undefined) return Effect.succeed({ companyId: input.companyId })
  if (input.companyReferenceId !== undefined) return Effect.succeed({ companyReferenceId: input.companyReferenceId })
  return Effect.fail(
    new ValidationFailed({
      issues: [
        { field: "companyId", message: "either companyId or companyReferenceId is required" },
        { field: "companyReferenceId", message: "either companyId or companyReferenceId is required" },
      ],
    }),
  )
}

/**
 * Creates a Draft plan and its Pending consent, in one unit of work. The plan
 * is recorded first (its validation names every bad term), then the consent,
 * with the same ids.
 */
export const create = UseCase.fn("PaymentPlans.create")(function* (input: CreateInput) {
  const selector = yield* companySelector(input)
  // The rail moves only its currencies (RailCapabilities.ts).
  yield* RailRules.checkCurrency(input.amount.currency)
  const company =
    "companyId" in selector
      ? yield* Companies.get(input.partnerId, selector.companyId)
      : yield* Companies.findByReference(input.partnerId, selector.companyReferenceId)
  // The payer is one of the partner's customers; another partner's customer is NotFound exactly like
  // an unknown registration id (no existence oracle).
  const payer = yield* CommandHandler.load(Customer.aggregate, input.payerRegistrationId)
  if (!Customer.belongsTo(payer.state, input.partnerId)) return yield* new NotFound({ entity: "Customer" })
  const ids = yield* IdGenerator
  const paymentPlanId = Ids.PaymentPlanId.make(yield* ids.next)
  const consentId = Ids.ConsentId.make(yield* ids.next)
  const companyId = company.companyId
  const at = yield* DateTime.now
  const metadata = { partnerId: input.partnerId }
  const plan = yield* CommandHandler.handle(
    PaymentPlan.aggregate,
    paymentPlanId,
    {
      _tag: "CreatePaymentPlan",
      paymentPlanId,
      consentId,
      partnerId: input.partnerId,
      companyId,
      companyStatus: company.status,
      payerRegistrationId: input.payerRegistrationId,
      amount: input.amount,
      frequency: input.frequency,
      recurrenceInterval: input.recurrenceInterval,
      startDate: input.startDate,
      ...(input.numberOfPayments !== undefined ? { numberOfPayments: input.numberOfPayments } : {}),
      ...(input.endDate !== undefined ? { endDate: input.endDate } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      at,
    },
    { metadata, expectNew: true },
  )
  yield* CommandHandler.handle(
    Consent.aggregate,
    consentId,
    {
      _tag: "RequestConsent",
      consentId,
      paymentPlanId,
      partnerId: input.partnerId,
      companyId,
      payerRegistrationId: input.payerRegistrationId,
      amount: input.amount,
      frequency: input.frequency,
      at,
    },
    { metadata, expectNew: true },
  )
  const created: Created = {
    paymentPlanId,
    consentId,
    status: PaymentPlan.statusOf(plan.state) ?? "Draft",
  }
  return created
})

// ---------------------------------------------------------------------------
// Read

/** The partner's plan as the read model has it; another partner's plan is NotFound. */
export const get = Traced.fn("PaymentPlans.get")(function* (partnerId: Ids.PartnerId, paymentPlanId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(paymentPlans.collection, paymentPlanId)
  if (Option.isNone(stored) || stored.value.index.partnerId !== partnerId) {
    return yield* new NotFound({ entity: "PaymentPlan" })
  }
  return decodeDocument(paymentPlans, stored.value)
})

// ---------------------------------------------------------------------------
// The partner's moves

type Move = "ActivatePaymentPlan" | "PausePaymentPlan" | "ResumePaymentPlan" | "CancelPaymentPlan"

const move = (tag: Move) =>
  UseCase.fn(`PaymentPlans.${tag}`)(function* (partnerId: Ids.PartnerId, paymentPlanId: string) {
    const { state } = yield* CommandHandler.load(PaymentPlan.aggregate, paymentPlanId)
    if (state._tag === "Initial" || state.terms.partnerId !== partnerId) {
      return yield* new NotFound({ entity: "PaymentPlan" })
    }
    const at = yield* DateTime.now
    const id = state.terms.paymentPlanId
    yield* CommandHandler.handle(
      PaymentPlan.aggregate,
      id,
      { _tag: tag, paymentPlanId: id, at },
      { metadata: { partnerId } },
    )
    return yield* get(partnerId, id)
  })

/**
 * Replaces the partner's metadata of its plan (any status); answers the metadata now held.
 * Another partner's plan, or an unknown one, is NotFound.
 */
export const setMetadata = UseCase.fn("PaymentPlans.setMetadata")(function* (
  partnerId: Ids.PartnerId,
  paymentPlanId: string,
  metadata: Metadata.Metadata,
) {
  const at = yield* DateTime.now
  yield* CommandHandler.handle(
    PaymentPlan.aggregate,
    paymentPlanId,
    { _tag: "SetPaymentPlanMetadata", paymentPlanId: paymentPlanId as Ids.PaymentPlanId, partnerId, metadata, at },
    { metadata: { partnerId } },
  )
  return { metadata }
})

/** Starts collecting a Draft plan; its consent must be Accepted (RuleViolated CONSENT_NOT_ACCEPTED). */
export const activate = move("ActivatePaymentPlan")
/** Suspends collection of an Active plan. */
export const pause = move("PausePaymentPlan")
/** Resumes a Paused plan (due dates passed while paused are skipped). */
export const resume = move("ResumePaymentPlan")
/** Cancels a Draft, Active or Paused plan for good. */
export const cancel = move("CancelPaymentPlan")

// ---------------------------------------------------------------------------
// Scheduler

/** A plan with an instalment to collect. */
export interface DuePlan {
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly partnerId: Ids.PartnerId
  readonly nextDueDate: CalendarDate.CalendarDate
}

/**
 * Plans of every partner that are collecting (Active, consent Accepted) with
 * a next due date on or before `today`, earliest first, at most `limit`.
 */
export const duePlans = Traced.fn("PaymentPlans.duePlans")(function* (today: CalendarDate.CalendarDate, limit = 100) {
  const store = yield* ReadModelStore
  const page = yield* store.find(duePlansProjection.collection, {
    partnerId: schedulerTenant,
    keys: { collecting: "true" },
    sortKeyTo: today,
    limit,
    order: "asc",
  })
  return page.items.map((item): DuePlan => {
    const doc: DuePlanDocument = decodeDocument(duePlansProjection, item)
    return { paymentPlanId: doc.paymentPlanId, partnerId: doc.partnerId, nextDueDate: doc.nextDueDate }
  })
})

/** One instalment the scheduler recorded, with the transfer collecting it. */
export interface CollectedInstalment {
  readonly paymentPlanId: Ids.PaymentPlanId
  readonly partnerId: Ids.PartnerId
  readonly dueDate: CalendarDate.CalendarDate
  readonly instalmentNumber: number
  readonly transferId: Ids.TransferId
  readonly plan: PaymentPlanDocument
}

/** The bank's return code of an instalment whose account was unlinked after the consent named it. */
export const accountClosedReturnCode = "R02"

/**
 * The transfer collecting the plan's next instalment: from the bank account
 * the payer named when accepting the consent, to the plan's company, for the
 * plan's amount. `linked` is false when the payer unlinked that account since.
 */
const instalmentTransfer = Traced.fn("PaymentPlans.instalmentTransfer")(function* (
  terms: PaymentPlan.PlanTerms,
  instalmentNumber: number,
  transferId: Ids.TransferId,
  at: DateTime.Utc,
) {
  const consent = yield* CommandHandler.load(Consent.aggregate, terms.consentId)
  const customer = yield* CommandHandler.load(Customer.aggregate, terms.payerRegistrationId)
  const bankAccountId = consent.state._tag === "Accepted" ? consent.state.bankAccountId : undefined
  const account =
    customer.state._tag === "Registered"
      ? customer.state.bankAccounts.find((candidate) => candidate.bankAccountId === bankAccountId)
      : undefined
  if (customer.state._tag !== "Registered" || account === undefined) {
    // The plan's consent is Accepted (the plan checked it), so the payer and the account exist.
    return yield* new RuleViolated({
      code: "BANK_ACCOUNT_NOT_LINKED",
      reason: "the bank account named by the consent is unknown",
    })
  }
  const company = yield* Companies.get(terms.partnerId, terms.companyId)
  // The partner's ACH fee schedule and the provider's terms in force now are recorded on the transfer.
  const fees = yield* PlatformFees.appliedFor(terms.partnerId, "AchDebit", terms.amount)
  const initiate: Transfer.InitiateTransfer = {
    _tag: "InitiateTransfer",
    transferId,
    paymentPlanId: terms.paymentPlanId,
    instalmentNumber,
    ...fees,
    payerRegistrationId: terms.payerRegistrationId,
    bankAccountId: account.bankAccountId,
    partnerId: terms.partnerId,
    companyId: terms.companyId,
    parties: { companyStatus: company.status, payerKyc: customer.state.kycStatus },
    amount: terms.amount,
    ...Payments.transferPartiesOf(
      customer.state,
      { name: account.name, accountNumberMasked: Transfer.maskAccountNumber(account.mask) },
      company,
      company.payoutAccount,
    ),
    attachments: [],
    description: terms.description ?? `Instalment ${instalmentNumber} of payment plan ${terms.paymentPlanId}`,
    at,
  }
  // An account an account-level return made unusable fails the instalment like an unlinked one.
  const usable = Customer.unusableReturnCode(customer.state, account.bankAccountId) === undefined
  return { initiate, linked: account.linked && usable }
})

/**
 * Collects the plan's next instalment if it is due by `today` (default: the
 * clock's UTC date) and the plan is collecting; `Option.none()` when there is
 * nothing to collect. In one unit of work the plan records the instalment and
 * its Transfer is initiated (Pending; the bank settles or fails it later, and
 * `InstalmentOutcomePolicy` brings the outcome back to the plan). A consent
 * revoked concurrently makes the plan's append conflict, so the unit runs
 * again, finds the plan cancelled and creates no transfer.
 */
export const collectDue = UseCase.fn("PaymentPlans.collectDue")(function* (
  paymentPlanId: string,
  today?: CalendarDate.CalendarDate,
) {
  const at = yield* DateTime.now
  const day = today ?? PaymentPlan.today(at)
  const { state } = yield* CommandHandler.load(PaymentPlan.aggregate, paymentPlanId)
  if (state._tag !== "Active" || state.consent !== "Accepted") return Option.none<CollectedInstalment>()
  const dueDate = PaymentPlan.nextDueDate(state)
  if (dueDate === undefined || CalendarDate.compare(dueDate, day) > 0) return Option.none<CollectedInstalment>()
  const ids = yield* IdGenerator
  const transferId = Ids.TransferId.make(yield* ids.next)
  const id = state.terms.paymentPlanId
  const partnerId = state.terms.partnerId
  const instalmentNumber = state.nextIndex + 1
  const { initiate, linked } = yield* instalmentTransfer(state.terms, instalmentNumber, transferId, at)
  const options = { metadata: { partnerId } }
  yield* CommandHandler.handle(
    PaymentPlan.aggregate,
    id,
    { _tag: "CollectInstalment", paymentPlanId: id, dueDate, transferId, at },
    options,
  )
  yield* CommandHandler.handle(Transfer.aggregate, transferId, initiate, { ...options, expectNew: true })
  if (!linked) {
    // The payer unlinked the account since accepting: the bank returns the debit at once.
    yield* CommandHandler.handle(
      Transfer.aggregate,
      transferId,
      {
        _tag: "FailTransfer",
        transferId,
        returnCode: accountClosedReturnCode,
        reason: "the bank account named by the consent is no longer linked",
        at,
      },
      options,
    )
  }
  const plan = yield* get(partnerId, id)
  return Option.some<CollectedInstalment>({
    paymentPlanId: id,
    partnerId,
    dueDate,
    instalmentNumber,
    transferId,
    plan,
  })
})
