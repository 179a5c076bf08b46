/**
 * The OpenAPI document (GET /openapi.json) against the interface: it is a
 * valid OpenAPI 3.1 document, it lists every method + path of the endpoint
 * table of the interface (parsed from the spec file at test time, so it
 * cannot drift), it documents the error statuses and the JWT bearer scheme.
 */
import { readFileSync } from "node:fs"
import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { makeServer, send } from "./fixtures.ts"

const specPath = process.env.PARTNERPAY_SPEC ?? "/work/shared/spec/partner-interface.md"

/** `| METHOD | /path | ... |` rows of section 4 of the interface. */
export const specEndpoints = (): ReadonlyArray<{ method: string; path: string }> => {
  const text = readFileSync(specPath, "utf8")
  const start = text.indexOf("## 4. Endpoints")
  const end = text.indexOf("\n## 5.", start)
  const section = text.slice(start, end === -1 ? undefined : end)
  const rows: Array<{ method: string; path: string }> = []
  for (const line of section.split("\n")) {
    const match = /^\|\s*(GET|POST|PUT|DELETE|HEAD|PATCH)\s*\|\s*(\/\S*)\s*\|/.exec(line)
    if (match?.[1] !== undefined && match[2] !== undefined)
      rows.push({ method: match[1].toLowerCase(), path: match[2] })
  }
  return rows
}

const { handler, dispose } = makeServer()
afterAll(async () => {
  await dispose()
})

type Doc = {
  openapi: string
  paths: Record<
    string,
    Record<string, { responses?: Record<string, unknown>; parameters?: Array<{ name: string; in: string }> }>
  >
  components: { securitySchemes: Record<string, { type: string; scheme?: string; bearerFormat?: string }> }
}

const fetchDoc = Effect.map(send(handler, "/openapi.json"), (r) => {
  assert.strictEqual(r.status, 200)
  return r.json as Doc
})

describe("GET /openapi.json", () => {
  it.effect("is a valid OpenAPI 3.1 document (swagger-parser)", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDoc
      assert.match(doc.openapi, /^3\.1/)
      yield* Effect.promise(() => SwaggerParser.validate(structuredClone(doc) as never))
    }),
  )

  it("the spec's endpoint table is parsed (guards the parser itself)", () => {
    const rows = specEndpoints()
    assert.isAtLeast(rows.length, 25)
    assert.deepInclude(rows, { method: "post", path: "/auth/token" })
    assert.deepInclude(rows, { method: "put", path: "/Payment/{paymentRequestId}/Cancel" })
  })

  it.effect("lists every method + path of the interface's endpoint table (section 4)", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDoc
      const missing = specEndpoints()
        .filter(({ method, path }) => doc.paths[path]?.[method] === undefined)
        .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      assert.deepStrictEqual(missing, [], `operations of the interface missing from the API: ${missing.join(", ")}`)
    }),
  )

  it.effect("documents every error status: 400, 401, 403, 404, 409, 422, 429, 500, 503", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDoc
      const statuses = new Set<string>()
      for (const item of Object.values(doc.paths))
        for (const operation of Object.values(item))
          for (const s of Object.keys(operation.responses ?? {})) statuses.add(s)
      const absent = ["400", "401", "403", "404", "409", "422", "429", "500", "503"].filter((s) => !statuses.has(s))
      assert.deepStrictEqual(absent, [])
    }),
  )

  it.effect("every operation documents 429; authenticated ones 401 and 403", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDoc
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, operation] of Object.entries(item)) {
          const responses = operation.responses ?? {}
          assert.property(responses, "429", `${method} ${path}`)
          if (path !== "/auth/token") {
            assert.property(responses, "401", `${method} ${path}`)
          }
        }
    }),
  )

  it.effect("every request body object, at any depth, says additionalProperties: false", () =>
    Effect.gen(function* () {
      const doc = (yield* fetchDoc) as unknown as {
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>
        components: { schemas?: Record<string, unknown> }
      }
      const open: Array<string> = []
      const seen = new Set<unknown>()
      const visit = (schema: unknown, where: string): void => {
        if (typeof schema !== "object" || schema === null || seen.has(schema)) return
        seen.add(schema)
        const node = schema as Record<string, unknown>
        if (typeof node.$ref === "string") {
          const name = node.$ref.replace("#/components/schemas/", "")
          visit(doc.components.schemas?.[name], `${where} -> ${name}`)
          return
        }
        if (node.type === "object" && node.additionalProperties !== false) open.push(where)
        for (const [key, value] of Object.entries(node)) {
          if (key === "properties" && typeof value === "object" && value !== null) {
            for (const [name, property] of Object.entries(value)) visit(property, `${where}.${name}`)
          } else if (Array.isArray(value)) {
            for (const [i, item] of value.entries()) visit(item, `${where}.${key}[${i}]`)
          } else if (key === "items" || key === "additionalProperties") visit(value, `${where}.${key}`)
        }
      }
      let bodies = 0
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, operation] of Object.entries(item)) {
          const schema = operation.requestBody?.content["application/json"]?.schema
          if (schema === undefined) continue
          bodies++
          visit(schema, `${method.toUpperCase()} ${path}`)
        }
      assert.isAtLeast(bodies, 20)
      assert.deepStrictEqual(open, [], `request bodies accepting unknown fields: ${open.join(", ")}`)
    }),
  )

  it.effect("every POST except /auth/token documents the Idempotency-Key header", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDoc
      for (const [path, item] of Object.entries(doc.paths)) {
        const post = item.post
        if (post === undefined) continue
        const header = (post.parameters ?? []).find((p) => p.in === "header" && p.name === "Idempotency-Key")
        if (path === "/auth/token") assert.isUndefined(header)
        else assert.isDefined(header, path)
      }
    }),
  )

  it.effect("the bearer security scheme is HTTP bearer with bearerFormat JWT", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDoc
      const schemes = Object.values(doc.components.securitySchemes)
      assert.isTrue(
        schemes.some((s) => s.type === "http" && s.scheme?.toLowerCase() === "bearer" && s.bearerFormat === "JWT"),
      )
    }),
  )
})
