/**
 * Every cross-aggregate policy of the domain. Each policy module adds itself
 * here; the composition root provides the registry (`layer`, part of
 * `EventPipeline.layerMemory` and of `PgDomain.layer`) and the command handler
 * applies it after every decision, inside the decision's unit of work.
 */
import { Effect, Layer } from "effect"
import { exhaustedPolicy as cardRefundExhausted } from "../cards-and-charity/CardRefundAttempts.ts"
import { policy as cardRefundMirror } from "../cards-and-charity/CardRefundMirrorPolicy.ts"
import * as Policy from "../infrastructure/Policy.ts"
import { ReadModelStore } from "../infrastructure/ReadModel.ts"
import { policy as transferOutcome } from "../payments/TransferOutcomePolicy.ts"
import {
  cardFeePolicy as cardFeeLedger,
  cardPolicy as cardLedger,
  cardRefundPolicy as cardRefundLedger,
  disputeFeePolicy as disputeFeeLedger,
  disputePolicy as disputeLedger,
  feePolicy as feeLedger,
  policy as ledger,
  returnFeePolicy as returnFeeLedger,
  terminalCardFeePolicy as terminalCardFeeLedger,
  terminalCardPolicy as terminalCardLedger,
} from "../payouts/LedgerPolicy.ts"
import { policy as payoutAccount } from "../payouts/PayoutAccountPolicy.ts"
import { policy as payoutCreation } from "../payouts/PayoutCreationPolicy.ts"
import { policy as payoutOutcome } from "../payouts/PayoutOutcomePolicy.ts"
import { policy as consentAnswer } from "../plans/ConsentAnswerPolicy.ts"
import { policy as instalmentOutcome } from "../plans/InstalmentOutcomePolicy.ts"
import * as Returns from "./Returns.ts"

export const all: ReadonlyArray<Policy.AnyPolicy> = [
  consentAnswer,
  transferOutcome,
  instalmentOutcome,
  ledger,
  feeLedger,
  returnFeeLedger,
  cardLedger,
  cardFeeLedger,
  terminalCardLedger,
  terminalCardFeeLedger,
  disputeLedger,
  disputeFeeLedger,
  cardRefundLedger,
  cardRefundMirror,
  cardRefundExhausted,
  payoutCreation,
  payoutOutcome,
  payoutAccount,
]

/**
 * The registry the command handler applies (`Policy.Policies`): every policy above, and the
 * fan-out policy of a returned debit (`Returns.policy`), which reads the read models in context
 * when the registry is built.
 */
export const layer: Layer.Layer<Policy.Policies, never, ReadModelStore> = Layer.effect(
  Policy.Policies,
  Effect.gen(function* () {
    const store = yield* ReadModelStore
    return [...all, Returns.policy(store)]
  }),
)
