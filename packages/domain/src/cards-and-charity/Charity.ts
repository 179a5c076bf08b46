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
 */

import { DateTime, Effect } from "effect"
import { Company } from "../companies/index.ts"
import { Customer, CustomersProjection } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as Amounts from "../kernel/Amounts.ts"
import { NotFound, RuleViolated } from "../kernel/DomainError.ts"
import type { CompanyId, PartnerId, RegistrationId, TransferId, VerificationId } from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import { Payments, Transfer } from "../payments/index.ts"
import * as CharityTransaction from "./CharityTransaction.ts"

export interface CreateAnonymousInput {
  readonly partnerId: PartnerId
  /** The calling customer (a customer token), the donor; absent for a partner's call. */
  readonly donor?: RegistrationId | undefined
  readonly verificationId: VerificationId
  readonly amount: Amounts.WireAmount
  readonly companyId: CompanyId
  readonly isRecurring: boolean
  readonly payerCoversFee: boolean
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

export const createAnonymous = UseCase.fn("Charity.createAnonymous")(function* (input: CreateAnonymousInput) {
  const amount = yield* Amounts.fromWire("amount", input.amount)
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
    at,
  }
  // Decide both first (pure): a gift the transfer would refuse (who may collect) records nothing.
  const decided = CharityTransaction.aggregate.decide(gift, CharityTransaction.initialState)
  if (decided._tag === "Failure") return yield* Effect.fail(decided.failure)
  const created = decided.success[0]
  if (created === undefined) return yield* Effect.die("charity transaction not created")
  const profile = company.profile
  const initiate: Transfer.InitiateTransfer = {
    _tag: "InitiateTransfer",
    transferId,
    charityTransactionId,
    payerRegistrationId: donor.registrationId,
    bankAccountId: account.bankAccountId,
    partnerId: input.partnerId,
    companyId: company.companyId,
    parties: { companyStatus: company._tag, payerKyc: donor.kycStatus },
    amount: created.payerCharged,
    senderName: Payments.senderNameOf(donor, account.name),
    recipientName: profile.name,
    senderAccountMasked: Transfer.maskAccountNumber(account.mask),
    ...(company.payoutAccount === undefined
      ? {}
      : { recipientAccountMasked: company.payoutAccount.accountNumberMasked }),
    recipientAddress: {
      streetNumberAndName: profile.streetNumberAndName,
      apartmentNumber: profile.apartmentNumber ?? "",
      city: profile.city,
      zipCode: profile.zipCode,
      state: profile.state,
      country: Payments.recipientCountry,
    },
    attachments: [],
    description: `Donation to ${profile.name}`,
    at,
  }
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
