/**
 * The providers' trimmed documents: from the published OpenAPI documents in
 * `../shared/providers/` (beside the project root, see its README), the
 * operations our adapters call (and only those), their parameters, request
 * bodies, responses and security schemes, with the components they reach;
 * descriptions, summaries, tags, servers and vendor extensions removed, and
 * examples removed except the example answers of those operations (the test
 * fakes answer with them). The result is committed beside this file
 * (`<provider file>.json`, sorted keys) so that the contract tests need nothing outside the repository;
 * `TrimmedDocuments.test.ts` regenerates it and fails when it differs while
 * `../shared/providers/` is present.
 *
 * Run `./pnpm providers:trim` after changing `operations` or when the
 * providers publish a new document.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parse as parseYaml } from "yaml"

/** Where the published documents are: `../shared/providers/` from the project root. */
export const sourceDir = fileURLToPath(new URL("../../../../../../shared/providers/", import.meta.url))
/** Where the trimmed copies are committed: this folder. */
export const trimmedDir = fileURLToPath(new URL("./", import.meta.url))

/** The operations each adapter calls, by published document: `method path-template`. */
export const operations: Record<string, ReadonlyArray<string>> = {
  "dwolla-openapi.yaml": [
    "post /token",
    "get /customers",
    "post /customers",
    "get /customers/{id}",
    "get /customers/{id}/beneficial-owners",
    "post /customers/{id}/beneficial-owners",
    "post /customers/{id}/beneficial-ownership",
    "post /customers/{id}/funding-sources",
    "post /transfers",
    "get /transfers/{id}",
    "get /transfers/{id}/failure",
    "get /webhook-subscriptions",
    "post /webhook-subscriptions",
  ],
  "plaid-2020-09-14.yml": [
    "post /link/token/create",
    "post /item/public_token/exchange",
    "post /accounts/get",
    "post /processor/token/create",
    "post /identity_verification/get",
    "post /identity_verification/list",
    "post /webhook_verification_key/get",
  ],
  "twilio-verify-v2.json": [
    "post /v2/Services/{ServiceSid}/Verifications",
    "post /v2/Services/{ServiceSid}/VerificationCheck",
  ],
  "twilio-api-v2010.json": ["post /2010-04-01/Accounts/{AccountSid}/Messages.json"],
}

/** The committed name of a published document's trimmed copy. */
export const trimmedName = (file: string) => `${file.replace(/\.(ya?ml|json)$/, "")}.json`

type Json = Record<string, unknown>

/** Objects whose keys are names (of properties, schemas, media types, status codes...), not keywords. */
const namedMaps = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "schemas",
  "responses",
  "parameters",
  "requestBodies",
  "headers",
  "content",
  "securitySchemes",
  "scopes",
  "paths",
  "mapping",
])

/** Keywords that are the providers' prose or tooling, not the contract. */
const dropped = (key: string) =>
  key === "description" ||
  key === "summary" ||
  key === "tags" ||
  key === "externalDocs" ||
  key === "servers" ||
  key === "example" ||
  key === "examples" ||
  key === "x-examples" ||
  key.startsWith("x-")

/** `node` without prose; `named` when its keys are names. */
const stripped = (node: unknown, named = false): unknown => {
  if (Array.isArray(node)) return node.map((item) => stripped(item))
  if (node === null || typeof node !== "object") return node
  const kept: Array<readonly [string, unknown]> = []
  for (const [key, value] of Object.entries(node as Json)) {
    if (!named && dropped(key)) continue
    kept.push([key, stripped(value, !named && namedMaps.has(key))])
  }
  return Object.fromEntries(kept)
}

/** Every `#/components/...` reference under `node`. */
const references = (node: unknown, found: Set<string>) => {
  if (Array.isArray(node)) for (const item of node) references(item, found)
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/")) found.add(value)
      else references(value, found)
    }
  }
}

const at = (document: Json, pointer: string): unknown =>
  pointer
    .slice(2)
    .split("/")
    .reduce<unknown>(
      (node, segment) => (node as Json | undefined)?.[segment.replaceAll("~1", "/").replaceAll("~0", "~")],
      document,
    )

/** The example answers of an operation (its responses' media examples), kept for the fakes. */
const answerExamples = (document: Json, operation: Json): Map<string, unknown> => {
  const kept = new Map<string, unknown>()
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Json)) {
    const resolved = resolve(document, response as Json)
    for (const [media, node] of Object.entries((resolved.content ?? {}) as Json)) {
      const { example, examples } = node as Json
      if (example !== undefined) kept.set(`${status} ${media}`, { example })
      else if (examples !== undefined) {
        const first = Object.values(examples as Json)[0]
        const value = first === undefined ? undefined : resolve(document, first as Json).value
        if (value !== undefined) kept.set(`${status} ${media}`, { example: value })
      }
    }
  }
  return kept
}

const resolve = (document: Json, node: Json): Json =>
  typeof node.$ref === "string" ? resolve(document, at(document, node.$ref) as Json) : node

/** Keys in order, for a stable text. */
const sorted = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(sorted)
  if (node === null || typeof node !== "object") return node
  return Object.fromEntries(
    Object.keys(node as Json)
      .sort()
      .map((key) => [key, sorted((node as Json)[key])]),
  )
}

/** The trimmed copy of a published document's text, as committed. */
export const trim = (file: string, text: string): string => {
  const document = (file.endsWith(".json") ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 })) as Json
  const paths: Record<string, Json> = {}
  const found = new Set<string>()
  for (const entry of operations[file] ?? []) {
    const [method, template] = entry.split(" ") as [string, string]
    const item = ((document.paths ?? {}) as Json)[template] as Json | undefined
    const operation = item?.[method] as Json | undefined
    if (item === undefined || operation === undefined) throw new Error(`${file}: no operation ${entry}`)
    const examples = answerExamples(document, operation)
    // Responses written inline keep their example answers; answers by reference are inlined to keep theirs.
    const responses = Object.fromEntries(
      Object.entries((operation.responses ?? {}) as Json).map(([status, response]) => {
        const resolved = examples.size > 0 ? resolve(document, response as Json) : (response as Json)
        const plain = stripped(resolved) as Json
        if (plain.content === undefined) return [status, plain]
        const content = Object.fromEntries(
          Object.entries(plain.content as Json).map(([media, node]) => [
            media,
            { ...(node as Json), ...(examples.get(`${status} ${media}`) as Json | undefined) },
          ]),
        )
        return [status, { ...plain, content }]
      }),
    )
    const kept: Json = { ...(stripped(operation) as Json), responses }
    delete kept.operationId
    const pathParameters = item.parameters === undefined ? {} : { parameters: stripped(item.parameters) }
    paths[template] = { ...(paths[template] ?? pathParameters), [method]: kept }
    references(paths[template], found)
  }
  // The components the operations reach, transitively (and the security schemes, for the headers).
  const pending = [...found]
  while (pending.length > 0) {
    const pointer = pending.pop() as string
    const inner = new Set<string>()
    references(at(document, pointer), inner)
    for (const next of inner) {
      if (!found.has(next)) {
        found.add(next)
        pending.push(next)
      }
    }
  }
  const components: Record<string, Json> = {}
  for (const pointer of found) {
    const [, , kind, name] = pointer.split("/") as [string, string, string, string]
    const decoded = name.replaceAll("~1", "/").replaceAll("~0", "~")
    components[kind] = { ...components[kind], [decoded]: stripped(at(document, pointer)) }
  }
  const source = (document.components ?? {}) as Json
  if (source.securitySchemes !== undefined) components.securitySchemes = stripped(source.securitySchemes, true) as Json
  const info = document.info as Json
  const trimmed = {
    openapi: document.openapi,
    ...(document.jsonSchemaDialect === undefined ? {} : { jsonSchemaDialect: document.jsonSchemaDialect }),
    info: {
      title: info.title,
      version: info.version,
      ...(info.license === undefined ? {} : { license: info.license }),
    },
    ...(document.security === undefined ? {} : { security: document.security }),
    paths,
    components,
  }
  return `${JSON.stringify(sorted(trimmed), null, 1)}\n`
}

/**
 * Stripe publishes no document small enough to keep (its OpenAPI document is tens of MB; the `stripe`
 * package's types describe the requests): its example objects (`fixtures3.json`, one per resource) are
 * what the Stripe fake answers with. The resources the adapter reads, kept as published.
 */
export const fixtures: Record<string, ReadonlyArray<string>> = {
  "stripe-fixtures3.json": [
    "balance_transaction",
    "charge",
    "customer",
    "dispute",
    "event",
    "payment_intent",
    "payment_method",
    "refund",
    "setup_intent",
  ],
}

/** The published fixtures `file` trimmed to the resources kept. */
export const trimFixtures = (file: string, text: string): string => {
  const resources = (JSON.parse(text) as { resources: Json }).resources
  const kept = Object.fromEntries((fixtures[file] ?? []).map((name) => [name, resources[name]]))
  return `${JSON.stringify(sorted({ resources: kept }), null, 1)}\n`
}

/** Whether the published documents are here (`../shared/providers/`). */
export const sourcesPresent = () => existsSync(sourceDir)

/** The trimmed copy of each document, from `../shared/providers/`: name and text. */
export const trimAll = (): ReadonlyArray<readonly [string, string]> => [
  ...Object.keys(operations).map(
    (file) => [trimmedName(file), trim(file, readFileSync(`${sourceDir}${file}`, "utf8"))] as const,
  ),
  ...Object.keys(fixtures).map(
    (file) => [trimmedName(file), trimFixtures(file, readFileSync(`${sourceDir}${file}`, "utf8"))] as const,
  ),
]

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!sourcesPresent()) {
    console.error(`the providers' published documents are not at ${sourceDir}`)
    process.exit(1)
  }
  for (const [name, text] of trimAll()) {
    writeFileSync(`${trimmedDir}${name}`, text)
    console.log(`${name}: ${text.length} characters`)
  }
}
