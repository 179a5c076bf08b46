/**
 * The reference part of `/openapi.json`, added to the generated document by one
 * transform (registered after `CrossCutting.openApiTransform` in Api.ts):
 *
 * - every property of every request and response schema (and every path and
 *   query parameter) gets its `description`, and `format` (uuid, date,
 *   date-time, email, uri) from the field glossary `OpenApiFields` unless its
 *   Schema declares its own;
 * - every JSON request body and 2xx JSON response gets an `example`, built from
 *   the schema: a Schema's own `examples` annotation first, else the glossary's
 *   example of the property, else a value of the schema's type;
 * - every operation lists the problem `code`s it can answer, in `x-error-codes`
 *   and in each error response's description: the codes of the problem types it
 *   declares (`problemCodes`, by component schema) plus the business-rule codes
 *   of the operation (`ruleCodes`, by operationId);
 * - `servers` (relative: the service that serves the document).
 *
 * The outgoing `webhooks` section is added after it by the webhooks feature
 * (`webhooks/WebhookEvents.ts`), with this module's `exampleOf`.
 *
 * New endpoints are covered without changes here; a new field name needs a
 * glossary entry, a new rule code an entry in `ruleCodes` (the OpenAPI test
 * names what is missing).
 */
import { type FieldDoc, fields } from "./OpenApiFields.ts"

type Json = { [key: string]: unknown }
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** The problem `code`s each problem schema (component, `<Class>Encoded` or `<Class>`) carries. */
export const problemCodes: Readonly<Record<string, ReadonlyArray<string>>> = {
  BadRequest: ["BAD_REQUEST"],
  Unauthorized: ["UNAUTHORIZED"],
  Forbidden: ["FORBIDDEN"],
  ResourceNotFound: ["NOT_FOUND"],
  AlreadyExistsProblem: ["ALREADY_EXISTS"],
  IllegalTransitionProblem: ["ILLEGAL_TRANSITION"],
  ConcurrentModification: ["CONCURRENT_MODIFICATION"],
  PayloadTooLarge: ["PAYLOAD_TOO_LARGE"],
  UnsupportedMediaType: ["UNSUPPORTED_MEDIA_TYPE"],
  ValidationProblem: ["VALIDATION_FAILED"],
  RuleViolation: [],
  TooManyRequests: ["RATE_LIMITED"],
  InternalError: ["INTERNAL_ERROR"],
  ServiceUnavailable: ["SERVICE_UNAVAILABLE"],
}

/** Codes every POST with an Idempotency-Key can answer (Idempotency.ts). */
const idempotencyCodes = { 409: ["IDEMPOTENCY_REQUEST_IN_PROGRESS"], 422: ["IDEMPOTENCY_KEY_REUSED"] } as const

/**
 * The codes particular to one operation (business rules of the domain, and the
 * handlers' own problems), by operationId and status.
 */
export const ruleCodes: Readonly<Record<string, Readonly<Record<number, ReadonlyArray<string>>>>> = {
  "payments.create": {
    422: ["COMPANY_NOT_VERIFIED", "COMPANY_REJECTED", "CURRENCY_NOT_SUPPORTED", "PAYER_LIMIT_EXCEEDED"],
  },
  "transactions.accept": {
    422: [
      "BANK_ACCOUNT_NOT_LINKED",
      "BANK_ACCOUNT_UNUSABLE",
      "COMPANY_NOT_FOUND",
      "COMPANY_NOT_VERIFIED",
      "CURRENCY_NOT_SUPPORTED",
      "CUSTOMER_NOT_VERIFIED",
      "ESIGNATURE_REFUSED",
      "PAYER_LIMIT_EXCEEDED",
    ],
  },
  "transactions.payWithCard": {
    422: ["CARD_DECLINED", "COMPANY_NOT_FOUND", "CUSTOMER_NOT_VERIFIED", "FEATURE_NOT_AVAILABLE"],
  },
  "transactions.reimbursement": { 422: ["ESIGNATURE_REFUSED", "FEATURE_NOT_AVAILABLE"] },
  "transactions.refund": {
    422: ["CURRENCY_NOT_SUPPORTED", "NOTHING_TO_REFUND", "REFUND_EXCEEDS_PAYMENT", "REFUND_EXCEEDS_TRANSFER"],
  },
  "charity.createAnonymous": {
    422: [
      "AMOUNT_BELOW_FEE",
      "BANK_ACCOUNT_NOT_LINKED",
      "COMPANY_NOT_VERIFIED",
      "COMPANY_REJECTED",
      "CURRENCY_NOT_SUPPORTED",
      "CUSTOMER_NOT_VERIFIED",
    ],
  },
  "debitAuth.set": { 422: ["CURRENCY_NOT_SUPPORTED"] },
  "cardPayments.register": { 422: ["CARD_DECLINED", "FEATURE_NOT_AVAILABLE"] },
  "cardPayments.setupCard": { 422: ["FEATURE_NOT_AVAILABLE"] },
  "companies.create": { 409: ["DUPLICATE_COMPANY_REFERENCE"] },
  "paymentPlans.create": { 422: ["COMPANY_NOT_VERIFIED", "COMPANY_REJECTED", "CURRENCY_NOT_SUPPORTED"] },
  "paymentPlans.activate": { 409: ["CONSENT_NOT_ACCEPTED"] },
  "paymentPlans.resume": { 409: ["CONSENT_NOT_ACCEPTED"] },
  "consents.accept": { 422: ["BANK_ACCOUNT_NOT_LINKED", "BANK_ACCOUNT_UNUSABLE", "CUSTOMER_NOT_VERIFIED"] },
  "login.sendOtp": { 422: ["LOGIN_LOCKED", "OTP_RESEND_LIMIT", "OTP_DELIVERY_FAILED"] },
  "login.checkOtp": { 422: ["LOGIN_LOCKED", "OTP_INVALID", "OTP_EXPIRED", "OTP_NOT_ISSUED"] },
  "account.link": { 422: ["LINK_SESSION_UNKNOWN"] },
}

/** The fields of a problem (RFC 9457), described on every problem schema. */
const problemFields: Readonly<Record<string, string>> = {
  type: "The problem type: the path of the page documenting it, /docs/problems/{slug} (a relative reference, resolved against the request URI; API versions before 2026-11-28: https://partnerpay.dev/problems/{slug})",
  title: "Short summary of the problem type",
  status: "The HTTP status",
  detail: "What went wrong, for a human",
  code: "Stable machine code of the problem (see the operation's x-error-codes)",
  instance: "This occurrence: urn:uuid:<correlation id> (also the X-Correlation-Id header)",
  errors: "One entry per refused field: field (dotted path) and message",
  state: "The resource's current state",
  retryAfterSeconds: "Seconds to wait before retrying (also the Retry-After header)",
}

const describeProblems = (spec: Json): void => {
  const schemas = (spec.components as Json | undefined)?.schemas
  if (!isObject(schemas)) return
  for (const [name, schema] of Object.entries(schemas)) {
    if (problemCodes[name.replace(/Encoded$/, "")] === undefined || !isObject(schema) || !isObject(schema.properties))
      continue
    for (const [field, property] of Object.entries(schema.properties))
      if (isObject(property) && property.description === undefined && problemFields[field] !== undefined)
        property.description = problemFields[field]
  }
}

/** The documented servers: relative, so the document is right wherever the service runs. */
export const servers = [{ url: "/", description: "This partnerpay service (the host serving this document)" }]

const refName = (ref: unknown): string | undefined =>
  typeof ref === "string" ? ref.replace(/^#\/components\/schemas\//, "").replace(/Encoded$/, "") : undefined

/** The problem schema names a response refers to (directly or through anyOf/oneOf). */
const problemNamesOf = (response: Json): Array<string> => {
  const names: Array<string> = []
  const content = isObject(response.content) ? response.content : {}
  for (const media of Object.values(content)) {
    if (!isObject(media) || !isObject(media.schema)) continue
    const schema = media.schema
    const members = [
      schema,
      ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
      ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ]
    for (const member of members) {
      const name = isObject(member) ? refName(member.$ref) : undefined
      if (name !== undefined) names.push(name)
    }
  }
  return names
}

// ---------------------------------------------------------------------------
// Properties: descriptions and formats

const resolve = (spec: Json, schema: unknown): Json | undefined => {
  if (!isObject(schema)) return undefined
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/components/schemas/")) {
    const target = (spec.components as Json | undefined)?.schemas
    return isObject(target) ? (target[schema.$ref.slice(21)] as Json | undefined) : undefined
  }
  return schema
}

const isStringSchema = (schema: Json): boolean =>
  schema.type === "string" ||
  (Array.isArray(schema.anyOf) && schema.anyOf.some((m) => isObject(m) && m.type === "string"))

/** Sets the glossary's format on a string schema (or on the string members of an anyOf) without one. */
const setFormat = (schema: Json, format: string): void => {
  if (schema.type === "string" && schema.format === undefined && schema.enum === undefined) schema.format = format
  if (Array.isArray(schema.anyOf))
    for (const member of schema.anyOf)
      if (isObject(member) && member.type === "string" && member.format === undefined && member.enum === undefined)
        member.format = format
}

/** The glossary entry of a property: `parent.name` (e.g. `debitAuthId.value`) first, then `name`. */
export const fieldDoc = (name: string | undefined, parent?: string): FieldDoc | undefined =>
  name === undefined ? undefined : ((parent === undefined ? undefined : fields[`${parent}.${name}`]) ?? fields[name])

/**
 * Walks every schema node once, describing and formatting every property;
 * `parent` is the property that leads to the node (through items and unions too).
 */
const describeProperties = (root: unknown, seen: Set<unknown>, parent?: string): void => {
  if (typeof root !== "object" || root === null || seen.has(root)) return
  seen.add(root)
  if (Array.isArray(root)) {
    for (const item of root) describeProperties(item, seen, parent)
    return
  }
  const node = root as Json
  if (isObject(node.properties)) {
    for (const [name, property] of Object.entries(node.properties)) {
      if (!isObject(property)) continue
      const doc = fieldDoc(name, parent)
      if (doc !== undefined) {
        if (property.description === undefined) property.description = doc.description
        if (doc.format !== undefined && isStringSchema(property)) setFormat(property, doc.format)
      }
      describeProperties(property, seen, name)
    }
  }
  for (const [key, value] of Object.entries(node)) if (key !== "properties") describeProperties(value, seen, parent)
}

const describeParameters = (operation: Json): void => {
  if (!Array.isArray(operation.parameters)) return
  for (const parameter of operation.parameters) {
    if (!isObject(parameter) || typeof parameter.name !== "string") continue
    const doc = fields[parameter.name]
    if (doc === undefined) continue
    if (parameter.description === undefined) parameter.description = doc.description
    if (doc.format !== undefined && isObject(parameter.schema) && isStringSchema(parameter.schema))
      setFormat(parameter.schema, doc.format)
  }
}

// ---------------------------------------------------------------------------
// Examples

const formatExamples: Readonly<Record<string, string>> = {
  uuid: "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f",
  date: "2026-12-01",
  "date-time": "2026-11-23T09:15:00.000Z",
  email: "jane.doe@acme.example",
  uri: "https://acme.example/",
}

const typeOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value

const fits = (schema: Json, value: unknown): boolean => {
  const type = schema.type
  if (type === undefined) return true
  const actual = typeOf(value)
  const types = Array.isArray(type) ? type : [type]
  return types.some((t) => t === actual || (t === "number" && actual === "integer"))
}

/**
 * An example value of a schema. `name` is the property's name (its glossary
 * example), `parent` the enclosing property's (for `{ value: <id> }` wrappers).
 */
export const exampleOf = (spec: Json, schema: unknown, name?: string, parent?: string, depth = 0): unknown => {
  const node = resolve(spec, schema)
  if (node === undefined || depth > 12) return undefined
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0]
  if (node.example !== undefined) return node.example
  if (node.const !== undefined) return node.const
  if (Array.isArray(node.enum) && node.enum.length > 0) {
    const hinted = fieldDoc(name, parent)?.example
    return node.enum.includes(hinted) ? hinted : node.enum[0]
  }
  const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined
  if (union !== undefined) {
    const member = union.find((m) => !(isObject(m) && m.type === "null")) ?? union[0]
    return exampleOf(spec, member, name, parent, depth + 1)
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0 && node.type === undefined)
    return exampleOf(spec, node.allOf[0], name, parent, depth + 1)
  const hint = [fieldDoc(name, parent)?.example, fieldDoc(parent)?.example].find(
    (v) => v !== undefined && fits(node, v),
  )
  switch (node.type) {
    case "object": {
      const out: Json = {}
      const properties = isObject(node.properties) ? node.properties : {}
      const required = Array.isArray(node.required) ? node.required : []
      for (const [key, property] of Object.entries(properties)) {
        // A property whose schema says nothing (a removed field the service refuses) gets no example.
        if (isObject(property) && Object.keys(property).every((k) => k === "description" || k === "deprecated"))
          continue
        const alternative = fields[key]?.alternativeTo
        if (alternative !== undefined && out[alternative] !== undefined && !required.includes(key)) continue
        const value = exampleOf(spec, property, key, name, depth + 1)
        if (value !== undefined) out[key] = value
      }
      return out
    }
    case "array": {
      if (hint !== undefined) return hint
      const item = exampleOf(spec, node.items, name, parent, depth + 1)
      return item === undefined ? [] : [item]
    }
    case "string": {
      if (hint !== undefined) return hint
      if (typeof node.format === "string" && formatExamples[node.format] !== undefined)
        return formatExamples[node.format]
      const min = typeof node.minLength === "number" ? node.minLength : 1
      return "example".padEnd(min, "x")
    }
    case "integer":
    case "number": {
      if (hint !== undefined) return hint
      const min = typeof node.minimum === "number" && node.minimum > 0 ? node.minimum : undefined
      return min ?? (node.type === "integer" ? 1 : 42.5)
    }
    case "boolean":
      return typeof hint === "boolean" ? hint : true
    case "null":
      return null
  }
  return hint
}

/** Adds an `example` to a JSON content (request body or response) that has none. */
const exemplify = (spec: Json, content: unknown): void => {
  if (!isObject(content)) return
  const media = content["application/json"]
  if (!isObject(media) || media.schema === undefined) return
  if (media.example !== undefined || media.examples !== undefined) return
  const example = exampleOf(spec, media.schema)
  if (example !== undefined) media.example = example
}

// ---------------------------------------------------------------------------
// The transform

const methods = new Set(["get", "put", "post", "delete", "patch", "head", "options"])

export const openApiTransform = (spec: Json): Json => {
  if (spec.servers === undefined) spec.servers = servers
  describeProblems(spec)
  const seen = new Set<unknown>()
  describeProperties(spec.components, seen)
  const paths = isObject(spec.paths) ? spec.paths : {}
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue
    for (const [method, operation] of Object.entries(item)) {
      if (!methods.has(method) || !isObject(operation)) continue
      describeParameters(operation)
      describeProperties(operation.requestBody, seen)
      describeProperties(operation.responses, seen)
      if (isObject(operation.requestBody)) exemplify(spec, operation.requestBody.content)
      const responses = isObject(operation.responses) ? operation.responses : {}
      const codes: Array<string> = []
      const particular = ruleCodes[String(operation.operationId)] ?? {}
      for (const [status, response] of Object.entries(responses)) {
        if (!isObject(response)) continue
        if (status.startsWith("2")) {
          exemplify(spec, response.content)
          continue
        }
        const numeric = Number(status) as keyof typeof idempotencyCodes
        const own = [
          ...problemNamesOf(response).flatMap((name) => problemCodes[name] ?? []),
          ...(method === "post" &&
          Array.isArray(operation.parameters) &&
          operation.parameters.some((p) => isObject(p) && p.name === "Idempotency-Key")
            ? (idempotencyCodes[numeric] ?? [])
            : []),
          ...(particular[Number(status)] ?? []),
        ]
        const unique = [...new Set(own)]
        if (unique.length === 0) continue
        const base = typeof response.description === "string" ? response.description : ""
        response.description = `${base}${base === "" ? "" : ". "}Codes: ${unique.join(", ")}`
        codes.push(...unique)
      }
      const all = [...new Set(codes)]
      operation["x-error-codes"] = all
      if (all.length > 0) {
        const base = typeof operation.description === "string" ? operation.description : ""
        operation.description = `${base}${base === "" ? "" : "\n\n"}Error codes: ${all.join(", ")}.`
      }
    }
  }
  return spec
}
