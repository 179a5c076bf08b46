/**
 * `Context.add` and `Context.merge` as patched (patches/effect@4.1.0.patch). Every `provideService`
 * adds an overlay to the fiber's context, and at 8 overlays the context is copied whole (a Map of
 * about 70 services here); the event store's append hook alone provided four services per append that
 * the request's context already held. Patched, adding a service the context holds with the same value
 * answers the context itself.
 *
 * `Context.merge` as patched. HttpApiBuilder provides the context its
 * handlers were built with to every request (`Effect.provideContext`), and the API's middleware merge
 * contexts too; unpatched, each merge copied a Map of every service of the service (about 70) once or
 * twice per request, the largest share of the allocations of a write. Patched, a merge whose result
 * equals one of its arguments answers that argument, and a merge that adds or replaces a few services
 * adds them as `Context.add` does; the services a merged context holds are the same either way.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Equal, Option } from "effect"

class Ledger extends Context.Service<Ledger, { readonly name: string }>()("test/EffectContextPatch/Ledger") {}
class Clerk extends Context.Service<Clerk, { readonly name: string }>()("test/EffectContextPatch/Clerk") {}
class Stamp extends Context.Service<Stamp, { readonly name: string }>()("test/EffectContextPatch/Stamp") {}

const ledger = { name: "ledger" }
const clerk = { name: "clerk" }
const stamp = { name: "stamp" }

/** A request's context: the built services, then what the request added on top (overlays). */
const requestContext = () =>
  Context.make(Ledger, ledger).pipe(Context.add(Clerk, clerk), Context.add(Stamp, { name: "the request's stamp" }))

/** The services of a context, by key, as a lookup answers them. */
const servicesOf = (context: Context.Context<Ledger | Clerk | Stamp>) => ({
  ledger: Context.getOrUndefined(context, Ledger),
  clerk: Context.getOrUndefined(context, Clerk),
  stamp: Context.getOrUndefined(context, Stamp),
})

describe("a context that holds a service", () => {
  it("adding the same value under its key answers the context itself (no overlay)", () => {
    const request = requestContext()
    assert.strictEqual(Context.add(request, Clerk, clerk), request)
  })

  it("adding another value under its key answers a context holding the new value", () => {
    const request = requestContext()
    const replaced = Context.add(request, Clerk, { name: "another clerk" })
    assert.deepStrictEqual(servicesOf(replaced), {
      ledger,
      clerk: { name: "another clerk" },
      stamp: { name: "the request's stamp" },
    })
  })
})

describe("a request context that already holds the services of a built context", () => {
  it("merging the built context into it answers the request context itself (nothing copied)", () => {
    const request = requestContext()
    const built = Context.make(Ledger, ledger).pipe(Context.add(Clerk, clerk))
    assert.strictEqual(Context.merge(request, built), request)
  })
})

describe("a built context that holds a service the request context lacks or holds otherwise", () => {
  it("merged into the request context, its services win and the request's others stay", () => {
    const request = requestContext()
    const built = Context.make(Ledger, { name: "another ledger" }).pipe(Context.add(Stamp, stamp))
    const merged = Context.merge(request, built)
    assert.deepStrictEqual(servicesOf(merged), { ledger: { name: "another ledger" }, clerk, stamp })
    assert.deepStrictEqual(servicesOf(request), { ledger, clerk, stamp: { name: "the request's stamp" } })
  })
})

describe("a context whose every key the other context holds", () => {
  it("merged under that other context, answers the other context (its services win every key)", () => {
    const small = Context.make(Clerk, { name: "an older clerk" })
    const request = requestContext()
    assert.strictEqual(Context.merge(small, request), request)
  })
})

describe("two contexts that differ in more services than the patch adds one by one", () => {
  it("merged, hold every service of both, the second's winning", () => {
    const keys = Array.from({ length: 12 }, (_, index) => `test/EffectContextPatch/Service${index}`)
    const first = Context.makeUnsafe<never>(new Map(keys.map((key) => [key, `first ${key}`])))
    const second = Context.makeUnsafe<never>(new Map(keys.slice(2).map((key) => [key, `second ${key}`])))
    const merged = Context.merge(first, second)
    assert.deepStrictEqual(
      [...merged.mapUnsafe.entries()].sort(),
      keys.map((key, index): [string, unknown] => [key, index < 2 ? `first ${key}` : `second ${key}`]).sort(),
    )
  })
})

/** The runtime's services: a base of `count` services, as a built layer gives it. */
const runtimeOf = (count: number) =>
  Context.makeUnsafe<never>(
    new Map(Array.from({ length: count }, (_, index) => [`test/EffectContextPatch/Runtime${index}`, `built ${index}`])),
  )

/** `count` requests' services, added one at a time (past `maxDepth`: each 8 the context is rebased). */
const addEach = (context: Context.Context<never>, count: number, prefix: string) => {
  let added = context
  for (let index = 0; index < count; index++) {
    added = Context.add(
      added,
      Context.Service<never, string>(`test/EffectContextPatch/${prefix}${index}`),
      `${prefix} ${index}`,
    )
  }
  return added
}

/** The services a context holds, as a flat copy would list them (key order aside). */
const entriesOf = (context: Context.Context<never>) => [...context.mapUnsafe.entries()].sort()

describe("a context of many services with more added than its overlays hold", () => {
  it("holds every service once: the runtime's, then the added ones, a replaced one with its new value", () => {
    const runtime = runtimeOf(100)
    const added = Context.add(
      addEach(runtime, 20, "Request"),
      Context.Service<never, string>("test/EffectContextPatch/Runtime7"),
      "replaced",
    )
    const expected = [
      ...Array.from({ length: 100 }, (_, index): [string, unknown] => [
        `test/EffectContextPatch/Runtime${index}`,
        index === 7 ? "replaced" : `built ${index}`,
      ]),
      ...Array.from({ length: 20 }, (_, index): [string, unknown] => [
        `test/EffectContextPatch/Request${index}`,
        `Request ${index}`,
      ]),
    ].sort()
    assert.deepStrictEqual(entriesOf(added), expected)
    assert.strictEqual(added.mapUnsafe.size, 120)
  })

  it("answers each lookup with the latest value, and leaves the context it grew from unchanged", () => {
    const runtime = runtimeOf(100)
    const first = addEach(runtime, 20, "Request")
    const second = addEach(first, 20, "Request")
    const reread = Context.Service<never, string>("test/EffectContextPatch/Request3")
    assert.strictEqual(Context.getUnsafe(second, reread), "Request 3")
    assert.strictEqual(Context.getUnsafe(first, reread), "Request 3")
    const overridden = Context.add(second, reread, "again")
    assert.strictEqual(Context.getUnsafe(overridden, reread), "again")
    assert.strictEqual(Context.getUnsafe(second, reread), "Request 3")
    assert.strictEqual(runtime.mapUnsafe.size, 100)
    assert.isUndefined(Context.getOrUndefined(runtime, reread))
  })

  it("is equal to the same services built flat, and merges, picks and omits as a flat context does", () => {
    const grown = addEach(runtimeOf(40), 30, "Request")
    const flat = Context.makeUnsafe<never>(new Map(entriesOf(grown)))
    assert.isTrue(Equal.equals(grown, flat))
    const extra = Context.makeUnsafe<never>(new Map([["test/EffectContextPatch/Runtime1", "merged"]]))
    assert.deepStrictEqual(entriesOf(Context.merge(grown, extra)), entriesOf(Context.merge(flat, extra)))
    const picked = Context.Service<never, string>("test/EffectContextPatch/Request29")
    const dropped = Context.Service<never, string>("test/EffectContextPatch/Runtime0")
    assert.deepStrictEqual(entriesOf(Context.pick(picked, dropped)(grown)), [
      ["test/EffectContextPatch/Request29", "Request 29"],
      ["test/EffectContextPatch/Runtime0", "built 0"],
    ])
    assert.deepStrictEqual(entriesOf(Context.omit(dropped)(grown)), entriesOf(Context.omit(dropped)(flat)))
  })
})

describe("a context of many services rebased past its overlays", () => {
  it("keeps the runtime's map beneath the added services instead of copying it", () => {
    const runtime = runtimeOf(100)
    const grown = addEach(runtime, 20, "Request") as unknown as { readonly base: { readonly lower?: unknown } }
    // The patch's internals: the base of a rebased context is a layered map over the runtime's own map.
    assert.strictEqual(grown.base.lower, runtime.mapUnsafe)
  })
})

describe("a rebased context holding a service whose value is undefined", () => {
  it("answers that service as present and undefined, hiding the runtime's value", () => {
    const runtime = runtimeOf(100)
    const hidden = Context.Service<never, string | undefined>("test/EffectContextPatch/Runtime5")
    const grown = addEach(Context.add(addEach(runtime, 8, "Request"), hidden, undefined), 20, "Later")
    assert.deepStrictEqual(Context.getOption(grown, hidden), Option.some(undefined))
    assert.deepInclude(entriesOf(grown), ["test/EffectContextPatch/Runtime5", undefined])
    assert.strictEqual(Context.getUnsafe(runtime, hidden), "built 5")
  })
})
