/**
 * The ReadModelStore contract: any store must answer exactly like the
 * in-memory `selectPage` (tenant scope, key equality, sort-key bounds, order,
 * cursor, hasMore), plus get/put/delete/clear. Run on memory, PGlite and
 * PostgreSQL by ReadModelStore.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { ReadModel } from "@partnerpay/domain"
import { PropertyParams } from "@partnerpay/domain/testing"
import { Effect, type Layer, Option } from "effect"
import fc from "fast-check"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112603)

const partners = ["p-1", "p-2"]

const documentArb = (collection: string) =>
  fc
    .record({
      id: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"),
      partnerId: fc.constantFrom(...partners),
      status: fc.constantFrom("Pending", "Paid"),
      payer: fc.constantFrom("r-1", "r-2"),
      // Few distinct sort keys: ties are broken by id.
      sortKey: fc.constantFrom("2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", "2024-02-01T00:00:00Z"),
      n: fc.integer(),
    })
    .map(
      (d): ReadModel.StoredDocument => ({
        collection,
        id: d.id,
        data: { id: d.id, n: d.n, nested: { status: d.status } },
        index: { partnerId: d.partnerId, keys: { status: d.status, payer: d.payer }, sortKey: d.sortKey },
      }),
    )

const queryArb: fc.Arbitrary<ReadModel.Query> = fc
  .record(
    {
      partnerId: fc.constantFrom(...partners, "p-none"),
      keys: fc.oneof(
        fc.constant({}),
        fc.record({ status: fc.constantFrom("Pending", "Paid", "Unknown") }),
        fc.record({ status: fc.constantFrom("Pending", "Paid"), payer: fc.constantFrom("r-1", "r-2") }),
      ),
      sortKeyFrom: fc.constantFrom("2024-01-02T00:00:00Z", "2024-01-01", "2025"),
      sortKeyTo: fc.constantFrom("2024-01-02T00:00:00Z", "2024-01-31", "2023"),
      startingAfter: fc.constantFrom("a", "c", "f", "l", "zz"),
      limit: fc.integer({ min: 0, max: 6 }),
      order: fc.constantFrom("asc" as const, "desc" as const),
    },
    { requiredKeys: ["partnerId", "limit"] },
  )
  .map((q) => q as ReadModel.Query)

const plain = (page: ReadModel.Page) => ({
  hasMore: page.hasMore,
  items: page.items.map((d) => ({ id: d.id, data: d.data, index: d.index })),
})

export const readModelStoreContract = (name: string, layer: Layer.Layer<ReadModel.ReadModelStore, unknown>) =>
  describe(`ReadModelStore contract: ${name}`, () => {
    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect(
        "put then get returns the document with its index; put again replaces it; delete removes it",
        () =>
          Effect.gen(function* () {
            const collection = `c_${crypto.randomUUID()}`
            const doc: ReadModel.StoredDocument = {
              collection,
              id: "doc-1",
              data: { Name: "Acme", amount: { minorUnits: 1234, currency: "USD" }, tags: ["x"], none: null },
              index: { partnerId: "p-1", keys: { companyReferenceId: "ACME-1" }, sortKey: "2024-01-01T00:00:00.000Z" },
            }
            const store = yield* ReadModel.ReadModelStore
            assert.isTrue(Option.isNone(yield* store.get(collection, "doc-1")))
            yield* store.put(doc)
            assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(collection, "doc-1")), doc)
            const changed = { ...doc, data: { Name: "Acme 2" }, index: { ...doc.index, keys: { other: "1" } } }
            yield* store.put(changed)
            assert.deepStrictEqual(Option.getOrUndefined(yield* store.get(collection, "doc-1")), changed)
            assert.isTrue(Option.isNone(yield* store.get(`${collection}-other`, "doc-1")))
            yield* store.delete(collection, "doc-1")
            assert.isTrue(Option.isNone(yield* store.get(collection, "doc-1")))
          }),
        60_000,
      )

      it.effect(
        "clear removes every document of one collection only",
        () =>
          Effect.gen(function* () {
            const a = `c_${crypto.randomUUID()}`
            const b = `c_${crypto.randomUUID()}`
            const doc = (collection: string, id: string): ReadModel.StoredDocument => ({
              collection,
              id,
              data: {},
              index: { partnerId: "p-1", keys: {}, sortKey: "k" },
            })
            const store = yield* ReadModel.ReadModelStore
            yield* store.put(doc(a, "1"))
            yield* store.put(doc(a, "2"))
            yield* store.put(doc(b, "1"))
            yield* store.clear(a)
            assert.strictEqual((yield* store.find(a, { partnerId: "p-1", limit: 10 })).items.length, 0)
            assert.deepStrictEqual(
              (yield* store.find(b, { partnerId: "p-1", limit: 10 })).items.map((d) => d.id),
              ["1"],
            )
          }),
        60_000,
      )

      it.effect(
        "walking the pages with startingAfter visits every matching document once, in order",
        () =>
          Effect.gen(function* () {
            const collection = `c_${crypto.randomUUID()}`
            const docs = Array.from({ length: 23 }, (_, i) => ({
              collection,
              id: `id-${String(i).padStart(2, "0")}`,
              data: { i },
              index: { partnerId: i % 4 === 0 ? "p-2" : "p-1", keys: {}, sortKey: `s-${i % 5}` },
            }))
            const store = yield* ReadModel.ReadModelStore
            for (const doc of docs) yield* store.put(doc)
            const pages: Array<string> = []
            let cursor: string | undefined
            for (let guard = 0; guard < 20; guard++) {
              const page = yield* store.find(collection, {
                partnerId: "p-1",
                limit: 4,
                order: "asc",
                ...(cursor === undefined ? {} : { startingAfter: cursor }),
              })
              pages.push(...page.items.map((d) => d.id))
              if (!page.hasMore) break
              cursor = page.items[page.items.length - 1]?.id
            }
            const expected = ReadModel.selectPage(docs, { partnerId: "p-1", limit: 100, order: "asc" }).items.map(
              (d) => d.id,
            )
            assert.strictEqual(expected.length, 17)
            assert.deepStrictEqual(pages, expected)
          }),
        60_000,
      )

      it.effect(
        "find answers every generated query exactly like selectPage",
        () =>
          Effect.gen(function* () {
            const run = Effect.runPromiseWith(yield* Effect.context<ReadModel.ReadModelStore>())
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(
                  fc
                    .uuid()
                    .chain((id) =>
                      fc.tuple(
                        fc.constant(`c_${id}`),
                        fc.uniqueArray(documentArb(`c_${id}`), { selector: (d) => d.id, maxLength: 12 }),
                      ),
                    ),
                  fc.array(queryArb, { minLength: 1, maxLength: 8 }),
                  async ([collection, docs], queries) => {
                    await run(
                      Effect.gen(function* () {
                        const store = yield* ReadModel.ReadModelStore
                        for (const doc of docs) yield* store.put(doc)
                        for (const query of queries) {
                          const actual = yield* store.find(collection, query)
                          assert.deepStrictEqual(
                            plain(actual),
                            plain(ReadModel.selectPage(docs, query)),
                            JSON.stringify(query),
                          )
                        }
                      }),
                    )
                  },
                ),
                seeded({ numRuns: 40 }),
              ),
            )
          }),
        60_000,
      )
    })
  })
