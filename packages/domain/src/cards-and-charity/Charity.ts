/**
 * Use case of POST /Transaction/Charity/CreateAnonymous: a donation to a
 * charity (one of the partner's companies). The fee rule is the
 * CharityTransaction aggregate's; the money moves through a Transfer of what
 * the donor is charged, from the donor's account to the charity, started in
 * the same unit of work (so settlement, failures and returns apply to it as to
 * any transfer, and its initiation applies who may collect: a Verified
 * charity, a Verified donor).
 *
 * The donor: the calling customer (customer token), else the partner's
 * customer whose identity verification is `verificationId` (the `referenceId`
 * of `GET /Verification/CheckVerification`); anyone else, or nobody, is
 * NotFound ("Customer"), like another partner's customer. Their account: the
 * one they designated (`PUT /Account/Default`) if still linked, else their
 * first linked account; none is RuleViolated BANK_ACCOUNT_NOT_LINKED.
 *
 * Each call records a new donation (there is no idempotency key in the
 * interface: an `Idempotency-Key` header makes a retry safe);
 * `verificationId` is recorded as given.
 *
 * A recurring gift is collected again monthly (`RecurringGift.ts`) by the
 * recurring-charity scheduler: `dueGifts(today)` finds the gifts due (read
 * model `charity_gifts_due`), `collectDue(id)` records the collection with a
 * new Transfer in one unit (or the gift's stop, decided by the aggregate:
 * account unlinked, who may collect). `cancelRecurring` stops a gift (the
 * partner, or the donor with a customer token); `gift` reads one.
 */

import { DateTime, Effect, Option, Struct } from "effect"
import { Company } from "../companies/index.ts"
import { Customer, CustomersProjection } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as Amounts from "../kernel/Amounts.ts"
import type * as CalendarDate from "../kernel/CalendarDate.ts"
import { NotFound, RuleViolated } from "../kernel/DomainError.ts"
import type { CompanyId, PartnerId, RegistrationId, TransferId, VerificationId } from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { type AuthorizationEvidence, Payments, RailRules, Transfer } from "../payments/index.ts"
import * as CharityGiftsDueProjection from "./CharityGiftsDueProjection.ts"
import * as CharityTransaction from "./CharityTransaction.ts"
import * as RecurringGift from "./RecurringGift.ts"

export interface CreateAnonymousInput {
  readonly partnerId: PartnerId
  /** The calling customer (a customer token), the donor; absent for a partner's call. */
  readonly donor?: RegistrationId | undefined
  readonly verificationId: VerificationId
  readonly amount: Amounts.WireAmount
  readonly companyId: CompanyId
  readonly isRecurring: boolean
  readonly payerCoversFee: boolean
  /** The request that carried the donor's authorization, recorded as its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext | undefined
}

export interface Created {
  readonly charityTransactionId: CharityTransaction.CharityTransactionId
  readonly amount: Money.Money
  readonly fee: Money.Money
  readonly payerCharged: Money.Money
  readonly charityReceives: Money.Money
  /** The transfer collecting `payerCharged` from the donor's account. */
  readonly transferId: TransferId
}

const donorNotFound = new NotFound({ entity: "Customer" })

/** The donor: the calling customer, else the partner's customer verified under `verificationId`. */
const donorOf = Traced.fn("Charity.donorOf")(function* (input: CreateAnonymousInput) {
  let registrationId = input.donor
  if (registrationId === undefined) {
    const store = yield* ReadModelStore
    const found = yield* store.find(CustomersProjection.collection, {
      partnerId: input.partnerId,
      keys: { kycReferenceId: input.verificationId },
      limit: 1,
    })
    registrationId = found.items[0]?.id as RegistrationId | undefined
  }
  if (registrationId === undefined) return yield* donorNotFound
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, registrationId))
  if (!Customer.belongsTo(state, input.partnerId)) return yield* donorNotFound
  return state as Customer.RegisteredCustomer
})

/** The donor's account: the designated one if still linked, else the first linked one. */
const accountOf = (donor: Customer.RegisteredCustomer) => {
  const linked = Customer.linkedBankAccounts(donor)
  return linked.find((account) => account.bankAccountId === donor.defaultBankAccountId) ?? linked[0]
}

/** What a gift's transfer is made of: the charity, the donor and the account, the amounts. */
interface GiftTransferInput {
  readonly company: Exclude<Company.State, { readonly _tag: "Initial" }>
  readonly donor: Customer.RegisteredCustomer
  readonly account: ReturnType<typeof Customer.linkedBankAccounts>[number]
  readonly transferId: TransferId
  readonly charityTransactionId: CharityTransaction.CharityTransactionId
  readonly payerCharged: Money.Money
  readonly fee: Money.Money
  readonly at: DateTime.Utc
}

/** The transfer collecting a gift (`payerCharged`) from the donor's account to the charity; the platform keeps `fee`. */
const giftTransfer = (input: GiftTransferInput): Transfer.InitiateTransfer => {
  const { company, donor, account } = input
  const profile = company.profile
  return {
    _tag: "InitiateTransfer",
    transferId: input.transferId,
    charityTransactionId: input.charityTransactionId,
    platformFee: input.fee,
    payerRegistrationId: donor.registrationId,
    bankAccountId: account.bankAccountId,
    partnerId: company.partnerId,
    companyId: company.companyId,
    parties: { companyStatus: company._tag, payerKyc: donor.kycStatus },
    amount: input.payerCharged,
    ...Payments.transferPartiesOf(
      donor,
      { name: account.name, accountNumberMasked: Transfer.maskAccountNumber(account.mask) },
      profile,
      company.payoutAccount,
    ),
    attachments: [],
    description: `Donation to ${profile.name}`,
    at: input.at,
  }
}

export const createAnonymous = UseCase.fn("Charity.createAnonymous")(function* (input: CreateAnonymousInput) {
  const amount = yield* Amounts.fromWire("amount", input.amount)
  yield* RailRules.checkCurrency(amount.currency)
  const charity = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, input.companyId))
  if (charity.state._tag === "Initial" || charity.state.partnerId !== input.partnerId)
    return yield* new NotFound({ entity: "Company" })
  const company = charity.state
  const donor = yield* donorOf(input)
  const account = accountOf(donor)
  if (account === undefined)
    return yield* new RuleViolated({
      code: "BANK_ACCOUNT_NOT_LINKED",
      reason: "the donor has no linked bank account to give from",
    })
  const ids = yield* IdGenerator
  const charityTransactionId = (yield* ids.next) as CharityTransaction.CharityTransactionId
  const transferId = (yield* ids.next) as TransferId
  const at = yield* DateTime.now
  const gift: CharityTransaction.CreateAnonymousCharityTransaction = {
    _tag: "CreateAnonymousCharityTransaction",
    charityTransactionId,
    partnerId: input.partnerId,
    verificationId: input.verificationId,
    companyId: input.companyId,
    amount,
    isRecurring: input.isRecurring,
    payerCoversFee: input.payerCoversFee,
    transferId,
    payerRegistrationId: donor.registrationId,
    bankAccountId: account.bankAccountId,
    ...(input.client === undefined ? {} : { client: input.client }),
    at,
  }
  // Decide both first (pure): a gift the transfer would refuse (who may collect) records nothing.
  const decided = CharityTransaction.aggregate.decide(gift, CharityTransaction.initialState)
  if (decided._tag === "Failure") return yield* Effect.fail(decided.failure)
  const created = decided.success[0]
  if (created?._tag !== "AnonymousCharityTransactionCreated")
    return yield* Effect.die("charity transaction not created")
  const initiate = giftTransfer({
    company,
    donor,
    account,
    transferId,
    charityTransactionId,
    payerCharged: created.payerCharged,
    fee: created.fee,
    at,
  })
  const transferDecision = Transfer.aggregate.decide(initiate, Transfer.initialState)
  if (transferDecision._tag === "Failure") return yield* Effect.fail(transferDecision.failure)
  yield* CommandHandler.handle(CharityTransaction.aggregate, charityTransactionId, gift, { expectNew: true })
  yield* CommandHandler.handle(Transfer.aggregate, transferId, initiate, { expectNew: true })
  const answer: Created = {
    charityTransactionId,
    amount: created.amount,
    fee: created.fee,
    payerCharged: created.payerCharged,
    charityReceives: created.charityReceives,
    transferId,
  }
  return answer
})

// ---------------------------------------------------------------------------
// Recurring gifts

/** A recurring gift whose next collection is due (the scheduler's work). */
export interface DueGift {
  readonly charityTransactionId: CharityTransaction.CharityTransactionId
  readonly partnerId: PartnerId
  readonly nextDueDate: CalendarDate.CalendarDate
}

/** Up to `limit` Active recurring gifts due on or before `today` (every partner), earliest first. */
export const dueGifts = Traced.fn("Charity.dueGifts")(function* (today: CalendarDate.CalendarDate, limit = 100) {
  const store = yield* ReadModelStore
  const page = yield* store.find(CharityGiftsDueProjection.collection, {
    partnerId: CharityGiftsDueProjection.schedulerTenant,
    keys: { collecting: "true" },
    sortKeyTo: today,
    limit,
    order: "asc",
  })
  return page.items.map((item): DueGift => {
    const doc = decodeDocument(CharityGiftsDueProjection.projection, item)
    return {
      charityTransactionId: doc.charityTransactionId as CharityTransaction.CharityTransactionId,
      partnerId: doc.partnerId as PartnerId,
      nextDueDate: doc.nextDueDate,
    }
  })
})

/** What the scheduler did with a due gift: collected again (a new transfer) or stopped. */
export type CollectOutcome =
  | {
      readonly _tag: "Collected"
      readonly charityTransactionId: CharityTransaction.CharityTransactionId
      readonly dueDate: CalendarDate.CalendarDate
      readonly collectionNumber: number
      readonly transferId: TransferId
    }
  | {
      readonly _tag: "Stopped"
      readonly charityTransactionId: CharityTransaction.CharityTransactionId
      readonly reason: CharityTransaction.RecurringGiftStopReason
    }

/**
 * Collects a recurring gift again when a due date has come, on the partner's `today`: the gift
 * records the collection and the Transfer of `payerCharged` (the gift's fee kept by the platform)
 * is initiated from the same account, in one unit; or the gift stops (the account was unlinked, the
 * charity or the donor may no longer collect). None when nothing is due (already collected, by
 * another instance a moment before, or not a recurring gift).
 */
export const collectDue = UseCase.fn("Charity.collectDue")(function* (
  charityTransactionId: string,
  today?: CalendarDate.CalendarDate,
) {
  const at = yield* DateTime.now
  const day = today ?? CharityTransaction.dateOf(at)
  const { state } = yield* UseCase.dieOnCorruptEvent(
    CommandHandler.load(CharityTransaction.aggregate, charityTransactionId),
  )
  if (state._tag !== "Created" || state.recurrence?.status !== "Active") return Option.none<CollectOutcome>()
  const recurrence = state.recurrence
  if (RecurringGift.dueDateToCollect(recurrence.startDate, recurrence.lastDueDate, day) === undefined)
    return Option.none<CollectOutcome>()
  // A recurring gift names its donor (`CharityTransaction.recurrenceOf`); its charity exists.
  if (state.payerRegistrationId === undefined) return Option.none<CollectOutcome>()
  const charity = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, state.companyId))
  const donor = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, state.payerRegistrationId))
  if (charity.state._tag === "Initial") return Option.none<CollectOutcome>()
  const company = charity.state
  const account =
    donor.state._tag === "Registered"
      ? Customer.linkedBankAccounts(donor.state).find((linked) => linked.bankAccountId === state.bankAccountId)
      : undefined
  const transferId = (yield* (yield* IdGenerator).next) as TransferId
  const options = { metadata: { partnerId: state.partnerId } }
  const handled = yield* CommandHandler.handle(
    CharityTransaction.aggregate,
    state.charityTransactionId,
    {
      _tag: "CollectRecurringGift",
      charityTransactionId: state.charityTransactionId,
      transferId,
      today: day,
      bankAccountLinked: account !== undefined,
      parties: {
        companyStatus: company._tag,
        payerKyc: donor.state._tag === "Registered" ? donor.state.kycStatus : "NotStarted",
      },
      at,
    },
    options,
  )
  for (const event of handled.events) {
    if (event._tag === "RecurringCharityGiftStopped")
      return Option.some<CollectOutcome>({
        _tag: "Stopped",
        charityTransactionId: state.charityTransactionId,
        reason: event.reason,
      })
    if (event._tag === "RecurringCharityGiftCollected" && account !== undefined && donor.state._tag === "Registered") {
      const initiate = giftTransfer({
        company,
        donor: donor.state,
        account,
        transferId,
        charityTransactionId: state.charityTransactionId,
        payerCharged: state.payerCharged,
        fee: state.fee,
        at,
      })
      yield* CommandHandler.handle(Transfer.aggregate, transferId, initiate, { ...options, expectNew: true })
      return Option.some<CollectOutcome>({
        _tag: "Collected",
        charityTransactionId: state.charityTransactionId,
        dueDate: event.dueDate,
        collectionNumber: event.collectionNumber,
        transferId,
      })
    }
  }
  return Option.none<CollectOutcome>()
})

/** What a gift's state holds that its view leaves out: who asked and how, not what the gift is. */
const notInView = ["_tag", "partnerId", "verificationId", "payerCoversFee", "payerRegistrationId"] as const

type Gift = Extract<CharityTransaction.State, { readonly _tag: "Created" }>

/**
 * A gift as `GET /Transaction/Charity/{id}` and its cancellation answer it: the gift's state but for
 * who asked and how (`recurrence` for recurring gifts only; `authorization`, the evidence of the
 * donor's authorization, when recorded).
 */
export type GiftView = Omit<Gift, (typeof notInView)[number]>

export interface GiftQuery {
  readonly partnerId: PartnerId
  /** The calling customer: only their own gifts (another's is NotFound). */
  readonly donor?: RegistrationId | undefined
  readonly charityTransactionId: string
}

const giftNotFound = new NotFound({ entity: "CharityTransaction" })

const ownGift = Traced.fn("Charity.ownGift")(function* (query: GiftQuery) {
  const loaded = yield* UseCase.dieOnCorruptEvent(
    CommandHandler.load(CharityTransaction.aggregate, query.charityTransactionId),
  )
  const state = loaded.state
  if (state._tag !== "Created" || state.partnerId !== query.partnerId) return yield* giftNotFound
  if (query.donor !== undefined && state.payerRegistrationId !== query.donor) return yield* giftNotFound
  return state
})

const viewOf = (state: Gift): GiftView => Struct.omit(state, notInView)

/** One gift of the partner (or of the calling donor). */
export const gift = UseCase.fn("Charity.gift")(function* (query: GiftQuery) {
  return viewOf(yield* ownGift(query))
})

/**
 * Stops a recurring gift (the partner, or the donor with a customer token): no collection after
 * this; collections already started stay (refund them to give them back). A stopped gift again
 * changes nothing; a one-time gift is IllegalTransition (409).
 */
export const cancelRecurring = UseCase.fn("Charity.cancelRecurring")(function* (query: GiftQuery) {
  const found = yield* ownGift(query)
  const handled = yield* CommandHandler.handle(
    CharityTransaction.aggregate,
    found.charityTransactionId,
    {
      _tag: "CancelRecurringGift",
      charityTransactionId: found.charityTransactionId,
      by: query.donor === undefined ? "Partner" : "Donor",
      at: yield* DateTime.now,
    },
    { metadata: { partnerId: query.partnerId } },
  )
  if (handled.state._tag !== "Created") return yield* giftNotFound
  return viewOf(handled.state)
})
