/**
 * NUL (U+0000) is refused at the edge: PostgreSQL text and jsonb cannot store
 * it, so an id, query or body field holding it must be a 400 problem, never
 * a database error surfacing as a 503 (found by the fault suite).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { containsNul } from "../src/CrossCutting.ts"
import { bearer, makeServer, partnerToken, send } from "./fixtures.ts"

const { handler, dispose } = makeServer()
afterAll(async () => {
  await dispose()
})

const bytes = (text: string) => new TextEncoder().encode(text)

describe("a NUL character anywhere in a request", () => {
  it("is found raw or as a JSON escape, but not in an escaped backslash followed by u0000", () => {
    assert.isTrue(containsNul(bytes('{"a":"x\u0000y"}')))
    assert.isTrue(containsNul(bytes(String.raw`{"a":"x\u0000y"}`)))
    assert.isTrue(containsNul(bytes(String.raw`{"a":"x\\\u0000y"}`)))
    assert.isFalse(containsNul(bytes(String.raw`{"a":"x\\u0000y"}`)))
    assert.isFalse(containsNul(bytes(String.raw`{"a":"x\u0001y"}`)))
  })

  it.effect("in a path id, a query parameter or a JSON body field is a 400 problem naming where", () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const auth = bearer(token).headers
      const cases = [
        { path: "/Company/%00/Locations", method: "POST", body: "{}", field: "path" },
        { path: "/company/status?companyReferenceId=%00", method: "GET", body: undefined, field: "path" },
        { path: "/Company/Create", method: "POST", body: String.raw`{"companyReferenceId":"a\u0000b"}`, field: "body" },
      ] as const
      for (const c of cases) {
        const r = yield* send(handler, c.path, {
          method: c.method,
          headers: { ...auth, "content-type": "application/json" },
          ...(c.body === undefined ? {} : { body: c.body }),
        })
        assert.strictEqual(r.status, 400, `${c.method} ${c.path}`)
        assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
        assert.deepStrictEqual((r.json as { errors: Array<{ field: string }> }).errors[0]?.field, c.field)
      }
    }),
  )
})
