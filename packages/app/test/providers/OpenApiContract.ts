/**
 * The providers' published OpenAPI documents as a contract for the tests: a
 * local fake of a provider (node:http) records every request the official
 * SDK sends and checks it against the provider's document (the operation
 * exists; its required path, query and body parameters are there; the body
 * matches the operation's schema), and checks each answer the fake gives
 * against the operation's response schema. Every violation is kept; a test
 * asserts there is none.
 *
 * The documents are the committed trimmed copies in `documents/` (the
 * operations the adapters call, made from `../shared/providers/` by
 * `documents/trim.ts`, kept up to date by `TrimmedDocuments.test.ts`): a
 * clone of the project alone runs every contract test. `file` names the
 * published document the copy was made from.
 *
 * Schemas are checked with Ajv (OpenAPI 3.0's `nullable` included; the
 * documents' own formats such as `phone-number` are accepted as written).
 * A form-encoded body (Twilio) is checked with its values coerced to the
 * schema's types, as the provider reads them.
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Ajv, type ValidateFunction } from "ajv"
import addFormats from "ajv-formats"
import { trimmedDir, trimmedName } from "./documents/trim.ts"

type Json = Record<string, unknown>

/** What a provider requires beyond its document. */
export interface ContractOptions {
  /**
   * Headers a request must carry, by `method template` (`"post /transfers"`): Dwolla's document lists
   * `Idempotency-Key` as optional, but a transfer without one can be made twice.
   */
  readonly requiredHeaders?: Record<string, ReadonlyArray<string>>
}

/** One operation of a document, found by method and concrete path. */
interface Operation {
  readonly template: string
  readonly node: Json
}

/** OpenAPI 3.0's `nullable` beside a `$ref` or without a type, as JSON Schema says it: one of it or null. */
const normalized = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(normalized)
  if (node === null || typeof node !== "object") return node
  const entries = Object.entries(node as Json).map(([key, value]) => [key, normalized(value)] as const)
  const object = Object.fromEntries(entries) as Json
  // Generated documents list structurally equal schemas under `oneOf` (Dwolla's 400 answers: dozens of
  // `{ code, message }` errors), which no body can match exactly once: read as `anyOf`.
  if (Array.isArray(object.oneOf) && object.anyOf === undefined) {
    object.anyOf = object.oneOf
    delete object.oneOf
  }
  if (object.nullable === true && object.type === undefined) {
    const { nullable: _nullable, ...rest } = object
    return { anyOf: [rest, { type: "null" }] }
  }
  return object
}

/** A request header's value (names are case-insensitive), if it has one. */
const headerOf = (request: RecordedRequest, name: string): string | undefined => {
  const value = request.headers[name.toLowerCase()]
  const text = Array.isArray(value) ? value.join(", ") : value
  return text === undefined || text === "" ? undefined : text
}

/** `application/json` or a `+json` media type. */
const isJsonMedia = (mediaType: string) => mediaType === "application/json" || mediaType.endsWith("+json")

/** A provider's document, ready to check requests and answers. */
export class Contract {
  private readonly document: Json
  // Patterns as the documents write them (JavaScript's non-unicode syntax: Dwolla's escape `\~`, for one).
  private readonly strict = new Ajv({ strict: false, allErrors: true, logger: false, unicodeRegExp: false })
  private readonly coercing = new Ajv({
    strict: false,
    allErrors: true,
    logger: false,
    coerceTypes: "array",
    unicodeRegExp: false,
  })
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly matchers: ReadonlyArray<readonly [RegExp, string]>

  readonly name: string
  private readonly options: ContractOptions

  constructor(name: string, file: string, options: ContractOptions = {}) {
    this.name = name
    this.options = options
    this.document = JSON.parse(readFileSync(`${trimmedDir}${trimmedName(file)}`, "utf8")) as Json
    for (const ajv of [this.strict, this.coercing]) {
      addFormats.default(ajv)
      for (const format of ["phone-number", "uri-template", "currency", "double", "float", "int32", "int64"]) {
        ajv.addFormat(format, true)
      }
      ajv.addSchema({ $id: "document", components: normalized(this.document.components ?? {}) })
    }
    const paths = Object.keys((this.document.paths ?? {}) as Json)
    this.matchers = paths.map(
      (template) =>
        [
          new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
          template,
        ] as const,
    )
  }

  /** The operation serving `method path`, if the document has one. */
  operation(method: string, path: string): Operation | undefined {
    const found = this.matchers.find(([pattern]) => pattern.test(path))
    if (found === undefined) return undefined
    const template = found[1]
    const node = ((this.document.paths as Json)[template] as Json)[method.toLowerCase()] as Json | undefined
    if (node === undefined) return undefined
    return { template, node }
  }

  /** A schema of the document, its references into the document's components kept. */
  private validator(key: string, schema: Json, coerce: boolean): ValidateFunction {
    const cacheKey = `${coerce}:${key}`
    const existing = this.compiled.get(cacheKey)
    if (existing !== undefined) return existing
    const anchored = JSON.parse(JSON.stringify(schema), (name, value) =>
      name === "$ref" && typeof value === "string" && value.startsWith("#/") ? `document${value}` : value,
    ) as Json
    const compiled = (coerce ? this.coercing : this.strict).compile(normalized(anchored) as Json)
    this.compiled.set(cacheKey, compiled)
    return compiled
  }

  private resolve(node: Json): Json {
    const ref = node.$ref
    if (typeof ref !== "string") return node
    return this.resolve(
      ref
        .slice(2)
        .split("/")
        .reduce<Json>((at, segment) => at[segment.replaceAll("~1", "/").replaceAll("~0", "~")] as Json, this.document),
    )
  }

  private check(key: string, schema: Json, value: unknown, coerce: boolean): ReadonlyArray<string> {
    const validate = this.validator(key, schema, coerce)
    return validate(structuredClone(value))
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || "(root)"} ${error.message ?? "is invalid"}`)
  }

  /** What is wrong with a request, by the document (empty: it conforms). */
  checkRequest(request: RecordedRequest): ReadonlyArray<string> {
    const operation = this.operation(request.method, request.path)
    if (operation === undefined) {
      return [`${request.method} ${request.path}: no such operation in ${this.name}'s document`]
    }
    const where = `${request.method} ${operation.template}`
    const problems: Array<string> = []
    const pathParameters = ((this.document.paths as Json)[operation.template] as Json).parameters ?? []
    const parameters = [...(pathParameters as Array<Json>), ...((operation.node.parameters ?? []) as Array<Json>)].map(
      (parameter) => this.resolve(parameter),
    )
    for (const parameter of parameters) {
      if (parameter.in === "query" && parameter.required === true && !request.query.has(String(parameter.name))) {
        problems.push(`${where}: query parameter ${String(parameter.name)} is required`)
      }
      if (parameter.in === "header") problems.push(...this.checkHeader(where, request, parameter))
    }
    const key = `${request.method.toLowerCase()} ${operation.template}`
    for (const name of this.options.requiredHeaders?.[key] ?? []) {
      if (headerOf(request, name) === undefined) problems.push(`${where}: header ${name} is required`)
    }
    problems.push(...this.checkSecurity(where, request, operation.node))
    if (operation.node.requestBody === undefined) return problems
    const body = this.resolve(operation.node.requestBody as Json)
    const content = (body.content ?? {}) as Json
    const mediaType = request.contentType.split(";")[0]?.trim() ?? ""
    const media = content[mediaType] as Json | undefined
    if (media === undefined) {
      problems.push(
        `${where}: a body of type ${mediaType || "(none)"}; the document takes ${Object.keys(content).join(", ")}`,
      )
      return problems
    }
    if (body.required === true && request.body === "") problems.push(`${where}: the body is required`)
    const form = mediaType === "application/x-www-form-urlencoded"
    const value = form
      ? Object.fromEntries(new URLSearchParams(request.body))
      : request.body === ""
        ? {}
        : JSON.parse(request.body)
    const schema = this.resolve(media.schema as Json)
    for (const problem of this.check(`${where} request`, schema, value, form)) problems.push(`${where}: body${problem}`)
    for (const field of this.unknownFields(schema, value, ""))
      problems.push(`${where}: body${field} is not in the document`)
    return problems
  }

  /** A header parameter: there when required, and as its schema says. */
  private checkHeader(where: string, request: RecordedRequest, parameter: Json): ReadonlyArray<string> {
    const name = String(parameter.name)
    const value = headerOf(request, name)
    if (value === undefined) return parameter.required === true ? [`${where}: header ${name} is required`] : []
    if (parameter.schema === undefined) return []
    return this.check(`${where} header ${name}`, parameter.schema as Json, value, true).map(
      (problem) => `${where}: header ${name}${problem.replace("(root)", "")}`,
    )
  }

  /**
   * The operation's security (or the document's): one of its requirements met, each of its schemes by the
   * header it names (an API key), `Authorization: Basic` with a user and a password (HTTP basic; Dwolla's
   * token endpoint names an undeclared `basicAuth`), or `Authorization: Bearer` (HTTP bearer, OAuth 2).
   */
  private checkSecurity(where: string, request: RecordedRequest, operation: Json): ReadonlyArray<string> {
    const requirements = (operation.security ?? this.document.security ?? []) as Array<Json>
    if (requirements.length === 0) return []
    const schemes = ((this.document.components as Json | undefined)?.securitySchemes ?? {}) as Json
    const authorization = headerOf(request, "authorization") ?? ""
    const meets = (name: string): string | undefined => {
      const scheme = (schemes[name] ?? (/basic/i.test(name) ? { type: "http", scheme: "basic" } : {})) as Json
      if (scheme.type === "apiKey" && scheme.in === "header") {
        return headerOf(request, String(scheme.name)) ? undefined : `header ${String(scheme.name)} (${name})`
      }
      if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
        const [user, password] = Buffer.from(authorization.replace(/^Basic /, ""), "base64")
          .toString("utf8")
          .split(":")
        return authorization.startsWith("Basic ") && user && password ? undefined : `Authorization: Basic (${name})`
      }
      if (scheme.type === "oauth2" || (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer")) {
        return /^Bearer \S+$/.test(authorization) ? undefined : `Authorization: Bearer (${name})`
      }
      return `${name}: a security scheme the contract cannot check`
    }
    const unmet = requirements.map((requirement) => Object.keys(requirement).flatMap((name) => meets(name) ?? []))
    if (unmet.some((missing) => missing.length === 0)) return []
    return [
      `${where}: not authenticated as the document asks: ${unmet.map((missing) => missing.join(" and ")).join(" or ")}`,
    ]
  }

  /** A schema's declared properties, its compositions' included. */
  private declared(schema: Json): Map<string, Json> {
    const resolved = this.resolve(schema)
    const found = new Map<string, Json>()
    for (const [name, property] of Object.entries((resolved.properties ?? {}) as Json))
      found.set(name, property as Json)
    for (const keyword of ["allOf", "anyOf", "oneOf"]) {
      for (const branch of (resolved[keyword] ?? []) as Array<Json>) {
        for (const [name, property] of this.declared(branch)) if (!found.has(name)) found.set(name, property)
      }
    }
    return found
  }

  /**
   * The fields of `value` its schema does not declare, even where the document allows additional
   * properties (so that a misspelled field is seen): an object whose schema declares no property at all
   * is a free map, not checked.
   */
  private unknownFields(schema: Json, value: unknown, at: string): ReadonlyArray<string> {
    const resolved = this.resolve(schema)
    if (Array.isArray(value)) {
      const items = resolved.items as Json | undefined
      return items === undefined
        ? []
        : value.flatMap((item, index) => this.unknownFields(items, item, `${at}/${index}`))
    }
    if (value === null || typeof value !== "object") return []
    const declared = this.declared(resolved)
    if (declared.size === 0) return []
    return Object.entries(value as Json).flatMap(([name, field]) => {
      const property = declared.get(name)
      return property === undefined ? [`${at}/${name}`] : this.unknownFields(property, field, `${at}/${name}`)
    })
  }

  private response(method: string, path: string, status: number): { where: string; media?: Json } | string {
    const operation = this.operation(method, path)
    if (operation === undefined) return `${method} ${path}: no such operation in ${this.name}'s document`
    const where = `${method} ${operation.template} answered ${status}`
    const responses = (operation.node.responses ?? {}) as Json
    const key = String(status) in responses ? String(status) : "default" in responses ? "default" : undefined
    if (key === undefined) return status >= 400 ? { where } : `${where}: the document has no such answer`
    const content = (this.resolve(responses[key] as Json).content ?? {}) as Json
    // JSON, or a vendor's JSON media type (Dwolla's `application/vnd.dwolla.v1.hal+json`).
    const json = "application/json" in content ? "application/json" : Object.keys(content).find(isJsonMedia)
    const media = json === undefined ? undefined : (content[json] as Json)
    return media === undefined ? { where } : { where, media }
  }

  /** What is wrong with an answer to `method path` with `status`, by the document. */
  checkAnswer(method: string, path: string, status: number, body: unknown): ReadonlyArray<string> {
    const found = this.response(method, path, status)
    if (typeof found === "string") return [found]
    // An error status the document does not describe (Twilio lists only successes) is not checked.
    if (found.media === undefined) return []
    const schema = this.resolve(found.media.schema as Json)
    return this.check(`${found.where} answer`, schema, body, false).map((problem) => `${found.where}: body${problem}`)
  }

  /** The document's own example of the answer to `method path` with `status`. */
  example(method: string, path: string, status: number): unknown {
    const found = this.response(method, path, status)
    if (typeof found === "string" || found.media === undefined) throw new Error(`no example answer: ${method} ${path}`)
    if (found.media.example !== undefined) return structuredClone(found.media.example)
    const examples = Object.values((found.media.examples ?? {}) as Json) as Array<Json>
    const first = examples[0] === undefined ? undefined : this.resolve(examples[0])
    if (first?.value === undefined) throw new Error(`no example answer: ${method} ${path}`)
    return structuredClone(first.value)
  }
}

/** A request a fake received. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingMessage["headers"]
  readonly contentType: string
  readonly body: string
}

/**
 * What a fake answers: a status and a JSON body (checked against the document), with its content type
 * (default `application/json`) and other headers (e.g. a 201's `Location`), or no answer at all.
 */
export type Answer =
  | {
      readonly status: number
      readonly body?: unknown
      readonly contentType?: string
      readonly headers?: Record<string, string>
    }
  | { readonly hang: true }

/** A fake's default answer: fixed, or computed from the request (a fake that keeps state). */
export type Responder = Answer | ((request: RecordedRequest) => Answer)

/** A fake provider: routes by the contract whose paths it serves, records and checks everything. */
export interface Fake {
  readonly url: string
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Every violation of a document, by a request or by an answer. */
  readonly violations: ReadonlyArray<string>
  /**
   * The next answers to requests whose path ends with `suffix`, or of one method and suffix
   * (`"GET /customers"`), in order; the last repeats.
   */
  readonly answer: (suffix: string, ...answers: ReadonlyArray<Answer>) => void
  readonly close: () => Promise<void>
}

/**
 * Starts a fake on a free loopback port. `contractOf` picks the document of a request path; `defaults`
 * answer what no script answers (by path suffix, or by method and suffix: `"GET /customers"`).
 */
export const startFake = async (
  contractOf: (path: string) => Contract,
  defaults: Record<string, Responder>,
): Promise<Fake> => {
  const requests: Array<RecordedRequest> = []
  const violations: Array<string> = []
  const scripts = new Map<string, Array<Answer>>()
  // A key is a path suffix, or a method and a suffix ("GET /customers"): those are tried first.
  const matches = (key: string, method: string, path: string) => {
    const space = key.indexOf(" ")
    return space < 0 ? path.endsWith(key) : key.slice(0, space) === method && path.endsWith(key.slice(space + 1))
  }
  const ordered = <A>(entries: ReadonlyArray<readonly [string, A]>) =>
    [...entries].sort(([a], [b]) => Number(b.includes(" ")) - Number(a.includes(" ")))
  const pick = (request: RecordedRequest): Answer => {
    const { method, path } = request
    for (const [key, answers] of ordered([...scripts.entries()])) {
      if (matches(key, method, path) && answers.length > 0)
        return answers.length > 1 ? (answers.shift() as Answer) : (answers[0] as Answer)
    }
    const fallback = ordered(Object.entries(defaults)).find(([key]) => matches(key, method, path))?.[1]
    if (fallback === undefined) return { status: 404, body: { message: "not found" } }
    return typeof fallback === "function" ? fallback(request) : fallback
  }
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Array<Buffer> = []
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", "http://fake")
      const request: RecordedRequest = {
        method: incoming.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        contentType: incoming.headers["content-type"] ?? "",
        body: Buffer.concat(chunks).toString("utf8"),
      }
      requests.push(request)
      const contract = contractOf(request.path)
      const checked = (check: () => ReadonlyArray<string>) => {
        try {
          violations.push(...check())
        } catch (error) {
          violations.push(`${request.method} ${request.path}: cannot be checked: ${String(error)}`)
        }
      }
      checked(() => contract.checkRequest(request))
      const answer = pick(request)
      if ("hang" in answer) return
      checked(() => contract.checkAnswer(request.method, request.path, answer.status, answer.body))
      outgoing.writeHead(answer.status, {
        "content-type": answer.contentType ?? "application/json",
        ...answer.headers,
      })
      outgoing.end(answer.body === undefined ? "" : JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    answer: (suffix, ...answers) => {
      scripts.set(suffix, [...answers])
    },
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections()
        server.close(() => closed())
      }),
  }
}
