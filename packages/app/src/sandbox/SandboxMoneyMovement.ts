/**
 * The sandbox's money-movement provider: no money moves, the outcome of each
 * movement follows from its amount and the time since it was originated, on
 * the partner's sandbox clock (the workers call it within the partner's
 * clock, `SandboxClock.within`), so `POST /Sandbox/Clock/Advance` reaches it.
 *
 * Magic amounts (docs/api/sandbox.md), for a debit (a payment, an instalment,
 * an autopay or debit-authorization collection):
 * - ending in .13: Failed with R01 (insufficient funds) before settlement;
 * - ending in .03: Failed with R03 (no account) before settlement;
 * - ending in .10: Settled after the settlement delay, then Returned with R10
 *   (not authorised) one settlement delay later;
 * - ending in .91: refused when it is originated, as Dwolla answers a 400
 *   `ValidationError` (`MovementRefused`): the payment Failed at once, no
 *   return code, the rail's words as its failureReason;
 * - any other: Settled after the settlement delay.
 * Credits (refunds) settle after the settlement delay. Payouts too, except to a
 * payout account whose number ends in 0013: Failed with R03 (no account) one
 * settlement delay after origination (`payoutOutcomeFor`).
 *
 * Its status is stateless (it survives restarts and runs on any instance):
 * the reference carries what the outcome needs
 * (`sandbox-<kind>-<outcome>-<originated millis>-<id>`). The same idempotency
 * key answers the first reference while the instance remembers it (a bounded
 * memory); another instance may answer another reference for the same key,
 * which the Transfer refuses to record (`ORIGINATED_ELSEWHERE`): the first
 * reference recorded stands.
 */
import { Money, MoneyMovement, RailCapabilities, Traced } from "@partnerpay/domain"
import { Clock, Effect, Layer } from "effect"

/** What a sandbox movement becomes, from its amount. */
export type SandboxOutcome = "Settle" | "FailR01" | "FailR03" | "ReturnR10"

/** The sandbox outcome of a debit of `amount`. */
export const outcomeFor = (amount: Money.Money): SandboxOutcome => {
  const decimal = Money.toDecimalString(amount)
  if (decimal.endsWith(".13")) return "FailR01"
  if (decimal.endsWith(".03")) return "FailR03"
  if (decimal.endsWith(".10")) return "ReturnR10"
  return "Settle"
}

/** The amount ending the sandbox rail refuses at origination (as Dwolla's ValidationError). */
export const refusedAmountSuffix = ".91"

/** The sandbox's refusal of a debit of `amount`, or undefined when it moves it. */
export const refusalFor = (amount: Money.Money): MoneyMovement.MovementRefused | undefined =>
  Money.toDecimalString(amount).endsWith(refusedAmountSuffix)
    ? new MoneyMovement.MovementRefused({
        code: "ValidationError",
        reason: "Validation error(s) present: the sandbox rail refuses an amount ending in .91 (magic value)",
      })
    : undefined

/** The account number ending that makes a sandbox payout fail with R03 (docs/api/payouts.md). */
export const failingPayoutAccountSuffix = "0013"

/** The sandbox outcome of a payout: R03 to an account ending in 0013, else settled. */
export const payoutOutcomeFor = (request: MoneyMovement.PayoutRequest): SandboxOutcome =>
  request.destination.accountNumber.endsWith(failingPayoutAccountSuffix) ? "FailR03" : "Settle"

const prefix = "sandbox"
/** How many idempotency keys an instance remembers. */
const remembered = 10_000

export interface Options {
  readonly delayMillis: number
  /** The currencies the simulated rail moves (PARTNERPAY_SANDBOX_CURRENCIES; Dwolla's USD by default). */
  readonly currencies?: ReadonlyArray<string>
}

/** The sandbox provider; movements settle `delayMillis` after their origination. */
export const make = (options: Options) => {
  const first = new Map<string, MoneyMovement.MovementReference>()
  const originate = Traced.fn("SandboxMoneyMovement.originate")(function* (
    kind: MoneyMovement.MovementKind,
    key: string,
    outcome: SandboxOutcome,
  ) {
    const known = first.get(`${kind}:${key}`)
    if (known !== undefined) return known
    const now = yield* Clock.currentTimeMillis
    const reference: MoneyMovement.MovementReference = {
      kind,
      id: key,
      providerReference: `${prefix}-${kind}-${outcome}-${now}-${key}`,
    }
    if (first.size >= remembered) first.delete(first.keys().next().value as string)
    first.set(`${kind}:${key}`, reference)
    return reference
  })
  return MoneyMovement.MoneyMovement.of({
    capabilities: { currencies: options.currencies ?? RailCapabilities.dwolla.currencies },
    originateDebit: (request) => {
      const refused = refusalFor(request.amount)
      return refused === undefined
        ? originate("Debit", request.idempotencyKey, outcomeFor(request.amount))
        : Effect.fail(refused)
    },
    originateCredit: (request) => originate("Credit", request.idempotencyKey, "Settle"),
    originatePayout: (request) => originate("Payout", request.idempotencyKey, payoutOutcomeFor(request)),
    status: Traced.fn("SandboxMoneyMovement.status")(function* (reference: MoneyMovement.MovementReference) {
      const [, , outcome, originatedAt] = reference.providerReference.split("-")
      const elapsed = (yield* Clock.currentTimeMillis) - Number(originatedAt)
      if (!(elapsed >= options.delayMillis)) return { status: "Pending" } as const
      switch (outcome as SandboxOutcome) {
        case "FailR01":
          return { status: "Failed", returnCode: "R01" } as const
        case "FailR03":
          return { status: "Failed", returnCode: "R03" } as const
        case "ReturnR10":
          return elapsed >= 2 * options.delayMillis
            ? ({ status: "Returned", returnCode: "R10" } as const)
            : ({ status: "Settled" } as const)
        default:
          return { status: "Settled" } as const
      }
    }),
  })
}

export const layer = (options: Options): Layer.Layer<MoneyMovement.MoneyMovement> =>
  Layer.sync(MoneyMovement.MoneyMovement, () => make(options))
