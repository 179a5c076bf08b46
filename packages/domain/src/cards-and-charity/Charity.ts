/**
 * Use case of POST /Transaction/Charity/CreateAnonymous: a donation to a
 * charity (one of the partner's companies) by a payer known only by an
 * identity verification id. The fee rule is the CharityTransaction
 * aggregate's; this use case checks the company belongs to the partner
 * (NotFound otherwise), converts the amount and answers what was recorded:
 * the fee, what the payer is charged and what the charity receives.
 *
 * Each call records a new donation (there is no idempotency key in the
 * interface); `verificationId` is recorded as given.
 */

import { DateTime, Effect } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as Amounts from "../kernel/Amounts.ts"
import type { CompanyId, PartnerId, VerificationId } from "../kernel/Ids.ts"
import type * as Money from "../kernel/Money.ts"
import { DebitAuths } from "../payments/index.ts"
import * as CharityTransaction from "./CharityTransaction.ts"

export interface CreateAnonymousInput {
  readonly partnerId: PartnerId
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
}

export const createAnonymous = UseCase.fn("Charity.createAnonymous")(function* (input: CreateAnonymousInput) {
  const amount = yield* Amounts.fromWire("amount", input.amount)
  yield* DebitAuths.loadCompany(input.partnerId, input.companyId)
  const charityTransactionId = (yield* (yield* IdGenerator).next) as CharityTransaction.CharityTransactionId
  const at = yield* DateTime.now
  const handled = yield* CommandHandler.handle(CharityTransaction.aggregate, charityTransactionId, {
    _tag: "CreateAnonymousCharityTransaction",
    charityTransactionId,
    partnerId: input.partnerId,
    verificationId: input.verificationId,
    companyId: input.companyId,
    amount,
    isRecurring: input.isRecurring,
    payerCoversFee: input.payerCoversFee,
    at,
  })
  const state = handled.state
  if (state._tag !== "Created") return yield* Effect.die("charity transaction not created")
  const created: Created = {
    charityTransactionId,
    amount: state.amount,
    fee: state.fee,
    payerCharged: state.payerCharged,
    charityReceives: state.charityReceives,
  }
  return created
})
