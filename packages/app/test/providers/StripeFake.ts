/**
 * A local fake of Stripe for the tests (contract tests and the production
 * walk): a node:http server on an ephemeral port speaking Stripe's v1 API as
 * the official `stripe` SDK calls it (form-encoded bodies, `Authorization:
 * Bearer`, `Stripe-Version`, `Idempotency-Key`), answering with Stripe's own
 * published example objects (`documents/stripe-fixtures3.json`, trimmed from
 * Stripe's `fixtures3.json`) with the fields of this fake's state laid over.
 *
 * State: customers, card PaymentMethods (attached by the test, as the app's
 * SetupIntent would), SetupIntents, PaymentIntents and their charges and
 * balance transactions (available one settlement cycle, `availableAfterSeconds`,
 * after creation, or as `terminalPayment` is told), refunds; an Idempotency-Key asked again answers the first
 * answer (Stripe's own rule). Card magic values (the sandbox's and Stripe's
 * test cards): last4 `0002` declines (`card_declined` / `generic_decline`),
 * `9995` declines `insufficient_funds`, `3155` needs authentication (off
 * session: Stripe's `authentication_required` card error, with its PaymentIntent
 * and client secret; `authenticate` then completes it as Stripe.js would).
 * `failNext("500")` answers the next call with Stripe's `api_error`.
 *
 * Every request is recorded: method, path, its decoded form (nested keys as
 * Stripe writes them: `metadata[key]`), the idempotency key, the API version
 * and whether the bearer key was the configured one.
 */
import { readFileSync } from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, type Scope } from "effect"
import type Stripe from "stripe"

export const secretKey = "sk_test_partnerpay_fake_0123456789"
export const webhookSecret = "whsec_partnerpay_fake_0123456789abcdef"

/** Seconds until a charge's money is available (one settlement cycle of the sandbox: a day). */
export const availableAfterSeconds = 86_400

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly form: Readonly<Record<string, string>>
  readonly idempotencyKey?: string | undefined
  readonly stripeVersion?: string | undefined
  readonly authorized: boolean
}

export interface StripeState {
  readonly customers: Map<string, Stripe.Customer>
  readonly paymentMethods: Map<string, Stripe.PaymentMethod>
  readonly paymentIntents: Map<string, Stripe.PaymentIntent>
  readonly charges: Map<string, Stripe.Charge>
  readonly refunds: Map<string, Stripe.Refund>
  readonly setupIntents: Map<string, Stripe.SetupIntent>
}

export interface StripeFake {
  readonly url: string
  readonly state: StripeState
  readonly requests: () => ReadonlyArray<RecordedRequest>
  /** A card PaymentMethod attached to `customer` (what a confirmed SetupIntent leaves). */
  readonly attachCard: (customer: string, last4: string, brand?: string) => Stripe.PaymentMethod
  /**
   * A succeeded PaymentIntent made elsewhere (a terminal), for POST /cardpayment; its money available
   * `availableAfter` seconds after creation (default `availableAfterSeconds`; 0: at once).
   */
  readonly terminalPayment: (amount: number, currency: string, availableAfter?: number) => Stripe.PaymentIntent
  /** The next refunds answer this status (Stripe's `pending`: decided later, by its webhook). */
  readonly refundStatus: (status: "succeeded" | "pending" | "failed") => void
  readonly failNext: (kind: "500") => void
  /**
   * The payer authenticated (3-D Secure) the PaymentIntent in the app with Stripe.js: succeeded (charged,
   * its charge and balance transaction made) or failed (`payment_intent_authentication_failure`). Answers
   * the PaymentIntent, as Stripe's `payment_intent.succeeded` / `payment_intent.payment_failed` carries it.
   */
  readonly authenticate: (paymentIntentId: string, succeeded: boolean) => Stripe.PaymentIntent
}

type Json = Record<string, unknown>

/** Stripe's published example objects (the trimmed copy committed beside the other providers' documents). */
const resources = (
  JSON.parse(readFileSync(new URL("./documents/stripe-fixtures3.json", import.meta.url), "utf8")) as {
    readonly resources: Json
  }
).resources

const example = <A>(name: string): A => structuredClone(resources[name]) as A

/** Stripe's form encoding decoded flat: `metadata[key]` stays one key. */
const decodeForm = (text: string): Record<string, string> => Object.fromEntries(new URLSearchParams(text).entries())

const metadataOf = (form: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(form)
      .filter(([key]) => key.startsWith("metadata["))
      .map(([key, value]) => [key.slice("metadata[".length, -1), value]),
  )

const cardError = (code: string, declineCode: string, message: string, paymentIntent?: Stripe.PaymentIntent) => ({
  status: 402,
  body: {
    error: {
      type: "card_error",
      code,
      decline_code: declineCode,
      message,
      ...(paymentIntent === undefined ? {} : { payment_intent: paymentIntent }),
    },
  },
})

const notFound = (what: string, id: string) => ({
  status: 404,
  body: {
    error: {
      type: "invalid_request_error",
      code: "resource_missing",
      message: `No such ${what}: '${id}'`,
      param: "id",
    },
  },
})

/** Starts the fake (closed with the scope). */
export const start = (): Effect.Effect<StripeFake, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const state: StripeState = {
        customers: new Map(),
        paymentMethods: new Map(),
        paymentIntents: new Map(),
        charges: new Map(),
        refunds: new Map(),
        setupIntents: new Map(),
      }
      const requests: Array<RecordedRequest> = []
      const answered = new Map<string, { status: number; body: unknown }>()
      let counter = 0
      let refundStatus: "succeeded" | "pending" | "failed" = "succeeded"
      let failing: "500" | undefined
      const nextId = (prefix: string) => {
        counter += 1
        return `${prefix}_fake${String(counter).padStart(8, "0")}`
      }
      const now = () => Math.floor(Date.now() / 1000)

      const makeCharge = (
        intent: { id: string; amount: number; currency: string; metadata: Json },
        availableAfter = availableAfterSeconds,
      ) => {
        const transaction: Stripe.BalanceTransaction = {
          ...example<Stripe.BalanceTransaction>("balance_transaction"),
          id: nextId("txn"),
          amount: intent.amount,
          currency: intent.currency,
          created: now(),
          available_on: now() + availableAfter,
          status: availableAfter <= 0 ? "available" : "pending",
        }
        const charge: Stripe.Charge = {
          ...example<Stripe.Charge>("charge"),
          id: nextId("ch"),
          amount: intent.amount,
          amount_captured: intent.amount,
          amount_refunded: 0,
          currency: intent.currency,
          paid: true,
          captured: true,
          refunded: false,
          status: "succeeded",
          payment_intent: intent.id,
          balance_transaction: transaction,
          metadata: {},
        }
        state.charges.set(charge.id, charge)
        return charge
      }

      const createPaymentIntent = (form: Record<string, string>) => {
        const method = state.paymentMethods.get(form.payment_method ?? "")
        if (method === undefined) return notFound("PaymentMethod", form.payment_method ?? "")
        const id = nextId("pi")
        const base: Stripe.PaymentIntent = {
          ...example<Stripe.PaymentIntent>("payment_intent"),
          id,
          client_secret: `${id}_secret_fake`,
          amount: Number(form.amount),
          amount_received: 0,
          currency: form.currency ?? "usd",
          customer: form.customer ?? null,
          description: form.description ?? null,
          payment_method: method.id,
          metadata: metadataOf(form),
          last_payment_error: null,
          next_action: null,
          latest_charge: null,
          canceled_at: null,
          created: now(),
          status: "requires_payment_method",
        }
        const last4 = method.card?.last4
        if (last4 === "0002" || last4 === "9995") {
          const declined = last4 === "0002" ? "generic_decline" : "insufficient_funds"
          state.paymentIntents.set(id, base)
          return cardError("card_declined", declined, "Your card was declined.", base)
        }
        if (last4 === "3155") {
          state.paymentIntents.set(id, base)
          return cardError(
            "authentication_required",
            "authentication_required",
            "Your card was declined. This transaction requires authentication.",
            base,
          )
        }
        const charge = makeCharge({ id, amount: base.amount, currency: base.currency, metadata: base.metadata })
        const intent: Stripe.PaymentIntent = {
          ...base,
          amount_received: base.amount,
          status: "succeeded",
          latest_charge: charge.id,
        }
        state.paymentIntents.set(id, intent)
        return { status: 200, body: expanded(intent, form) }
      }

      /** `latest_charge` (and its balance transaction) expanded when asked. */
      const expanded = (intent: Stripe.PaymentIntent, form: Record<string, string>) => {
        const expand = Object.entries(form)
          .filter(([key]) => key.startsWith("expand["))
          .map(([, value]) => value)
        if (!expand.some((field) => field.startsWith("latest_charge"))) return intent
        const charge = state.charges.get(String(intent.latest_charge))
        if (charge === undefined) return intent
        const balance = expand.includes("latest_charge.balance_transaction")
        return {
          ...intent,
          latest_charge: balance
            ? charge
            : { ...charge, balance_transaction: (charge.balance_transaction as Stripe.BalanceTransaction).id },
        }
      }

      const chargeOf = (form: Record<string, string>) => {
        if (form.charge !== undefined) return state.charges.get(form.charge)
        const intent = state.paymentIntents.get(form.payment_intent ?? "")
        return intent === undefined ? undefined : state.charges.get(String(intent.latest_charge))
      }

      const createRefund = (form: Record<string, string>) => {
        const charge = chargeOf(form)
        if (charge === undefined) return notFound("charge", form.charge ?? form.payment_intent ?? "")
        const amount = form.amount === undefined ? charge.amount - charge.amount_refunded : Number(form.amount)
        if (amount > charge.amount - charge.amount_refunded)
          return {
            status: 400,
            body: {
              error: {
                type: "invalid_request_error",
                code: "amount_too_large",
                message: "Refund amount is greater than unrefunded amount on charge",
                param: "amount",
              },
            },
          }
        const refund: Stripe.Refund = {
          ...example<Stripe.Refund>("refund"),
          id: nextId("re"),
          amount,
          charge: charge.id,
          currency: charge.currency,
          payment_intent: typeof charge.payment_intent === "string" ? charge.payment_intent : null,
          metadata: metadataOf(form),
          created: now(),
          status: refundStatus,
        }
        if (refundStatus !== "failed") {
          charge.amount_refunded += amount
          charge.refunded = charge.amount_refunded === charge.amount
        }
        state.refunds.set(refund.id, refund)
        return { status: 200, body: refund }
      }

      const list = (data: ReadonlyArray<unknown>, url: string) => ({
        status: 200,
        body: { object: "list", data, has_more: false, url },
      })

      const route = (method: string, path: string, form: Record<string, string>): { status: number; body: unknown } => {
        const parts = path.split("/").filter((part) => part !== "")
        const [version, resource, id, sub] = parts
        if (version !== "v1") return notFound("path", path)
        if (method === "POST" && resource === "customers" && id === undefined) {
          const customer: Stripe.Customer = {
            ...example<Stripe.Customer>("customer"),
            id: nextId("cus"),
            metadata: metadataOf(form),
            created: now(),
          }
          state.customers.set(customer.id, customer)
          return { status: 200, body: customer }
        }
        if (method === "GET" && resource === "customers" && id !== undefined && sub === undefined) {
          const found = state.customers.get(id)
          return found === undefined ? notFound("customer", id) : { status: 200, body: found }
        }
        if (method === "GET" && resource === "customers" && sub === "payment_methods") {
          if (!state.customers.has(id ?? "")) return notFound("customer", id ?? "")
          const cards = [...state.paymentMethods.values()].filter((pm) => pm.customer === id)
          return list(cards, `/v1/customers/${id}/payment_methods`)
        }
        if (method === "GET" && resource === "payment_methods" && id !== undefined) {
          const found = state.paymentMethods.get(id)
          return found === undefined ? notFound("PaymentMethod", id) : { status: 200, body: found }
        }
        if (method === "POST" && resource === "payment_intents" && id === undefined) return createPaymentIntent(form)
        if (resource === "payment_intents" && id !== undefined) {
          const intent = state.paymentIntents.get(id)
          if (intent === undefined) return notFound("payment_intent", id)
          if (method === "POST") intent.metadata = { ...intent.metadata, ...metadataOf(form) }
          return { status: 200, body: expanded(intent, form) }
        }
        if (resource === "charges" && id !== undefined) {
          const charge = state.charges.get(id)
          if (charge === undefined) return notFound("charge", id)
          if (method === "POST") charge.metadata = { ...charge.metadata, ...metadataOf(form) }
          const expand = Object.values(form)
          const transaction = charge.balance_transaction as Stripe.BalanceTransaction
          const intent = state.paymentIntents.get(String(charge.payment_intent))
          return {
            status: 200,
            body: {
              ...charge,
              balance_transaction: expand.includes("balance_transaction") ? transaction : transaction.id,
              ...(expand.includes("payment_intent") && intent !== undefined ? { payment_intent: intent } : {}),
            },
          }
        }
        if (method === "POST" && resource === "refunds" && id === undefined) return createRefund(form)
        if (method === "GET" && resource === "refunds" && id === undefined) {
          const refunds = [...state.refunds.values()].filter((refund) => refund.charge === form.charge)
          return list(refunds, "/v1/refunds")
        }
        if (method === "GET" && resource === "refunds" && id !== undefined) {
          const found = state.refunds.get(id)
          return found === undefined ? notFound("refund", id) : { status: 200, body: found }
        }
        if (method === "POST" && resource === "setup_intents" && id === undefined) {
          const setupId = nextId("seti")
          const intent: Stripe.SetupIntent = {
            ...example<Stripe.SetupIntent>("setup_intent"),
            id: setupId,
            client_secret: `${setupId}_secret_fake`,
            customer: form.customer ?? null,
            usage: form.usage ?? "off_session",
            metadata: metadataOf(form),
            status: "requires_payment_method",
          }
          state.setupIntents.set(setupId, intent)
          return { status: 200, body: intent }
        }
        return notFound("path", path)
      }

      const server = Http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const url = new URL(request.url ?? "/", "http://localhost")
          const method = request.method ?? "GET"
          const text = Buffer.concat(chunks).toString("utf8")
          const form = method === "GET" ? decodeForm(url.search.slice(1)) : decodeForm(text)
          const header = (name: string) => {
            const value = request.headers[name]
            return Array.isArray(value) ? value[0] : value
          }
          const idempotencyKey = header("idempotency-key")
          const authorized = header("authorization") === `Bearer ${secretKey}`
          requests.push({
            method,
            path: url.pathname,
            form,
            idempotencyKey,
            stripeVersion: header("stripe-version"),
            authorized,
          })
          const keyed = idempotencyKey === undefined ? undefined : `${method} ${url.pathname} ${idempotencyKey}`
          const repeated = keyed === undefined ? undefined : answered.get(keyed)
          let answer: { status: number; body: unknown }
          if (!authorized) {
            answer = {
              status: 401,
              body: { error: { type: "invalid_request_error", message: "Invalid API Key provided" } },
            }
          } else if (repeated !== undefined) {
            answer = repeated
          } else if (failing !== undefined) {
            failing = undefined
            answer = { status: 500, body: { error: { type: "api_error", message: "Something went wrong." } } }
          } else {
            answer = route(method, url.pathname, form)
            if (keyed !== undefined && answer.status < 500) answered.set(keyed, answer)
          }
          response.writeHead(answer.status, { "content-type": "application/json", "request-id": nextId("req") })
          response.end(JSON.stringify(answer.body))
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const fake: StripeFake = {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        state,
        requests: () => [...requests],
        attachCard: (customer, last4, brand = "visa") => {
          const base = example<Stripe.PaymentMethod>("payment_method")
          const method: Stripe.PaymentMethod = {
            ...base,
            id: nextId("pm"),
            type: "card",
            customer,
            card: {
              ...(base.card as Stripe.PaymentMethod.Card),
              brand,
              last4,
              exp_month: 12,
              exp_year: 2034,
            },
            created: now(),
          }
          state.paymentMethods.set(method.id, method)
          return method
        },
        terminalPayment: (amount, currency, availableAfter) => {
          const id = nextId("pi")
          const charge = makeCharge({ id, amount, currency, metadata: {} }, availableAfter)
          const intent: Stripe.PaymentIntent = {
            ...example<Stripe.PaymentIntent>("payment_intent"),
            id,
            amount,
            amount_received: amount,
            currency,
            status: "succeeded",
            latest_charge: charge.id,
            last_payment_error: null,
            metadata: {},
            created: now(),
          }
          state.paymentIntents.set(id, intent)
          return intent
        },
        refundStatus: (status) => {
          refundStatus = status
        },
        failNext: (kind) => {
          failing = kind
        },
        authenticate: (paymentIntentId, succeeded) => {
          const intent = state.paymentIntents.get(paymentIntentId)
          if (intent === undefined) throw new Error(`no PaymentIntent ${paymentIntentId}`)
          const done: Stripe.PaymentIntent = succeeded
            ? {
                ...intent,
                status: "succeeded",
                amount_received: intent.amount,
                last_payment_error: null,
                latest_charge: makeCharge({
                  id: intent.id,
                  amount: intent.amount,
                  currency: intent.currency,
                  metadata: intent.metadata,
                }).id,
              }
            : {
                ...intent,
                status: "requires_payment_method",
                last_payment_error: {
                  type: "card_error",
                  code: "payment_intent_authentication_failure",
                  message: "The provided PaymentMethod has failed authentication.",
                } as Stripe.PaymentIntent.LastPaymentError,
              }
          state.paymentIntents.set(paymentIntentId, done)
          return done
        },
      }
      return { server, fake }
    }),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          }),
      ),
  ).pipe(Effect.map(({ fake }) => fake))
