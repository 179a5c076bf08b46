/**
 * The IdempotencyStore port: remembers, per caller and `Idempotency-Key`,
 * which request was made and the response it got, so that a client retrying
 * a POST (after a timeout, a dropped connection, a crash of the service...)
 * gets the first response again instead of creating a second payment.
 *
 * One record per (scope, key):
 * - `begin` claims the key for a request (identified by a hash of its method,
 *   path and body). It answers `Started` with the claim (the caller runs the
 *   request and then calls `complete` or `abandon` with it), `Replay` (the
 *   same request already completed: answer its stored response),
 *   `InProgress` (the same key is being processed right now by a live
 *   holder) or `Mismatch` (the key was used for a different request). `begin`
 *   is atomic: of two simultaneous requests with one key, exactly one gets
 *   `Started`. Passing the claim a holder got (`resume`) starts it again for
 *   that holder (a unit of work retried after a conflict), unless someone
 *   else took or completed the key meanwhile.
 * - `complete` stores the response **inside the caller's unit of work**: it is
 *   written by the unit's commit, with the business writes of the request, or
 *   not at all. So a committed request always has its answer stored, and a
 *   request whose unit did not commit leaves its key free. The commit fails
 *   with a `VersionConflict` when the claim is no longer the holder's.
 * - A claim lives as long as its holder: a claim whose process died (crash,
 *   kill -9) is free again as soon as the store can tell (PostgreSQL: within
 *   seconds, by the holder's liveness; in memory the store dies with it).
 *   There is no timer on a live claim: a slow request is never run twice.
 * - Records expire `retentionMillis` (24 h) after they were started; an
 *   expired key is free again.
 * - `abandon` frees the key (the request failed in a way that must be
 *   retryable, e.g. a 5xx).
 *
 * Scopes keep callers apart (`partner:<id>`, `customer:<partnerId>:<registrationId>`):
 * two partners may use the same key independently.
 *
 * `layerMemory` here; PostgreSQL in `@partnerpay/adapters-pg` (PgIdempotencyStore).
 */
import { Context, DateTime, Effect, Layer } from "effect"
import type { EventStoreUnavailable } from "./EventStore.ts"

// The Web Crypto global exists in every supported runtime (see IdGenerator.ts).
declare const crypto: { randomUUID(): string }

/** How long a key is remembered after its request started: 24 hours. */
export const retentionMillis = 24 * 60 * 60 * 1000

/** A stored response: replayed byte for byte. */
export interface StoredResponse {
  readonly status: number
  /** The response's `Content-Type`, when it had one. */
  readonly contentType: string | undefined
  readonly body: Uint8Array
}

export type BeginResult =
  | { readonly _tag: "Started"; readonly claim: string }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "InProgress" }
  | { readonly _tag: "Mismatch" }

export const Started = (claim: string): BeginResult => ({ _tag: "Started", claim })
export const InProgress: BeginResult = { _tag: "InProgress" }
export const Mismatch: BeginResult = { _tag: "Mismatch" }
export const Replay = (response: StoredResponse): BeginResult => ({ _tag: "Replay", response })

/** A new claim token (unguessable, unique per attempt to run a request). */
export const newClaim = (): string => crypto.randomUUID()

export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    /**
     * Claims `key` in `scope` for the request with `requestHash`, at `now`; with `resume`, the
     * holder of that claim takes it again (answers `Started` with the same claim) if it still holds it.
     */
    readonly begin: (
      scope: string,
      key: string,
      requestHash: string,
      now: DateTime.Utc,
      resume?: string,
    ) => Effect.Effect<BeginResult, EventStoreUnavailable>
    /**
     * Stores the response of the request holding `claim`; later `begin`s with the same hash replay
     * it. Inside a unit of work it is written by the unit's commit (and lost with it); outside one,
     * at once.
     */
    readonly complete: (
      scope: string,
      key: string,
      claim: string,
      response: StoredResponse,
    ) => Effect.Effect<void, EventStoreUnavailable>
    /** Frees the key of the request holding `claim`, which must stay retryable. */
    readonly abandon: (scope: string, key: string, claim: string) => Effect.Effect<void, EventStoreUnavailable>
  }
>()("partnerpay/domain/IdempotencyStore") {}

interface MemoryRecord {
  readonly requestHash: string
  readonly startedAt: number
  readonly claim: string
  response: StoredResponse | undefined
}

/**
 * An in-memory store (one process: a claim lives as long as the store). `complete` writes at once:
 * the in-memory unit of work is a lock, not a transaction, so there is nothing to join. Expired
 * records are dropped on `begin`.
 */
export const layerMemory: Layer.Layer<IdempotencyStore> = Layer.sync(IdempotencyStore, () => {
  const records = new Map<string, MemoryRecord>()
  const id = (scope: string, key: string) => `${scope}\u0000${key}`
  const purge = (now: number) => {
    for (const [k, record] of records) if (record.startedAt + retentionMillis <= now) records.delete(k)
  }
  return IdempotencyStore.of({
    begin: (scope, key, requestHash, now, resume) =>
      Effect.sync(() => {
        const at = DateTime.toEpochMillis(now)
        purge(at)
        const existing = records.get(id(scope, key))
        if (existing === undefined) {
          const claim = newClaim()
          records.set(id(scope, key), { requestHash, startedAt: at, claim, response: undefined })
          return Started(claim)
        }
        if (existing.requestHash !== requestHash) return Mismatch
        if (existing.response !== undefined) return Replay(existing.response)
        return resume !== undefined && existing.claim === resume ? Started(resume) : InProgress
      }),
    complete: (scope, key, claim, response) =>
      Effect.sync(() => {
        const record = records.get(id(scope, key))
        if (record !== undefined && record.claim === claim && record.response === undefined) {
          record.response = { status: response.status, contentType: response.contentType, body: response.body.slice() }
        }
      }),
    abandon: (scope, key, claim) =>
      Effect.sync(() => {
        const record = records.get(id(scope, key))
        if (record !== undefined && record.claim === claim && record.response === undefined)
          records.delete(id(scope, key))
      }),
  })
})
