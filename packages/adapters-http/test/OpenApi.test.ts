/**
 * The OpenAPI document (GET /openapi.json) against the interface: it is a
 * valid OpenAPI 3.1 document, it lists every method + path of the endpoint
 * table of the interface (parsed from the spec file at test time, so it
 * cannot drift), it documents the error statuses and the JWT bearer scheme.
 * As an API reference (OpenApiReference.ts): examples that validate against
 * their schemas, formats, descriptions, error codes, servers and webhooks;
 * each test names the operation or property that misses something.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { bearer, makeServer, partnerToken, send } from "./fixtures.ts"

/** The interface, as committed in docs/ (PARTNERPAY_SPEC names another copy, e.g. ../shared/spec/partner-interface.md). */
const specPath =
  process.env.PARTNERPAY_SPEC ?? fileURLToPath(new URL("../../../docs/partner-interface.md", import.meta.url))

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

  it.effect("every 429 and 503 answer declares its Retry-After header (seconds)", () =>
    Effect.gen(function* () {
      const doc = yield* fetchDoc
      const missing: Array<string> = []
      let declared = 0
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, operation] of Object.entries(item))
          for (const status of ["429", "503"]) {
            const response = operation.responses?.[status] as
              | { readonly headers?: Record<string, { readonly schema?: { readonly type?: string } }> }
              | undefined
            if (response === undefined) continue
            if (response.headers?.["Retry-After"]?.schema?.type === "integer") declared++
            else missing.push(`${status} of ${method} ${path}`)
          }
      assert.deepStrictEqual(missing, [])
      assert.isAbove(declared, 0)
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
        // A map (metadata: additionalProperties is the values' schema) is closed by design; an object is open
        // when additionalProperties is absent or true.
        const additional = node.additionalProperties
        if (node.type === "object" && (additional === undefined || additional === true)) open.push(where)
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

// ---------------------------------------------------------------------------
// The API reference

type Json = { [key: string]: unknown }
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Ajv (draft 2020-12, OpenAPI 3.1's dialect), as installed with swagger-parser. */
const Ajv2020 = createRequire(createRequire(import.meta.url).resolve("@apidevtools/swagger-parser"))("ajv/dist/2020")
  .default as new (
  options: object,
) => {
  addFormat: (name: string, format: RegExp | ((s: string) => boolean)) => void
  compile: (schema: object) => ((data: unknown) => boolean) & { errors?: unknown }
}

/** The formats the service requires, as it checks them (ids are UUIDs, answered in lower case). */
const formatChecks: Record<string, RegExp | ((s: string) => boolean)> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  date: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
  "date-time": (s) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/,
  uri: /^https?:\/\/\S+$/,
  binary: () => true,
}

const validator = (doc: Json) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  for (const [name, check] of Object.entries(formatChecks)) ajv.addFormat(name, check)
  return (schema: unknown, value: unknown): string | undefined => {
    const validate = ajv.compile({ ...(schema as object), components: doc.components })
    return validate(value) ? undefined : JSON.stringify(validate.errors)
  }
}

const methods = ["get", "put", "post", "delete", "patch", "head"]

/** Every operation as `METHOD /path` with its object. */
const operationsOf = (doc: Json): Array<[string, Json]> => {
  const out: Array<[string, Json]> = []
  for (const [path, item] of Object.entries(doc.paths as Json))
    for (const [method, operation] of Object.entries(item as Json))
      if (methods.includes(method) && isObject(operation)) out.push([`${method.toUpperCase()} ${path}`, operation])
  return out
}

const jsonContent = (holder: unknown): Json | undefined => {
  const media = isObject(holder) && isObject(holder.content) ? holder.content["application/json"] : undefined
  return isObject(media) && media.schema !== undefined ? media : undefined
}

/** Every JSON request body and 2xx JSON response: `where` names the operation and the slot. */
const payloadsOf = (doc: Json): Array<{ where: string; media: Json }> => {
  const out: Array<{ where: string; media: Json }> = []
  for (const [name, operation] of operationsOf(doc)) {
    const body = jsonContent(operation.requestBody)
    if (body !== undefined) out.push({ where: `${name} request body`, media: body })
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Json)) {
      const media = status.startsWith("2") ? jsonContent(response) : undefined
      if (media !== undefined) out.push({ where: `${name} ${status} response`, media })
    }
  }
  for (const [event, item] of Object.entries((doc.webhooks ?? {}) as Json)) {
    const body = jsonContent((item as Json).post && ((item as Json).post as Json).requestBody)
    if (body !== undefined) out.push({ where: `webhook ${event} body`, media: body })
  }
  return out
}

/** Visits every property of a schema (following $refs once): `where` is a dotted path. */
const visitProperties = (
  doc: Json,
  schema: unknown,
  where: string,
  visit: (where: string, property: Json) => void,
  seen = new Set<unknown>(),
): void => {
  if (!isObject(schema) || seen.has(schema)) return
  seen.add(schema)
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace("#/components/schemas/", "")
    visitProperties(doc, ((doc.components as Json).schemas as Json)[name], `${where}(${name})`, visit, seen)
    return
  }
  if (isObject(schema.properties))
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!isObject(property)) continue
      visit(`${where}.${name}`, property)
      visitProperties(doc, property, `${where}.${name}`, visit, seen)
    }
  for (const key of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(schema[key]))
      for (const member of schema[key] as Array<unknown>) visitProperties(doc, member, where, visit, seen)
  if (schema.items !== undefined) visitProperties(doc, schema.items, `${where}[]`, visit, seen)
  if (isObject(schema.additionalProperties))
    visitProperties(doc, schema.additionalProperties, `${where}{}`, visit, seen)
}

/** Every schema of the document: request bodies, responses (errors included), parameters and webhooks. */
const schemasOf = (doc: Json): Array<{ where: string; schema: unknown }> => {
  const out: Array<{ where: string; schema: unknown }> = []
  for (const [name, operation] of operationsOf(doc)) {
    for (const [type, media] of Object.entries(((operation.requestBody as Json | undefined)?.content ?? {}) as Json))
      out.push({ where: `${name} request body (${type})`, schema: (media as Json).schema })
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Json))
      for (const [type, media] of Object.entries(((response as Json).content ?? {}) as Json))
        out.push({ where: `${name} ${status} response (${type})`, schema: (media as Json).schema })
  }
  for (const { where, media } of payloadsOf(doc))
    if (where.startsWith("webhook")) out.push({ where, schema: media.schema })
  return out
}

const fetchReference = Effect.map(fetchDoc, (doc) => doc as unknown as Json)

describe("GET /openapi.json as an API reference", () => {
  it.effect("every JSON request body and 2xx JSON response has an example that validates against its schema", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const check = validator(doc)
      const payloads = payloadsOf(doc)
      assert.isAtLeast(payloads.length, 60)
      const missing = payloads.filter(({ media }) => media.example === undefined).map(({ where }) => where)
      assert.deepStrictEqual(missing, [], `without an example: ${missing.join(", ")}`)
      const invalid = payloads.flatMap(({ where, media }) => {
        const error = check(media.schema, media.example)
        return error === undefined ? [] : [`${where}: ${error}`]
      })
      assert.deepStrictEqual(invalid, [], `examples that do not match their schema:\n${invalid.join("\n")}`)
    }),
  )

  it.effect("has no NaN or Infinity anywhere (amounts and counts are finite numbers)", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const found: Array<string> = []
      const visit = (value: unknown, where: string): void => {
        if (typeof value === "string" && /^-?(NaN|Infinity)$/.test(value)) found.push(where)
        else if (Array.isArray(value)) for (const [i, v] of value.entries()) visit(v, `${where}[${i}]`)
        else if (isObject(value)) for (const [k, v] of Object.entries(value)) visit(v, `${where}.${k}`)
      }
      visit(doc, "$")
      assert.deepStrictEqual(found, [], `non-finite values at: ${found.join(", ")}`)
    }),
  )

  it.effect("ids are uuid, calendar dates date, instants date-time, e-mail addresses email", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const expected: Record<string, string> = {
        companyId: "uuid",
        paymentRequestId: "uuid",
        payerRegistrationId: "uuid",
        registrationId: "uuid",
        transferId: "uuid",
        bankAccountId: "uuid",
        debitAuthId: "uuid",
        paymentPlanId: "uuid",
        consentId: "uuid",
        cardPaymentId: "uuid",
        locationId: "uuid",
        CompanyId: "uuid",
        dueDate: "date",
        startDate: "date",
        endDate: "date",
        nextDueDate: "date",
        createdAt: "date-time",
        acceptedAt: "date-time",
        collectedAt: "date-time",
        timestamp: "date-time",
        expiresAt: "date-time",
        emailAddress: "email",
      }
      const wrong: Array<string> = []
      let checked = 0
      const formatOf = (property: Json): unknown =>
        property.format ??
        (Array.isArray(property.anyOf)
          ? (property.anyOf as Array<Json>).find((m) => m.type === "string")?.format
          : undefined)
      for (const { where, schema } of schemasOf(doc))
        visitProperties(doc, schema, where, (at, property) => {
          const name = at.slice(at.lastIndexOf(".") + 1)
          const format = expected[name]
          const isString =
            property.type === "string" ||
            (Array.isArray(property.anyOf) && (property.anyOf as Array<Json>).some((m) => m.type === "string"))
          // a removed field (CardPaymentApi) has no type: any value is refused
          if (format === undefined || !isString) return
          checked++
          if (formatOf(property) !== format) wrong.push(`${at}: ${String(formatOf(property))} instead of ${format}`)
        })
      for (const [name, operation] of operationsOf(doc))
        for (const parameter of (operation.parameters ?? []) as Array<Json>) {
          const format = expected[String(parameter.name)]
          if (format === undefined) continue
          checked++
          if ((parameter.schema as Json).format !== format) wrong.push(`${name} parameter ${String(parameter.name)}`)
        }
      assert.isAtLeast(checked, 100)
      assert.deepStrictEqual(wrong, [], `missing or wrong formats:\n${wrong.join("\n")}`)
    }),
  )

  it.effect("every property of every request, response and webhook schema has a description", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const undescribed = new Set<string>()
      let visited = 0
      for (const { where, schema } of schemasOf(doc))
        visitProperties(doc, schema, where, (at, property) => {
          visited++
          if (typeof property.description !== "string" || property.description === "") undescribed.add(at)
        })
      assert.isAtLeast(visited, 500)
      assert.deepStrictEqual([...undescribed], [], `properties without a description:\n${[...undescribed].join("\n")}`)
    }),
  )

  it.effect("every operation lists its error codes (x-error-codes, and each error response's description)", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const problems: Array<string> = []
      for (const [name, operation] of operationsOf(doc)) {
        const codes = operation["x-error-codes"]
        if (!Array.isArray(codes) || codes.length === 0) {
          problems.push(`${name}: no x-error-codes`)
          continue
        }
        for (const code of ["UNAUTHORIZED", "RATE_LIMITED"])
          if (name !== "POST /auth/token" && !codes.includes(code)) problems.push(`${name}: ${code} not listed`)
        for (const [status, response] of Object.entries((operation.responses ?? {}) as Json)) {
          if (!/^[45]/.test(status)) continue
          const description = String((response as Json).description)
          if (!/Codes: [A-Z_]+/.test(description)) problems.push(`${name} ${status}: description lists no code`)
          for (const code of /Codes: (.*)$/.exec(description)?.[1]?.split(", ") ?? [])
            if (!codes.includes(code)) problems.push(`${name} ${status}: ${code} not in x-error-codes`)
        }
      }
      assert.deepStrictEqual(problems, [], problems.join("\n"))
    }),
  )

  it.effect("operations with their own business rules list those codes", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const operation = (path: string, method: string) =>
        (doc.paths as Record<string, Record<string, Json>>)[path]?.[method]
      assert.include(
        operation("/Transaction/{transferId}/Refund", "post")?.["x-error-codes"] as Array<string>,
        "NOTHING_TO_REFUND",
      )
      assert.include(
        operation("/Company/Create", "post")?.["x-error-codes"] as Array<string>,
        "DUPLICATE_COMPANY_REFERENCE",
      )
      assert.include(operation("/Login/CheckOtp", "put")?.["x-error-codes"] as Array<string>, "OTP_EXPIRED")
      assert.include(operation("/Payment/Create", "post")?.["x-error-codes"] as Array<string>, "IDEMPOTENCY_KEY_REUSED")
    }),
  )

  it.effect("lists a server", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const servers = doc.servers as Array<{ url: string; description?: string }>
      assert.isAtLeast(servers.length, 1)
      assert.strictEqual(servers[0]?.url, "/")
    }),
  )

  it.effect("webhooks: the three outgoing events, with their payload and signature headers", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      const webhooks = doc.webhooks as Record<string, { post: Json }>
      const problems: Array<string> = []
      for (const event of [
        "COMPANY_VERIFICATION_STATUS_CHANGED",
        "PAYMENT_REQUEST_STATUS_CHANGED",
        "PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED",
      ]) {
        const post = webhooks[event]?.post
        if (post === undefined) {
          problems.push(`${event}: missing`)
          continue
        }
        const headers = ((post.parameters ?? []) as Array<Json>).filter((p) => p.in === "header").map((p) => p.name)
        for (const header of ["X-HMAC-Signature", "X-Partnerpay-Signature", "X-Partnerpay-Event-Id"])
          if (!headers.includes(header)) problems.push(`${event}: header ${header} not documented`)
        const schema = jsonContent(post.requestBody)?.schema as Json | undefined
        const properties = (schema?.properties ?? {}) as Json
        for (const field of ["Live", "Event", "Data"])
          if (properties[field] === undefined) problems.push(`${event}: envelope field ${field} missing`)
        const example = jsonContent(post.requestBody)?.example as Json | undefined
        if (example?.Event !== event) problems.push(`${event}: example names another event`)
      }
      assert.deepStrictEqual(problems, [], problems.join("\n"))
    }),
  )

  it.effect("the inbound HEAD probes are provider callbacks, not webhooks", () =>
    Effect.gen(function* () {
      const doc = yield* fetchReference
      for (const path of ["/SaleProviderWebhook/ReceiveSaleEvent", "/BankLinkWebhook/UpdateItem"]) {
        const tags = ((doc.paths as Record<string, Record<string, Json>>)[path]?.head?.tags ?? []) as Array<string>
        assert.deepStrictEqual(tags, ["Provider callbacks"], `HEAD ${path}`)
      }
    }),
  )
})

describe("an amount on the wire", () => {
  it.effect('"NaN" as a string is a 400 naming the field', () =>
    Effect.gen(function* () {
      const token = yield* partnerToken(handler)
      const r = yield* send(handler, "/Payment/Create", {
        method: "POST",
        headers: { ...(bearer(token).headers as Record<string, string>), "content-type": "application/json" },
        body: JSON.stringify({
          companyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
          payerRegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
          amount: { value: "NaN", currencyCode: "USD" },
          description: "Invoice 118",
          dueDate: "2099-12-01",
        }),
      })
      assert.strictEqual(r.status, 400, r.text)
      const fields = (r.json as { errors: Array<{ field: string }> }).errors.map((e) => e.field)
      assert.include(fields, "amount.value")
    }),
  )
})
