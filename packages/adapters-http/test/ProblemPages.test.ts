/**
 * Every problem `type` has a served documentation page (`GET /docs/problems/{slug}`) naming the type, its
 * HTTP status, what it means, what to do and its codes; a fixed code finds its type's page too.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import * as Problem from "../src/cross-cutting/Problem.ts"
import * as ProblemPages from "../src/cross-cutting/ProblemPages.ts"
import { makeServer, send } from "./fixtures.ts"

const { handler, dispose } = makeServer()
afterAll(() => dispose())

/** One instance of each problem class (the fields every class may need; the extra ones are ignored). */
const instances = Problem.all.map(
  // biome-ignore lint/suspicious/noExplicitAny: each class with the union of the problems' fields
  (C) => new (C as any)({ detail: "d", code: "C", errors: [], allow: [], retryAfterSeconds: 1 }) as Problem.Problem,
)

describe("the problem documentation", () => {
  it.effect("serves a page for every problem type, naming its type URI, status and title", () =>
    Effect.gen(function* () {
      assert.strictEqual(instances.length, Problem.all.length)
      for (const problem of instances) {
        const slug = ProblemPages.slugOf(problem.type)
        const r = yield* send(handler, `/docs/problems/${slug}`)
        assert.strictEqual(r.status, 200, slug)
        assert.match(r.headers.get("content-type") ?? "", /^text\/markdown/)
        assert.include(r.text, problem.type)
        assert.include(r.text, `# ${problem.status} ${problem.title}`)
        assert.include(r.text, "## What it means")
        assert.include(r.text, "## What to do")
      }
    }),
  )

  it.effect("has a page only for types the problems use (the table has no stale entry)", () =>
    Effect.sync(() => {
      const used = new Set(instances.map((problem) => ProblemPages.slugOf(problem.type)))
      assert.deepStrictEqual(Object.keys(ProblemPages.pages).sort(), [...used].sort())
      for (const problem of instances)
        assert.strictEqual(ProblemPages.pages[ProblemPages.slugOf(problem.type)]!.status, problem.status)
    }),
  )

  it.effect("finds a type's page by one of its codes", () =>
    Effect.gen(function* () {
      for (const [slug, page] of Object.entries(ProblemPages.pages))
        for (const code of page.codes) {
          const r = yield* send(handler, `/docs/problems/${code}`)
          assert.strictEqual(r.status, 200, code)
          assert.include(r.text, `${Problem.typeBase}${slug}`)
          assert.include(r.text, `\`${code}\``)
        }
    }),
  )

  it.effect("lists every type on its index", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/docs/problems")
      assert.strictEqual(r.status, 200)
      for (const slug of Object.keys(ProblemPages.pages)) assert.include(r.text, `/docs/problems/${slug}`)
    }),
  )

  it.effect("answers an unknown type with a 404 problem", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/docs/problems/no-such-type")
      assert.strictEqual(r.status, 404)
      assert.strictEqual((r.json as { code: string }).code, "ROUTE_NOT_FOUND")
    }),
  )

  it.effect("answers another method on a page with 405 and Allow", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/docs/problems/not-found", { method: "POST" })
      assert.strictEqual(r.status, 405)
      assert.strictEqual(r.headers.get("allow"), "GET, HEAD")
    }),
  )
})

describe("a problem answer", () => {
  it.effect("links the page documenting its type (Link rel=help), which resolves", () =>
    Effect.gen(function* () {
      const r = yield* send(handler, "/no/such/route")
      assert.strictEqual(r.status, 404)
      const link = r.headers.get("link") ?? ""
      assert.strictEqual(link, '</docs/problems/not-found>; rel="help"')
      const page = yield* send(handler, link.slice(1, link.indexOf(">")))
      assert.strictEqual(page.status, 200)
      assert.include(page.text, (r.json as { type: string }).type)
    }),
  )
})
