/**
 * Text no field accepts is refused at the edge: the NUL character and lone
 * UTF-16 surrogates cannot be stored by PostgreSQL (text or jsonb), so a path
 * id, a query parameter or a JSON body field holding one is a 400 problem
 * naming the field, never a database error surfacing as a 503 "retry later"
 * (found by the fault suite and the security audit), and nothing changes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Ids, Payments } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect } from "effect"
import { afterAll } from "vitest"
import * as UnstorableText from "../src/cross-cutting/UnstorableText.ts"
import { partnerId, send } from "./fixtures.ts"
import { customerToken, makeSharedServer, partnerTokenFor, registerCompany, registerCustomer } from "./partyFixtures.ts"

const { handler, run, dispose } = await makeSharedServer()
afterAll(dispose)

const companyId = Ids.CompanyId.make("c0c0c0c0-0000-4000-8000-0000000000e1")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000000e1")
await Effect.runPromise(
  run(
    Effect.gen(function* () {
      yield* registerCompany(partnerId, companyId, "Acme Coffee")
      yield* registerCustomer(partnerId, payer)
    }),
  ),
)
const partner = await Effect.runPromise(partnerTokenFor(partnerId))
const customer = await Effect.runPromise(customerToken(partnerId, payer))

const bytes = (text: string) => new TextEncoder().encode(text)

type FieldErrors = ReadonlyArray<{ readonly field: string; readonly message: string }>

/** Sends `body` (JSON text, escapes as written) and returns the answer's status and errors. */
const call = (method: string, path: string, token: string, body?: string) =>
  Effect.map(
    send(handler, path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body }),
    }),
    (r) => ({ ...r, errors: ((r.json as { errors?: FieldErrors } | undefined)?.errors ?? []) as FieldErrors }),
  )

/** JSON text of `value` with `"@LONE@"` replaced by the escape of a lone high surrogate. */
const withLone = (value: unknown, lone = String.raw`\ud800`) => JSON.stringify(value).replaceAll("@LONE@", lone)

const surrogate = (field: string) => [{ field, message: UnstorableText.surrogateMessage }]
const nul = (field: string) => [{ field, message: UnstorableText.nulMessage }]

describe("the byte scan of a body", () => {
  it("finds NUL raw or escaped, but not an escaped backslash followed by u0000", () => {
    assert.isTrue(UnstorableText.containsUnstorable(bytes('{"a":"x\u0000y"}')))
    assert.isTrue(UnstorableText.containsUnstorable(bytes(String.raw`{"a":"x\u0000y"}`)))
    assert.isTrue(UnstorableText.containsUnstorable(bytes(String.raw`{"a":"x\\\u0000y"}`)))
    assert.isFalse(UnstorableText.containsUnstorable(bytes(String.raw`{"a":"x\\u0000y"}`)))
    assert.isFalse(UnstorableText.containsUnstorable(bytes(String.raw`{"a":"x\u0001y"}`)))
  })

  it("finds a lone surrogate escape in either case, but not a pair or an escaped backslash", () => {
    for (const lone of [
      String.raw`\ud800`,
      String.raw`\uDBFF`,
      String.raw`\udc00`,
      String.raw`\uDFFF`,
      String.raw`\ud800\u0041`,
      String.raw`\ud800\ud800`,
      String.raw`\ude42\ud83d`,
      String.raw`\ud83d\ude42\udc00`,
      String.raw`x\\\ud800`,
    ])
      assert.isTrue(UnstorableText.containsUnstorable(bytes(`{"a":"${lone}"}`)), lone)
    for (const fine of [
      String.raw`\ud83d\ude42`,
      String.raw`\uD83D\uDE42`,
      String.raw`\\ud800`,
      String.raw`\ud7ff\ue000`,
      "🙂",
    ])
      assert.isFalse(UnstorableText.containsUnstorable(bytes(`{"a":"${fine}"}`)), fine)
  })
})

describe("a lone surrogate in a text field", () => {
  it.effect("on Payment/Create is a 400 naming the field, and no payment request is created", () =>
    Effect.gen(function* () {
      const body = {
        companyId,
        payerRegistrationId: payer,
        amount: { value: 12.5, currencyCode: "USD" },
        description: "@LONE@",
        dueDate: "2099-01-01",
        lineItems: [{ description: "Beans @LONE@", quantity: 1, unitAmount: { value: 12.5, currencyCode: "USD" } }],
      }
      for (const lone of [String.raw`\ud800`, String.raw`\udc00`, String.raw`\ud800\u0041`]) {
        const r = yield* call("POST", "/Payment/Create", partner, withLone(body, lone))
        assert.strictEqual(r.status, 400, r.text)
        assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
        assert.deepStrictEqual(r.errors, [...surrogate("description"), ...surrogate("lineItems[0].description")])
      }
      const history = yield* run(Payments.history({ partnerId, payerRegistrationId: payer, limit: 10 }))
      assert.deepStrictEqual(history.data, [])
    }),
  )

  it.effect("on Company/Create and Locations is a 400 naming the dotted path, and no company is registered", () =>
    Effect.gen(function* () {
      const body = Fixtures.companyRegistrationBody({
        companyReferenceId: "ref-unstorable",
        name: "Acme @LONE@",
        owner: { ...Fixtures.owner, name: "@LONE@ Lovelace" },
      })
      const r = yield* call("POST", "/Company/Create", partner, withLone(body))
      assert.strictEqual(r.status, 400, r.text)
      assert.deepStrictEqual(r.errors, [...surrogate("name"), ...surrogate("owner.name")])
      const status = yield* call("GET", "/company/status?companyReferenceId=ref-unstorable", partner)
      assert.strictEqual(status.status, 404, status.text)
      const location = { ...Fixtures.mainStreetStore, name: "Cart @LONE@" }
      const added = yield* call("POST", "/Company/ref-unstorable/Locations", partner, withLone(location))
      assert.deepStrictEqual([added.status, added.errors], [400, surrogate("name")])
    }),
  )

  it.effect("on Accept, /cardpayment and Account/Link is a 400 naming the field", () =>
    Effect.gen(function* () {
      const accept = yield* call(
        "POST",
        "/Transaction/PaymentRequest/00000000-0000-4000-8000-0000000000e2/Accept",
        customer,
        withLone({
          bankAccountId: "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69",
          acceptDebitAuth: false,
          transferDescription: "@LONE@",
        }),
      )
      assert.deepStrictEqual([accept.status, accept.errors], [400, surrogate("transferDescription")])
      const card = yield* call(
        "POST",
        "/cardpayment",
        partner,
        withLone({
          merchantId: companyId,
          amount: { value: 3, currencyCode: "USD" },
          last4: "4242",
          brand: "visa",
          externalReference: "@LONE@",
        }),
      )
      assert.deepStrictEqual([card.status, card.errors], [400, surrogate("externalReference")])
      const link = yield* call(
        "PUT",
        "/Account/Link",
        customer,
        withLone({
          tokenId: "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66",
          publicToken: "public-sandbox",
          linkAccountsMetadata: { linkSessionId: "s", institutionId: "ins_@LONE@", accountIds: ["a"] },
        }),
      )
      assert.deepStrictEqual([link.status, link.errors], [400, surrogate("linkAccountsMetadata.institutionId")])
    }),
  )

  it.effect("in a field name is a 400 naming the object that holds it, without echoing the name", () =>
    Effect.gen(function* () {
      const r = yield* call("POST", "/Payment/Create", partner, withLone({ amount: { "x@LONE@": 1 } }))
      assert.deepStrictEqual([r.status, r.errors], [400, [{ field: "amount", message: UnstorableText.keyMessage }]])
    }),
  )
})

describe("a NUL character", () => {
  it.effect("in a JSON body field is a 400 naming the field; in a body that is not JSON, naming the body", () =>
    Effect.gen(function* () {
      const r = yield* call("POST", "/Company/Create", partner, String.raw`{"companyReferenceId":"a\u0000b"}`)
      assert.deepStrictEqual([r.status, r.errors], [400, nul("companyReferenceId")])
      const raw = yield* call("POST", "/Company/Create", partner, '{"companyReferenceId":"a\u0000b"}')
      assert.strictEqual(raw.status, 400)
      assert.deepStrictEqual(
        raw.errors.map((e) => e.field),
        ["body"],
      )
    }),
  )
})

describe("the request target", () => {
  it.effect("NUL or bytes that are not UTF-8 (an encoded surrogate) are a 400 naming the path or the parameter", () =>
    Effect.gen(function* () {
      const cases = [
        { method: "POST", path: "/Company/%00/Locations", field: "path" },
        { method: "POST", path: "/Company/%ED%A0%80/Locations", field: "path" },
        { method: "POST", path: "/Company/%FF%FE/Locations", field: "path" },
        { method: "GET", path: "/company/status?companyReferenceId=%00", field: "query.companyReferenceId" },
        { method: "GET", path: "/company/status?companyReferenceId=a%ED%A0%80", field: "query.companyReferenceId" },
        { method: "GET", path: "/company/status?company%ED%A0%80=1", field: "query" },
      ] as const
      for (const c of cases) {
        const r = yield* call(c.method, c.path, partner, c.method === "POST" ? "{}" : undefined)
        assert.strictEqual(r.status, 400, `${c.method} ${c.path}`)
        assert.strictEqual(r.headers.get("content-type"), "application/problem+json")
        assert.deepStrictEqual(r.errors, [{ field: c.field, message: UnstorableText.percentMessage }], c.path)
      }
    }),
  )

  it.effect("a lone % and encoded UTF-8 text pass on to the route", () =>
    Effect.gen(function* () {
      const r = yield* call("GET", "/company/status?companyReferenceId=100%25%20caf%C3%A9%", partner)
      assert.strictEqual(r.status, 404, r.text)
    }),
  )
})
