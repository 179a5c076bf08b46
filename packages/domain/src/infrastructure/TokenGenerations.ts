/**
 * The TokenGenerations port: revocation of access tokens by "generation".
 *
 * Every subject that holds tokens (a partner, or a customer of a partner) has
 * a generation, 0 until its first revocation. A token carries the generation
 * of its subject at issue time; revoking (`bump`) gives the subject a new
 * generation, greater than every earlier one, and a token whose generation is
 * below the subject's current one is refused.
 *
 * Verification runs on every request, so `known` is synchronous and does no
 * I/O: it answers from what this process knows. An adapter shared by several
 * processes (PostgreSQL) refreshes that knowledge in the background and states
 * the bound on how late another process learns of a revocation. `current`
 * reads the store itself and is used when a token is issued or renewed (rare
 * next to verifications), so a token is never issued with a stale generation.
 *
 * Generations are values of one increasing counter shared by every subject
 * (not per-subject counters), so a subject forgotten by the store (rows older
 * than every token that could still be valid may be pruned) and revoked again
 * later still gets a generation above every token issued to it before.
 */
import { Context, Effect, Layer } from "effect"
import type { PartnerId, RegistrationId } from "../kernel/Ids.ts"

export class TokenGenerations extends Context.Service<
  TokenGenerations,
  {
    /** The generation this process knows for `subject` (0 when never revoked). No I/O. */
    readonly known: (subject: string) => number
    /** The subject's generation read from the store (and remembered). Never fails: a broken store is a defect. */
    readonly current: (subject: string) => Effect.Effect<number>
    /** Revokes every token of `subject` issued so far; returns the new generation. */
    readonly bump: (subject: string) => Effect.Effect<number>
  }
>()("partnerpay/domain/TokenGenerations") {
  /** In one process only (tests, embedders): revocations take effect at once. */
  static readonly layerMemory: Layer.Layer<TokenGenerations> = Layer.sync(TokenGenerations, () => makeMemory())
}

/** The subject of a partner's tokens. */
export const partnerSubject = (partnerId: PartnerId): string => `partner:${partnerId}`

/** The subject of a customer's tokens (a registration belongs to one partner). */
export const customerSubject = (registrationId: RegistrationId): string => `customer:${registrationId}`

/** An in-memory implementation (one process). */
export const makeMemory = (): TokenGenerations["Service"] => {
  const generations = new Map<string, number>()
  let counter = 0
  const known = (subject: string) => generations.get(subject) ?? 0
  return TokenGenerations.of({
    known,
    current: (subject) => Effect.sync(() => known(subject)),
    bump: (subject) =>
      Effect.sync(() => {
        counter += 1
        generations.set(subject, counter)
        return counter
      }),
  })
}
