/**
 * The names of `Object.prototype`'s members (`__proto__`, `constructor`,
 * `toString`, `hasOwnProperty`, `valueOf`) are field names like any other: a
 * body carrying one that its operation does not define is a 400 naming it, on
 * every operation of the OpenAPI document (the strictly decoded bodies and
 * the company bodies checked against their documented shapes alike), and
 * nothing is registered.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { partnerId, send } from "./fixtures.ts"
import { customerToken, makeSharedServer, partnerTokenFor } from "./partyFixtures.ts"

const { handler, dispose } = await makeSharedServer()
afterAll(dispose)

const partner = await Effect.runPromise(partnerTokenFor(partnerId))
const customer = await Effect.runPromise(customerToken(partnerId, "7e57ab1e-0000-4000-8000-0000000000d1" as never))

const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"] as const

/** `{"<name>": <value>}` as JSON text (an object literal cannot hold an own `__proto__`). */
const bodyWith = (name: string, value: string) => `{${JSON.stringify(name)}:${value}}`

const fieldsOf = (json: unknown): ReadonlyArray<string> =>
  ((json as { errors?: ReadonlyArray<{ field: string }> }).errors ?? []).map((e) => e.field)

const post = (path: string, method: string, body: string, token: string) =>
  send(handler, path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  })

interface Operation {
  readonly method: string
  readonly path: string
}

/** Every operation of the OpenAPI document that takes a JSON body, with its path ids filled in. */
const operationsWithBody = Effect.gen(function* () {
  const doc = (yield* send(handler, "/openapi.json")).json as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>
  }
  const out: Array<Operation> = []
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(item))
      if (operation.requestBody?.content?.["application/json"] !== undefined)
        out.push({
          method: method.toUpperCase(),
          path: path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000001"),
        })
  return out
})

describe("a body field named after an Object.prototype member", () => {
  for (const name of names) {
    it.effect(`${name} is refused as an unknown field on every operation with a body`, () =>
      Effect.gen(function* () {
        const operations = yield* operationsWithBody
        assert.isAtLeast(operations.length, 20)
        const accepted: Array<string> = []
        for (const { method, path } of operations) {
          for (const value of ["1", '{"x":1}']) {
            let r = yield* post(path, method, bodyWith(name, value), partner)
            if (r.status === 403) r = yield* post(path, method, bodyWith(name, value), customer)
            if (r.status !== 400 || !fieldsOf(r.json).includes(name))
              accepted.push(`${method} ${path} ${value}: ${r.status} ${r.text.slice(0, 160)}`)
          }
        }
        assert.deepStrictEqual(accepted, [])
      }),
    )
  }

  it.effect("inside the company owner and a location, each is named by its dotted path", () =>
    Effect.gen(function* () {
      const body = `{"owner":${bodyWith("constructor", "1")},"locations":[${bodyWith("__proto__", '{"a":1}')}]}`
      const r = yield* post("/Company/Create", "POST", body, partner)
      assert.strictEqual(r.status, 400, r.text)
      assert.includeMembers([...fieldsOf(r.json)], ["owner.constructor", "locations[0].__proto__"])
    }),
  )
})
