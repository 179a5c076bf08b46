/**
 * The sandbox's payouts at the money-movement port: no money moves; a payout
 * is Paid one settlement delay after its origination (the payout worker's
 * next cycle), on the partner's sandbox clock (the workers call it within the
 * partner's clock, `SandboxClock.within`, so `POST /Sandbox/Clock/Advance`
 * reaches it).
 *
 * Magic value (docs/api/sandbox.md): a payout to an account number ending in
 * **0013** fails with **R03** (no account / unable to locate account); its
 * money goes back to the company's balance.
 *
 * Stateless and safe with several instances: the reference carries the
 * outcome and the origination instant (`sandbox-Payout-<outcome>-<millis>-<payoutId>`,
 * the sandbox money-movement provider's format, so either reads the other's
 * references). The same idempotency key answers the first reference while the
 * instance remembers it.
 *
 * `layer` provides the whole port for the payout workers (debits and credits
 * are the general sandbox provider's, `SandboxMoneyMovement.ts`, where it is
 * wired; here they are refused as unavailable); `payoutOutcomeFor` is the
 * magic value's one definition.
 */
import { MoneyMovement, Providers, Traced } from "@partnerpay/domain"
import { Clock, Effect, Layer } from "effect"

/** What a sandbox payout becomes, from its destination. */
export type PayoutOutcome = "Settle" | "FailR03"

/** The account number ending that makes a sandbox payout fail with R03. */
export const failingAccountSuffix = "0013"

/** The sandbox outcome of a payout request. */
export const payoutOutcomeFor = (request: MoneyMovement.PayoutRequest): PayoutOutcome =>
  request.destination.accountNumber.endsWith(failingAccountSuffix) ? "FailR03" : "Settle"

const remembered = 10_000

/** The sandbox payouts; a payout's outcome is known `delayMillis` after its origination. */
export const make = (options: { readonly delayMillis: number }) => {
  const first = new Map<string, MoneyMovement.MovementReference>()
  const unavailable = Effect.fail(
    new Providers.ProviderUnavailable({
      provider: "sandbox payouts",
      reason: "debits and credits are the sandbox money-movement provider's",
    }),
  )
  return MoneyMovement.MoneyMovement.of({
    originateDebit: () => unavailable,
    originateCredit: () => unavailable,
    originatePayout: Traced.fn("SandboxPayouts.originatePayout")(function* (request: MoneyMovement.PayoutRequest) {
      const known = first.get(request.idempotencyKey)
      if (known !== undefined) return known
      const now = yield* Clock.currentTimeMillis
      const reference: MoneyMovement.MovementReference = {
        kind: "Payout",
        id: request.idempotencyKey,
        providerReference: `sandbox-Payout-${payoutOutcomeFor(request)}-${now}-${request.idempotencyKey}`,
      }
      if (first.size >= remembered) first.delete(first.keys().next().value as string)
      first.set(request.idempotencyKey, reference)
      return reference
    }),
    status: Traced.fn("SandboxPayouts.status")(function* (reference: MoneyMovement.MovementReference) {
      const [, , outcome, originatedAt] = reference.providerReference.split("-")
      const elapsed = (yield* Clock.currentTimeMillis) - Number(originatedAt)
      if (!(elapsed >= options.delayMillis)) return { status: "Pending" } as const
      return outcome === "FailR03"
        ? ({ status: "Failed", returnCode: "R03" } as const)
        : ({ status: "Settled" } as const)
    }),
  })
}

export const layer = (options: { readonly delayMillis: number }): Layer.Layer<MoneyMovement.MoneyMovement> =>
  Layer.sync(MoneyMovement.MoneyMovement, () => make(options))

const unavailableInProduction = Effect.fail(
  new Providers.ProviderUnavailable({ provider: "money movement", reason: "no money-movement provider wired" }),
)

/**
 * Production until the money-movement bridge is wired into the payout workers: every call is
 * ProviderUnavailable, so payouts are created and wait Pending, never originated, and nothing moves.
 */
export const awaitingProvider: Layer.Layer<MoneyMovement.MoneyMovement> = Layer.succeed(
  MoneyMovement.MoneyMovement,
  MoneyMovement.MoneyMovement.of({
    originateDebit: () => unavailableInProduction,
    originateCredit: () => unavailableInProduction,
    originatePayout: () => unavailableInProduction,
    status: () => unavailableInProduction,
  }),
)
