/**
 * The authorization evidence purge, in the sandbox AND in production: destroys the retention keys of
 * authorization evidence two years after `acceptedAt` (`AuthorizationEvidenceRetention`, the domain's
 * rule; docs/personal-data.md), after which the evidence's address and user agent read "[erased]".
 *
 * Each step lists the evidence keys (every partner's) and destroys the expired ones, on each
 * partner's time (`SandboxClock.within`: a sandbox partner that advanced its clock two years sees
 * its evidence purged; production has the real clock only). No provider is called and no
 * transaction is held: destroying a key is one statement, and destroying it twice changes nothing,
 * so several instances may run it side by side without claims. It looks every `idleMillis` (hourly
 * in production, every second in the sandbox).
 */
import { AuthorizationEvidenceRetention, Traced } from "@partnerpay/domain"
import { DateTime, Effect } from "effect"
import * as SandboxClock from "../sandbox/SandboxClock.ts"
import { worker } from "./Polling.ts"

/** The worker's name in logs and `GET /readyz`. */
export const name = "evidence-purge"

/** How often it looks: hourly in production (a key outlives its two years by at most an hour and a day). */
export const idleMillis = (sandbox: boolean): number => (sandbox ? 1000 : 3_600_000)

/** One step: the number of keys destroyed. */
export const step = Traced.fn("EvidencePurge.step")(function* () {
  const clocks = yield* SandboxClock.current
  const keys = yield* AuthorizationEvidenceRetention.keys()
  const byPartner = new Map<string, Array<(typeof keys)[number]>>()
  for (const key of keys) byPartner.set(key.partnerId, [...(byPartner.get(key.partnerId) ?? []), key])
  let destroyed = 0
  for (const [partnerId, ofPartner] of byPartner) {
    const now = yield* clocks.within(partnerId === "" ? undefined : partnerId, DateTime.now)
    destroyed += (yield* AuthorizationEvidenceRetention.purge(ofPartner, now)).length
  }
  return destroyed
})

/** The worker. */
export const layer = (options: { readonly sandbox: boolean }) =>
  worker(
    name,
    idleMillis(options.sandbox),
    Effect.suspend(() => step()),
  )
