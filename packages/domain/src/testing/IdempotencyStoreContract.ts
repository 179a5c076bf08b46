/**
 * The contract every IdempotencyStore implementation must pass: claim,
 * replay, mismatch, in-progress, abandon, per-scope isolation, 24 h expiry,
 * a claim resumed by its holder only, completion and abandonment by the
 * holder only, exact replay of the stored bytes, and one winner among
 * simultaneous claims of one key.
 *
 * Framework-neutral like `eventStoreContract`: pass your runner's functions.
 * Every case uses a fresh random scope, so a shared database is fine.
 */
import { DateTime, Effect } from "effect"
import type { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { IdempotencyStore, retentionMillis, type StoredResponse } from "../infrastructure/IdempotencyStore.ts"
import * as Traced from "../kernel/Traced.ts"
import { type Case, type ContractOptions, contractOf } from "./Contract.ts"

declare const crypto: { randomUUID(): string }

export type IdempotencyContractCase = Case<EventStoreUnavailable | Error, IdempotencyStore>

const newScope = () => `partner:${crypto.randomUUID()}`
const t0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z")
const after = (millis: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t0) + millis)

const check = (condition: boolean, message: string): Effect.Effect<void, Error> =>
  condition ? Effect.void : Effect.fail(new Error(message))

const expectTag = (actual: { _tag: string }, tag: string, what: string) =>
  check(actual._tag === tag, `${what}: expected ${tag}, got ${actual._tag}`)

const response = (text: string): StoredResponse => ({
  status: 200,
  contentType: "application/json",
  body: Uint8Array.from(text, (c) => c.charCodeAt(0)),
})

/** Begins and expects `Started`: the claim. */
const started = Traced.fn("IdempotencyStoreContract.started")(function* (
  scope: string,
  key: string,
  hash: string,
  at = t0,
) {
  const result = yield* (yield* IdempotencyStore).begin(scope, key, hash, at)
  if (result._tag !== "Started") return yield* Effect.fail(new Error(`expected Started, got ${result._tag}`))
  return result.claim
})

/** Begins a fresh scope's key `k1` (hash `hash-a`) and completes it with `stored`: the scope and the claim. */
const completed = Traced.fn("IdempotencyStoreContract.completed")(function* (stored: StoredResponse) {
  const scope = newScope()
  const claim = yield* started(scope, "k1", "hash-a")
  yield* (yield* IdempotencyStore).complete(scope, "k1", claim, stored)
  return { scope, claim }
})

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i])

export const idempotencyStoreContractCases: ReadonlyArray<IdempotencyContractCase> = [
  {
    name: "the first request with a key starts; the same request again while it runs is InProgress",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      yield* started(scope, "k1", "hash-a")
      yield* expectTag(yield* store.begin(scope, "k1", "hash-a", after(1000)), "InProgress", "second begin")
    }),
  },
  {
    name: "a different request with a used key is a Mismatch, in progress or completed",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      const claim = yield* started(scope, "k1", "hash-a")
      yield* expectTag(yield* store.begin(scope, "k1", "hash-b", t0), "Mismatch", "in progress")
      yield* store.complete(scope, "k1", claim, response('{"ok":true}'))
      yield* expectTag(yield* store.begin(scope, "k1", "hash-b", after(1000)), "Mismatch", "completed")
    }),
  },
  {
    name: "a completed request replays its stored response exactly (status, content type, bytes)",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const stored: StoredResponse = {
        status: 201,
        contentType: "application/problem+json",
        body: new Uint8Array([0, 255, 0xc3, 0x28, 10, 123]),
      }
      const { scope } = yield* completed(stored)
      const result = yield* store.begin(scope, "k1", "hash-a", after(60_000))
      if (result._tag !== "Replay") return yield* Effect.fail(new Error(`expected Replay, got ${result._tag}`))
      yield* check(result.response.status === 201, "status")
      yield* check(result.response.contentType === "application/problem+json", "content type")
      yield* check(sameBytes(result.response.body, stored.body), "body bytes")
    }),
  },
  {
    name: "an empty body without content type replays as such",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      const claim = yield* started(scope, "k", "h")
      yield* store.complete(scope, "k", claim, { status: 200, contentType: undefined, body: new Uint8Array() })
      const result = yield* store.begin(scope, "k", "h", t0)
      if (result._tag !== "Replay") return yield* Effect.fail(new Error(`expected Replay, got ${result._tag}`))
      yield* check(result.response.contentType === undefined, "no content type")
      yield* check(result.response.body.length === 0, "empty body")
    }),
  },
  {
    name: "an abandoned key can be used again, even for another request",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      const claim = yield* started(scope, "k1", "hash-a")
      yield* store.abandon(scope, "k1", claim)
      yield* started(scope, "k1", "hash-b")
    }),
  },
  {
    name: "abandon does not erase a completed response",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const { scope, claim } = yield* completed(response("{}"))
      yield* store.abandon(scope, "k1", claim)
      yield* expectTag(yield* store.begin(scope, "k1", "hash-a", t0), "Replay", "after abandon")
    }),
  },
  {
    name: "only the claim's holder completes or abandons it: another claim changes nothing",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      yield* started(scope, "k1", "hash-a")
      yield* store.complete(scope, "k1", "not-the-claim", response("forged"))
      yield* expectTag(yield* store.begin(scope, "k1", "hash-a", t0), "InProgress", "after a foreign complete")
      yield* store.abandon(scope, "k1", "not-the-claim")
      yield* expectTag(yield* store.begin(scope, "k1", "hash-a", t0), "InProgress", "after a foreign abandon")
    }),
  },
  {
    name: "the holder resumes its claim (the same claim again); any other resume sees it in progress",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      const claim = yield* started(scope, "k1", "hash-a")
      const resumed = yield* store.begin(scope, "k1", "hash-a", t0, claim)
      yield* check(resumed._tag === "Started" && resumed.claim === claim, "resumed with the same claim")
      yield* expectTag(yield* store.begin(scope, "k1", "hash-a", t0, "another"), "InProgress", "another resume")
      yield* store.complete(scope, "k1", claim, response("done"))
      yield* expectTag(yield* store.begin(scope, "k1", "hash-a", t0, claim), "Replay", "resumed once completed")
    }),
  },
  {
    name: "keys are scoped: the same key in two scopes are two records",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const a = newScope()
      const b = newScope()
      const claim = yield* started(a, "shared", "hash-a")
      yield* store.complete(a, "shared", claim, response("a"))
      yield* started(b, "shared", "hash-b")
    }),
  },
  {
    name: "a completed key is replayed for 24 hours and free again afterwards",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const { scope } = yield* completed(response("first"))
      yield* expectTag(yield* store.begin(scope, "k1", "hash-a", after(retentionMillis - 1)), "Replay", "at 24h-1ms")
      yield* started(scope, "k1", "hash-b", after(retentionMillis))
    }),
  },
  {
    name: "a live claim is never taken over by time alone: still in progress 23 hours later",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      yield* started(scope, "k1", "hash-a")
      yield* expectTag(
        yield* store.begin(scope, "k1", "hash-a", after(23 * 60 * 60 * 1000)),
        "InProgress",
        "23 hours later",
      )
    }),
  },
  {
    name: "of 20 simultaneous claims of one key exactly one starts; the others see it in progress",
    run: Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const scope = newScope()
      const results = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        () => store.begin(scope, "race", "hash-a", t0),
        { concurrency: "unbounded" },
      )
      const started = results.filter((r) => r._tag === "Started").length
      const inProgress = results.filter((r) => r._tag === "InProgress").length
      yield* check(started === 1 && inProgress === 19, `started ${started}, in progress ${inProgress}`)
    }),
  },
]

export type IdempotencyContractOptions = ContractOptions

/** Registers the contract as a suite of tests on `layer` (built once per suite). */
export const idempotencyStoreContract = contractOf("IdempotencyStore", idempotencyStoreContractCases)
