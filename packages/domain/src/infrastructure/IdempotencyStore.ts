/**
 * The IdempotencyStore port: remembers, per caller and `Idempotency-Key`,
 * which request was made and the response it got, so that a client retrying
 * a POST (after a timeout, a dropped connection...) gets the first response
 * again instead of creating a second payment.
 *
 * One record per (scope, key):
 * - `begin` claims the key for a request (identified by a hash of its method,
 *   path and body). It answers `Started` (the caller runs the request and then
 *   calls `complete` or `abandon`), `Replay` (the same request already
 *   completed: answer its stored response), `InProgress` (the same key is
 *   being processed right now) or `Mismatch` (the key was used for a different
 *   request). `begin` is atomic: of two simultaneous requests with one key,
 *   exactly one gets `Started`.
 * - records expire `retentionMillis` (24 h) after they were started; an
 *   expired key is free again. A record left `InProgress` longer than
 *   `staleAfterMillis` (the process died mid-request) may be claimed again.
 * - `abandon` frees the key (the request failed in a way that must be
 *   retryable, e.g. a 5xx), `complete` stores the response.
 *
 * Scopes keep callers apart (`partner:<id>`, `customer:<partnerId>:<registrationId>`):
 * two partners may use the same key independently.
 *
 * `layerMemory` here; PostgreSQL in `@partnerpay/adapters-pg` (PgIdempotencyStore).
 */
import { Context, DateTime, Effect, Layer } from "effect"
import type { EventStoreUnavailable } from "./EventStore.ts"

/** How long a key is remembered after its request started: 24 hours. */
export const retentionMillis = 24 * 60 * 60 * 1000

/** An in-progress record older than this is considered abandoned by a crashed process: 5 minutes. */
export const staleAfterMillis = 5 * 60 * 1000

/** A stored response: replayed byte for byte. */
export interface StoredResponse {
  readonly status: number
  /** The response's `Content-Type`, when it had one. */
  readonly contentType: string | undefined
  readonly body: Uint8Array
}

export type BeginResult =
  | { readonly _tag: "Started" }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "InProgress" }
  | { readonly _tag: "Mismatch" }

export const Started: BeginResult = { _tag: "Started" }
export const InProgress: BeginResult = { _tag: "InProgress" }
export const Mismatch: BeginResult = { _tag: "Mismatch" }
export const Replay = (response: StoredResponse): BeginResult => ({ _tag: "Replay", response })

export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    /** Claims `key` in `scope` for the request with `requestHash`, at `now`. */
    readonly begin: (
      scope: string,
      key: string,
      requestHash: string,
      now: DateTime.Utc,
    ) => Effect.Effect<BeginResult, EventStoreUnavailable>
    /** Stores the response of a `Started` request; later `begin`s with the same hash replay it. */
    readonly complete: (
      scope: string,
      key: string,
      response: StoredResponse,
    ) => Effect.Effect<void, EventStoreUnavailable>
    /** Frees the key of a `Started` request that must stay retryable. */
    readonly abandon: (scope: string, key: string) => Effect.Effect<void, EventStoreUnavailable>
  }
>()("partnerpay/domain/IdempotencyStore") {}

interface MemoryRecord {
  readonly requestHash: string
  readonly startedAt: number
  response: StoredResponse | undefined
}

/** An in-memory store (one process); expired records are dropped on `begin`. */
export const layerMemory: Layer.Layer<IdempotencyStore> = Layer.sync(IdempotencyStore, () => {
  const records = new Map<string, MemoryRecord>()
  const id = (scope: string, key: string) => `${scope}\u0000${key}`
  const purge = (now: number) => {
    for (const [k, record] of records) if (record.startedAt + retentionMillis <= now) records.delete(k)
  }
  return IdempotencyStore.of({
    begin: (scope, key, requestHash, now) =>
      Effect.sync(() => {
        const at = DateTime.toEpochMillis(now)
        purge(at)
        const existing = records.get(id(scope, key))
        const reclaimable =
          existing !== undefined && existing.response === undefined && existing.startedAt + staleAfterMillis <= at
        if (existing === undefined || reclaimable) {
          records.set(id(scope, key), { requestHash, startedAt: at, response: undefined })
          return Started
        }
        if (existing.requestHash !== requestHash) return Mismatch
        return existing.response === undefined ? InProgress : Replay(existing.response)
      }),
    complete: (scope, key, response) =>
      Effect.sync(() => {
        const record = records.get(id(scope, key))
        if (record !== undefined && record.response === undefined) {
          record.response = { status: response.status, contentType: response.contentType, body: response.body.slice() }
        }
      }),
    abandon: (scope, key) =>
      Effect.sync(() => {
        const record = records.get(id(scope, key))
        if (record !== undefined && record.response === undefined) records.delete(id(scope, key))
      }),
  })
})
