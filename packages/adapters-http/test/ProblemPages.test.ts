/**
 * Every problem `type` has a served documentation page (`GET /docs/problems/{slug}`) naming the type, its
 * HTTP status, what it means, what to do and its codes; a fixed code finds its type's page too. Since API
 * version 2026-11-28 the `type` is that page's path, so it dereferences (resolved against the request URI);
 * older versions keep the identifier `https://partnerpay.dev/problems/{slug}`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import * as ApiVersions from "../src/cross-cutting/ApiVersions.ts"
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

  it.effect("dereferences every problem type of the catalogue, resolved against a request's URI, to its page", () =>
    Effect.gen(function* () {
      // Every class, and every code the pages list (a code is answered with its page's type).
      const answered = [
        ...instances.map((problem) => ({ type: problem.type, code: undefined as string | undefined })),
        ...Object.entries(ProblemPages.pages).flatMap(([slug, page]) =>
          page.codes.map((code) => ({ type: `${Problem.typeBase}${slug}`, code })),
        ),
      ]
      for (const { type, code } of answered) {
        const resolved = new URL(type, "http://partnerpay.example/Payment/8c2f4e6a-1b3d-4f5a-9c7e-2d4f6a8b0c1e")
        assert.strictEqual(resolved.origin, "http://partnerpay.example", type)
        const r = yield* send(handler, resolved.pathname)
        assert.strictEqual(r.status, 200, type)
        assert.include(r.text, `\`${type}\``)
        if (code !== undefined) assert.include(r.text, `\`${code}\``)
      }
    }),
  )

  it.effect("dereferences every problem type the OpenAPI document declares", () =>
    Effect.gen(function* () {
      const doc = (yield* send(handler, "/openapi.json")).json as {
        components: { schemas: Record<string, { properties?: Record<string, { const?: unknown; enum?: unknown }> }> }
      }
      const types = Object.values(doc.components.schemas).flatMap((schema) => {
        const type = schema.properties?.type
        const values = type?.const !== undefined ? [type.const] : Array.isArray(type?.enum) ? type.enum : []
        return values.filter((v): v is string => typeof v === "string" && v.startsWith(Problem.typeBase))
      })
      const known = new Set<string>(instances.map((problem) => problem.type))
      assert.isAbove(types.length, 10)
      for (const type of types) assert.isTrue(known.has(type), type)
      for (const type of types) {
        const r = yield* send(handler, new URL(type, "http://partnerpay.example/Company/Create").pathname)
        assert.strictEqual(r.status, 200, type)
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

describe("a problem answer in the latest API version", () => {
  it.effect("has as type the path of its page, which the type resolves to against the request URI", () =>
    Effect.gen(function* () {
      const url = "/company/status?companyId=x"
      const r = yield* send(handler, url)
      assert.strictEqual(r.status, 401)
      assert.strictEqual(r.headers.get("partnerpay-version"), ApiVersions.latest)
      const type = (r.json as { type: string }).type
      assert.strictEqual(type, "/docs/problems/unauthorized")
      const page = yield* send(handler, new URL(type, `http://partnerpay.example${url}`).pathname)
      assert.strictEqual(page.status, 200)
      assert.include(page.text, "# 401 Unauthorized")
    }),
  )
})

describe("a problem answer in a version before 2026-11-28", () => {
  it.effect("keeps the type it had then (the identifier under https://partnerpay.dev/problems/)", () =>
    Effect.gen(function* () {
      for (const version of ["2026-11-25", "2026-11-26"]) {
        const r = yield* send(handler, "/no/such/route", { headers: { "partnerpay-version": version } })
        assert.strictEqual(r.status, 404)
        assert.strictEqual(r.headers.get("partnerpay-version"), version)
        assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
        assert.deepInclude(r.json as object, {
          type: "https://partnerpay.dev/problems/not-found",
          code: "ROUTE_NOT_FOUND",
          status: 404,
        })
        // The page is still linked, and names the type that version answers.
        assert.strictEqual(r.headers.get("link"), '</docs/problems/not-found>; rel="help"')
        const page = yield* send(handler, "/docs/problems/not-found")
        assert.include(page.text, "https://partnerpay.dev/problems/not-found")
      }
    }),
  )

  it.effect("keeps it on a refusal made by a route's handler and on one made before the route", () =>
    Effect.gen(function* () {
      const old = { "partnerpay-version": "2026-11-26" }
      const unauthorized = yield* send(handler, "/company/status?companyId=x", { headers: old })
      assert.strictEqual((unauthorized.json as { type: string }).type, "https://partnerpay.dev/problems/unauthorized")
      const tooLarge = yield* send(handler, "/Company/Create", {
        method: "POST",
        headers: { ...old, "content-type": "application/json", "content-length": String(2 * 1024 * 1024) },
        body: "x".repeat(2 * 1024 * 1024),
      })
      assert.strictEqual(tooLarge.status, 413)
      assert.strictEqual((tooLarge.json as { type: string }).type, "https://partnerpay.dev/problems/payload-too-large")
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
