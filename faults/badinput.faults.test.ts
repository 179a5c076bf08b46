/**
 * Scenario 4, bad input: for every operation of GET /openapi.json, 20
 * generated requests that are invalid by construction: non-JSON and
 * non-object bodies, truncated and 10 000-deep JSON, invalid UTF-8, a 2 MiB
 * body, odd or missing Content-Types, objects where one property (rotating)
 * has a type its schema excludes while the others carry huge strings, SQL
 * metacharacters, path traversal or control characters, and malformed ids
 * in the path (traversal, SQL, 5 000 characters, encoded NUL). Then text
 * PostgreSQL cannot store (`unstorable.ts`): every string field of every
 * documented example body in turn holds a lone surrogate (`\ud800`,
 * `\udc00`, `\ud800\u0041`) or NUL, and every path id and query parameter
 * percent-encoded invalid UTF-8 (`%ED%A0%80`) or `%00`; each must be a 400
 * naming that field. Checks: zero 5xx, every 4xx is problem+json, and the
 * stored state does not change (row counts of events, streams, read_models
 * and outbox before and after).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import {
  type Answer,
  call,
  freshDatabase,
  isProblem,
  killAll,
  partnerToken,
  psql,
  serviceEnv,
  sleep,
  start,
  summary,
  tally,
  tempDir,
} from "./support.ts"
import { unstorableRequests } from "./unstorable.ts"

const clientId = "faults-badinput-client"
const clientSecret = "faults-badinput-secret-0123456789"
const perOperation = 20

afterAll(() => killAll())

type Schema = {
  type?: string | Array<string>
  properties?: Record<string, Schema>
  anyOf?: Array<Schema>
  $ref?: string
  required?: Array<string>
  items?: Schema
  enum?: Array<unknown>
}
interface Operation {
  readonly method: string
  readonly path: string
  readonly pathParams: Array<string>
  readonly queryParams: Array<string>
  readonly body: Schema | undefined
  /** The documented example of the JSON body. */
  readonly example: unknown
}

const nasty = [
  "x".repeat(300_000),
  "' OR '1'='1'; DROP TABLE events; --",
  "../../../../etc/passwd",
  "\u0000\u0001\u001f\ud800",
  "\udc00 low surrogate first",
  "Robert'); DELETE FROM read_models;--",
  "$" + "{jndi:ldap://127.0.0.1/a}",
  "%00%2e%2e%2f",
  "\u202e\ufeff🙂",
]
const badIds = [
  "..%2F..%2Fopenapi.json",
  "..",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "1'%20OR%20'1'%3D'1",
  "x".repeat(5000),
  "%00",
  "00000000-0000-0000-0000-00000000000g",
  "%FF%FE",
  "-1",
  "NaN",
]

/** JSON types a schema admits ("any" when it does not say). */
const typesOf = (schema: Schema | undefined, root: unknown): Set<string> => {
  const s = resolve(schema, root)
  if (s === undefined) return new Set(["any"])
  if (s.anyOf !== undefined) return new Set(s.anyOf.flatMap((x) => [...typesOf(x, root)]))
  if (s.type === undefined) return new Set(s.properties !== undefined ? ["object"] : ["any"])
  const types = Array.isArray(s.type) ? s.type : [s.type]
  return new Set(types.flatMap((t) => (t === "integer" ? ["number"] : [t])))
}
const resolve = (schema: Schema | undefined, root: unknown): Schema | undefined => {
  if (schema?.$ref === undefined) return schema
  const parts = schema.$ref.replace(/^#\//, "").split("/")
  let node: unknown = root
  for (const part of parts) node = (node as Record<string, unknown>)?.[part]
  return resolve(node as Schema, root)
}
/** A value whose JSON type the schema excludes (undefined when it admits anything). */
const wrongValue = (schema: Schema | undefined, root: unknown, depth: number): unknown => {
  const types = typesOf(schema, root)
  if (types.has("any")) return undefined
  const candidates: Array<[string, unknown]> = [
    ["number", 12345],
    ["boolean", true],
    ["string", "not-a-valid-value"],
    ["object", { nested: "x".repeat(1000) }],
    ["array", JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`)],
    ["null", null],
  ]
  for (const [type, value] of candidates) if (!types.has(type)) return value
  return undefined
}
const nastyValue = (schema: Schema | undefined, root: unknown, i: number): unknown => {
  const types = typesOf(schema, root)
  if (types.has("string") || types.has("any")) return nasty[i % nasty.length]
  if (types.has("number")) return [1e308, -1e308, -0.000001, 2 ** 53 + 1, 0][i % 5]
  if (types.has("boolean")) return i % 2 === 0
  if (types.has("array")) return [nasty[i % nasty.length]]
  const s = resolve(schema, root)
  if (s?.properties !== undefined)
    return Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, nastyValue(v, root, i + 1)]))
  return nasty[i % nasty.length]
}

/** Percent-encoding; a lone surrogate becomes its (invalid) UTF-8 bytes %ED%A0%80. */
const encode = (value: string) => {
  try {
    return encodeURIComponent(value)
  } catch {
    return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, "")) + "%ED%A0%80"
  }
}

interface Generated {
  readonly label: string
  readonly path: string
  readonly rawBody?: string | Uint8Array
  readonly contentType?: string
  readonly token: "right" | "none"
  /** Unstorable text: the field the 400 must name. */
  readonly field?: string
}

const generate = (op: Operation, root: unknown): Array<Generated> => {
  const out: Array<Generated> = []
  const fill = (id: (k: number) => string, k: number) => op.path.replace(/\{[^}]+\}/g, () => id(k))
  const goodishPath = (k: number) => fill(() => "00000000-0000-4000-8000-000000000000", k)
  for (let k = 0; out.length < perOperation; k++) {
    if (op.pathParams.length > 0 && k % 2 === 0) {
      // A malformed id in the path (with an otherwise plausible body: the id alone makes it invalid).
      const badId = badIds[(k / 2) % badIds.length]!
      out.push({
        label: `bad id ${badId.slice(0, 24)}`,
        path: fill(() => badId, k),
        rawBody: op.body === undefined ? undefined : "{}",
        contentType: "application/json",
        token: "right",
      } as Generated)
      continue
    }
    const path = op.pathParams.length > 0 ? goodishPath(k) : op.path
    if (op.method === "GET") {
      const q = op.queryParams.length > 0 ? op.queryParams : ["unexpected"]
      const query = q
        .map((name, j) => `${name}=${encode(String(nasty[(k + j) % nasty.length]).slice(0, 3000))}`)
        .join("&")
      out.push({
        label: k % 5 === 1 ? "no token" : "junk query",
        path: `${path}?${query}`,
        token: k % 5 === 1 ? "none" : "right",
      })
      continue
    }
    if (op.body === undefined) {
      // No body expected: only the path id can make it invalid; a missing token otherwise.
      out.push({
        label: "no token, junk body",
        path,
        rawBody: nasty[k % nasty.length]!.slice(0, 1000),
        contentType: "text/plain",
        token: "none",
      })
      continue
    }
    const schema = resolve(op.body, root)
    const props = Object.entries(schema?.properties ?? {})
    const variant = k % 10
    if (variant === 0)
      out.push({ label: "empty body", path, rawBody: "", contentType: "application/json", token: "right" })
    else if (variant === 1)
      out.push({
        label: "truncated json",
        path,
        rawBody: '{"a": [1, 2',
        contentType: "application/json",
        token: "right",
      })
    else if (variant === 2)
      out.push({
        label: "10000-deep json",
        path,
        rawBody: `${"[".repeat(10_000)}${"]".repeat(10_000)}`,
        contentType: "application/json",
        token: "right",
      })
    else if (variant === 3)
      out.push({
        label: "invalid utf-8",
        path,
        rawBody: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
        contentType: "application/json",
        token: "right",
      })
    else if (variant === 4)
      out.push({
        label: "2 MiB body",
        path,
        rawBody: JSON.stringify({ a: "x".repeat(2 * 1024 * 1024) }),
        contentType: "application/json",
        token: "right",
      })
    else if (variant === 5)
      out.push({
        label: "non-object json",
        path,
        rawBody: JSON.stringify([null, [], 42, "s", true][k % 5]),
        contentType: "application/json",
        token: "right",
      })
    else if (variant === 6) {
      const ct = [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        undefined,
      ][Math.floor(k / 10) % 5]
      out.push({
        label: `content-type ${ct ?? "missing"}`,
        path,
        rawBody: "a=1&b=%00&<x/>",
        ...(ct === undefined ? {} : { contentType: ct }),
        token: "right",
      } as Generated)
    } else if (props.length === 0) {
      out.push({
        label: "object for a body without properties",
        path,
        rawBody: JSON.stringify({ "'; DROP TABLE events;--": nasty[k % nasty.length] }),
        contentType: "application/json",
        token: "none",
      })
    } else {
      // One property (rotating) gets a type its schema excludes; the others get nasty values.
      const victim = k % props.length
      const body: Record<string, unknown> = {}
      let broken = false
      props.forEach(([name, s], j) => {
        if (j === victim) {
          const wrong = wrongValue(s, root, 200)
          if (wrong !== undefined) {
            body[name] = wrong
            broken = true
            return
          }
        }
        body[name] = nastyValue(s, root, k + j)
      })
      if (!broken) {
        // Nothing excludable on the victim: break the first property that has a typed schema.
        for (const [name, s] of props) {
          const wrong = wrongValue(s, root, 200)
          if (wrong !== undefined) {
            body[name] = wrong
            broken = true
            break
          }
        }
      }
      out.push(
        broken
          ? {
              label: `wrong type on ${props[victim]![0]}`,
              path,
              rawBody: JSON.stringify(body),
              contentType: "application/json",
              token: "right",
            }
          : {
              label: "untyped body, no token",
              path,
              rawBody: JSON.stringify(body),
              contentType: "application/json",
              token: "none",
            },
      )
    }
  }
  return out
}

const counts = (url: string) =>
  psql(
    url,
    "SELECT (SELECT count(*) FROM events) || ' ' || (SELECT count(*) FROM streams) || ' ' || (SELECT count(*) FROM read_models) || ' ' || (SELECT count(*) FROM outbox)",
  )

describe("bad input", () => {
  it(`${perOperation} invalid requests per OpenAPI operation: no 5xx, problem+json refusals, no state change`, async () => {
    const db = freshDatabase("badinput")
    const data = tempDir("badinput")
    try {
      const service = await start(serviceEnv({ clientId, clientSecret, dataDir: data.dir, databaseUrl: db.url }))
      const base = service.url
      const partner = await partnerToken(service, clientId, clientSecret)
      // Ten customers (a customer token may send 10 requests per second): logged in, nothing else.
      const customers: Array<string> = []
      for (let i = 0; i < 10; i++) {
        const phoneNumber = `+1415555${3000 + i}`
        await call(base, "POST", "/Login/SendOtp", { token: partner, body: { phoneNumber } })
        const checked = await call(base, "PUT", "/Login/CheckOtp", {
          token: partner,
          body: { phoneNumber, code: "123456" },
        })
        customers.push((checked.body as { accessToken: string }).accessToken)
      }
      const doc = (await call(base, "GET", "/openapi.json")).body as {
        paths: Record<
          string,
          Record<
            string,
            {
              parameters?: Array<{ name: string; in: string }>
              requestBody?: { content?: Record<string, { schema: Schema; example?: unknown }> }
            }
          >
        >
      }
      const operations: Array<Operation> = []
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, op] of Object.entries(item)) {
          if (!["get", "post", "put", "delete", "patch"].includes(method)) continue
          operations.push({
            method: method.toUpperCase(),
            path,
            pathParams: (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name),
            queryParams: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
            body: op.requestBody?.content?.["application/json"]?.schema,
            example: op.requestBody?.content?.["application/json"]?.example,
          })
        }
      // Which kind of token each operation wants: a partner token that gets 403 means a customer operation.
      const customerOps = new Set<string>()
      for (const op of operations) {
        const probe = await call(base, op.method, op.path.replace(/\{[^}]+\}/g, "not-an-id"), {
          token: partner,
          ...(op.method === "GET" ? {} : { rawBody: "{", headers: { "content-type": "application/json" } }),
        })
        if (probe.status === 403) customerOps.add(`${op.method} ${op.path}`)
      }
      await sleep(1500)
      const before = counts(db.url)

      const withoutExample = operations.filter((op) => op.body !== undefined && op.example === undefined)
      const results: Array<{
        op: string
        label: string
        answer: Answer | undefined
        error?: string
        field?: string | undefined
      }> = []
      const unstorable = (op: Operation): Array<Generated> =>
        unstorableRequests(op, op.example).map((r) => ({
          label: `unstorable ${r.label}`,
          path: r.path,
          ...(r.rawBody === undefined ? {} : { rawBody: r.rawBody }),
          contentType: "application/json",
          token: "right",
          field: r.field,
        }))
      const jobs = operations.flatMap((op) => [...generate(op, doc), ...unstorable(op)].map((g, i) => ({ op, g, i })))
      let next = 0
      const worker = async () => {
        while (next < jobs.length) {
          const { op, g, i } = jobs[next++]!
          const key = `${op.method} ${op.path}`
          const token =
            g.token === "none" ? undefined : customerOps.has(key) ? customers[i % customers.length] : partner
          try {
            let answer = await call(base, op.method, g.path, {
              token,
              ...(g.rawBody === undefined ? {} : { rawBody: g.rawBody }),
              headers: g.contentType === undefined ? {} : { "content-type": g.contentType },
            })
            for (let retry = 0; answer.status === 429 && retry < 20; retry++) {
              await sleep(1000 * Number(answer.headers.get("retry-after") ?? "1"))
              answer = await call(base, op.method, g.path, {
                token,
                ...(g.rawBody === undefined ? {} : { rawBody: g.rawBody }),
                headers: g.contentType === undefined ? {} : { "content-type": g.contentType },
              })
            }
            results.push({ op: key, label: g.label, answer, field: g.field })
          } catch (error) {
            results.push({ op: key, label: g.label, answer: undefined, error: String(error), field: g.field })
          }
        }
      }
      await Promise.all(Array.from({ length: 8 }, () => worker()))
      await sleep(1500)
      const after = counts(db.url)

      const statuses = results.map((r) => r.answer?.status ?? -1)
      const fiveXx = results.filter((r) => r.answer === undefined || r.answer.status >= 500)
      const notProblem = results.filter((r) => r.answer !== undefined && r.answer.status >= 400 && !isProblem(r.answer))
      const mutations2xx = results.filter(
        (r) => !r.op.startsWith("GET ") && r.answer !== undefined && r.answer.status < 300,
      )
      const gets2xx = results.filter((r) => r.op.startsWith("GET ") && r.answer !== undefined && r.answer.status < 300)
      const unstorableSent = results.filter((r) => r.field !== undefined)
      const unnamed = unstorableSent.filter((r) => {
        const errors = (r.answer?.body as { errors?: Array<{ field?: unknown }> } | undefined)?.errors ?? []
        return r.answer?.status !== 400 || !errors.some((e) => e.field === r.field)
      })
      summary(
        "bad input",
        `${operations.length} operations (${customerOps.size} customer), ${results.length} invalid requests [${tally(statuses)}]; 5xx or no answer: ${fiveXx.length}; 4xx not problem+json: ${notProblem.length}; mutations answered 2xx: ${mutations2xx.length}; GETs answered 2xx (junk query ignored): ${gets2xx.length}; unstorable text (lone surrogates, NUL) ${unstorableSent.length}, not a 400 naming the field: ${unnamed.length}; rows events/streams/read_models/outbox before ${before}, after ${after}`,
      )
      for (const r of [...fiveXx, ...notProblem, ...mutations2xx, ...unnamed].slice(0, 15))
        console.log(
          `[faults] bad input VIOLATION: ${r.op} (${r.label}): ${r.answer?.status ?? r.error} ${r.answer?.contentType ?? ""} ${r.answer?.text.slice(0, 200) ?? ""}`,
        )
      if (fiveXx.length > 0)
        for (const line of service.output
          .filter((l) => /"level":"(ERROR|WARN|Error|Warning|FATAL)"|"status":5\d\d/i.test(l))
          .slice(0, 6))
          console.log(`[faults] bad input service log: ${line.slice(0, 1500)}`)
      assert.deepStrictEqual(
        fiveXx.map((r) => `${r.op} ${r.label}`),
        [],
      )
      assert.deepStrictEqual(
        notProblem.map((r) => `${r.op} ${r.label}`),
        [],
      )
      assert.deepStrictEqual(
        mutations2xx.map((r) => `${r.op} ${r.label}`),
        [],
      )
      assert.deepStrictEqual(
        unnamed.map((r) => `${r.op} ${r.label}: ${r.answer?.status ?? r.error} ${r.answer?.text.slice(0, 120) ?? ""}`),
        [],
      )
      assert.deepStrictEqual(
        withoutExample.map((op) => `${op.method} ${op.path}`),
        [],
      )
      assert.strictEqual(after, before)
      assert.isAtLeast(results.length, 40 * perOperation)
    } finally {
      killAll()
      db.drop()
      data.remove()
    }
  })
})
