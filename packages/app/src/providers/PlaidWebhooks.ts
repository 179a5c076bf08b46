/**
 * Plaid's item webhooks, verified as Plaid documents it: each webhook
 * carries a JWT in the `Plaid-Verification` header, signed with ES256 by a
 * key Plaid names in the JWT's `kid`; the key comes from Plaid's
 * `/webhook_verification_key/get` (through the `plaid` SDK) and is cached by
 * key id (a day, or until Plaid says it expired). Plaid is asked for a key
 * only for a well-formed ES256 token (header `alg` ES256 and a `kid` of at
 * most 128 letters, digits, `-` or `_`; claims `iat` within the 5-minute
 * window and `request_body_sha256` matching this body; a 64-byte signature),
 * a key id Plaid does not know is remembered as unknown for 10 minutes
 * (negative cache), and at most `keyFetchesPerMinute` (10) lookups go to Plaid
 * per minute whatever the key ids (a caller writing random `kid`s cannot make
 * the service call Plaid for each). The JWT's
 * `request_body_sha256` must be the SHA-256 of the exact body received, and
 * its `iat` at most 5 minutes old: a forged, altered or replayed webhook
 * (older than the window) is refused before anything reads it.
 *
 * A verified webhook is decoded to what partnerpay acts on (`ItemWebhook`):
 * `ITEM` `ERROR` with `ITEM_LOGIN_REQUIRED` and `PENDING_EXPIRATION` /
 * `PENDING_DISCONNECT` ask the customer to re-link; `USER_PERMISSION_REVOKED`
 * and `USER_ACCOUNT_REVOKED` remove the item's (or one account's) link.
 * `IDENTITY_VERIFICATION` `STATUS_UPDATED` (KYC on Plaid Identity
 * Verification, `PlaidKyc.ts`) names the verification: its customer (the
 * `client_user_id`, asked of `/identity_verification/get`) has the verdict
 * asked as a poll would (`CheckIdentity`).
 */
import { createHash, createPublicKey, type JsonWebKey, timingSafeEqual, verify } from "node:crypto"
import { CustomerProviders, Providers, Traced } from "@partnerpay/domain"
import { Effect, Layer, Schema } from "effect"
import * as PlaidBankLinker from "./PlaidBankLinker.ts"

/** The webhook is not Plaid's, or not this body, or too old: nothing in it is used. */
export class PlaidWebhookRefused extends Schema.TaggedError<PlaidWebhookRefused>()("PlaidWebhookRefused", {
  reason: Schema.String,
}) {}

/** What an item webhook asks of partnerpay. */
export type ItemAction = "Relink" | "RemoveItem" | "RemoveAccount" | "CheckIdentity" | "None"

/** A verified item webhook. */
export interface ItemWebhook {
  readonly webhookType: string
  readonly webhookCode: string
  /** The item; for `IDENTITY_VERIFICATION`, the verification's id. */
  readonly itemId: string
  /** `USER_ACCOUNT_REVOKED`: the account removed. */
  readonly accountId?: string | undefined
  /** `ERROR`: Plaid's error code (e.g. `ITEM_LOGIN_REQUIRED`). */
  readonly errorCode?: string | undefined
  readonly action: ItemAction
  /** When Plaid signed it (seconds): with the body's hash, what makes this notification unique. */
  readonly issuedAt: number
  readonly bodySha256: string
}

/** How old a webhook may be. */
export const maxAgeSeconds = 5 * 60
/** How long a fetched key is used before it is asked for again. */
export const keyCacheMillis = 24 * 60 * 60 * 1000

/** How long a key id Plaid does not know stays unknown (negative cache). */
export const unknownKeyCacheMillis = 10 * 60 * 1000

/** Lookups of keys at Plaid per minute at most, whatever the key ids. */
export const keyFetchesPerMinute = 10

/** Most key ids remembered (known or unknown); the oldest is forgotten first. */
export const maxCachedKeyIds = 1000

/** What a `kid` may be: Plaid's are UUIDs. */
const wellFormedKid = /^[A-Za-z0-9_-]{1,128}$/

const Body = Schema.Struct({
  webhook_type: Schema.String,
  webhook_code: Schema.String,
  item_id: Schema.optional(Schema.NullOr(Schema.String)),
  identity_verification_id: Schema.optional(Schema.String),
  account_id: Schema.optional(Schema.NullOr(Schema.String)),
  error: Schema.optional(Schema.NullOr(Schema.Struct({ error_code: Schema.String }))),
})

/** What a verified item webhook asks for. */
export const actionOf = (type: string, code: string, errorCode: string | undefined): ItemAction => {
  if (type === "IDENTITY_VERIFICATION") return code === "STATUS_UPDATED" ? "CheckIdentity" : "None"
  if (type !== "ITEM") return "None"
  switch (code) {
    case "ERROR":
      return errorCode === "ITEM_LOGIN_REQUIRED" ? "Relink" : "None"
    case "PENDING_EXPIRATION":
    case "PENDING_DISCONNECT":
      return "Relink"
    case "USER_PERMISSION_REVOKED":
      return "RemoveItem"
    case "USER_ACCOUNT_REVOKED":
      return "RemoveAccount"
    default:
      return "None"
  }
}

const decodePart = (part: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8"))
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** A verifier of Plaid's webhooks for the Plaid account of `config`; `nowMillis` is the clock. */
export const makeVerifier = (config: PlaidBankLinker.PlaidConfig, nowMillis: () => number = Date.now) => {
  const client = PlaidBankLinker.client(config)
  const keys = new Map<string, { readonly key: JsonWebKey | undefined; readonly fetchedAt: number }>()
  let fetches: Array<number> = []

  const remember = (kid: string, key: JsonWebKey | undefined) => {
    keys.delete(kid)
    keys.set(kid, { key, fetchedAt: nowMillis() })
    if (keys.size > maxCachedKeyIds) keys.delete(keys.keys().next().value as string)
  }

  const keyOf = Traced.fn("PlaidWebhooks.keyOf")(function* (kid: string) {
    const cached = keys.get(kid)
    if (cached !== undefined) {
      const age = nowMillis() - cached.fetchedAt
      if (cached.key !== undefined && age < keyCacheMillis) return cached.key
      if (cached.key === undefined && age < unknownKeyCacheMillis) {
        return yield* new PlaidWebhookRefused({ reason: "Plaid does not know the key that signed it" })
      }
    }
    // At most `keyFetchesPerMinute` lookups a minute: beyond, Plaid is not asked (it retries its webhooks).
    const now = nowMillis()
    fetches = fetches.filter((at) => now - at < 60_000)
    if (fetches.length >= keyFetchesPerMinute) {
      return yield* new Providers.ProviderUnavailable({
        provider: "Plaid",
        reason: "webhook verification key: too many key lookups this minute",
      })
    }
    fetches.push(now)
    const answer = yield* Effect.tryPromise({
      try: () => client.webhookVerificationKeyGet({ key_id: kid }),
      catch: (thrown) => {
        const status = (thrown as { response?: { status?: number } } | null)?.response?.status
        return status !== undefined && status < 500
          ? new PlaidWebhookRefused({ reason: "Plaid does not know the key that signed it" })
          : new Providers.ProviderUnavailable({
              provider: "Plaid",
              reason: `webhook verification key: ${status === undefined ? "no answer" : `Plaid answered ${status}`}`,
            })
      },
    }).pipe(
      Effect.tapError((error) =>
        error._tag === "PlaidWebhookRefused" ? Effect.sync(() => remember(kid, undefined)) : Effect.void,
      ),
    )
    const { key } = answer.data
    if (key.expired_at !== null && key.expired_at !== undefined) {
      return yield* new PlaidWebhookRefused({ reason: "signed with an expired key" })
    }
    const jwk: JsonWebKey = { kty: key.kty, crv: key.crv, x: key.x, y: key.y }
    remember(kid, jwk)
    return jwk
  })

  /** The webhook of `rawBody` if `verification` (the `Plaid-Verification` header) proves it Plaid's and recent. */
  const verifyWebhook = Traced.fn("PlaidWebhooks.verify")(function* (
    rawBody: string,
    verification: string | undefined,
  ) {
    const refuse = (reason: string) => Effect.fail(new PlaidWebhookRefused({ reason }))
    if (verification === undefined || verification === "") return yield* refuse("no Plaid-Verification header")
    const parts = verification.split(".")
    const header = decodePart(parts[0])
    const claims = decodePart(parts[1])
    if (parts.length !== 3 || header === undefined || claims === undefined) return yield* refuse("not a JWT")
    if (header.alg !== "ES256" || typeof header.kid !== "string") return yield* refuse("not signed with ES256")
    // Everything that can be checked without the key first: Plaid is asked for keys of well-formed tokens only.
    if (!wellFormedKid.test(header.kid)) return yield* refuse("not signed with ES256")
    if (Buffer.from(parts[2] ?? "", "base64url").length !== 64) return yield* refuse("not signed with ES256")
    const issuedAt = claims.iat
    if (typeof issuedAt !== "number" || Math.abs(nowMillis() / 1000 - issuedAt) > maxAgeSeconds) {
      return yield* refuse("signed more than 5 minutes ago (a replay) or in the future")
    }
    const bodySha256 = createHash("sha256").update(rawBody, "utf8").digest("hex")
    if (typeof claims.request_body_sha256 !== "string" || !sameHex(claims.request_body_sha256, bodySha256)) {
      return yield* refuse("the body is not the one Plaid signed")
    }
    const jwk = yield* keyOf(header.kid)
    const signed = verify(
      "sha256",
      Buffer.from(`${parts[0]}.${parts[1]}`),
      { key: createPublicKey({ key: jwk, format: "jwk" }), dsaEncoding: "ieee-p1363" },
      Buffer.from(parts[2] ?? "", "base64url"),
    )
    if (!signed) return yield* refuse("the signature does not verify")
    const body = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(Body))(rawBody).pipe(
      Effect.mapError(() => new PlaidWebhookRefused({ reason: "not an item webhook" })),
    )
    const errorCode = body.error?.error_code
    const itemId = body.webhook_type === "IDENTITY_VERIFICATION" ? body.identity_verification_id : body.item_id
    if (itemId === undefined || itemId === null) return yield* refuse("not an item webhook")
    const webhook: ItemWebhook = {
      webhookType: body.webhook_type,
      webhookCode: body.webhook_code,
      itemId,
      accountId: body.account_id ?? undefined,
      errorCode,
      action: actionOf(body.webhook_type, body.webhook_code, errorCode),
      issuedAt,
      bodySha256,
    }
    return webhook
  })

  /** The customer (Plaid's `client_user_id`) of an identity verification. */
  const customerOf = Traced.fn("PlaidWebhooks.customerOf")(function* (identityVerificationId: string) {
    const answer = yield* Effect.tryPromise({
      try: () => client.identityVerificationGet({ identity_verification_id: identityVerificationId }),
      catch: (thrown) => {
        const status = (thrown as { response?: { status?: number } } | null)?.response?.status
        return new Providers.ProviderUnavailable({
          provider: "Plaid",
          reason: `identity verification: ${status === undefined ? "no answer" : `Plaid answered ${status}`}`,
        })
      },
    })
    return answer.data.client_user_id
  })

  return { verify: verifyWebhook, customerOf }
}

/** The `BankLinkCallbacks` port on Plaid's verified item webhooks. */
export const layer = (config: PlaidBankLinker.PlaidConfig): Layer.Layer<CustomerProviders.BankLinkCallbacks> =>
  Layer.sync(CustomerProviders.BankLinkCallbacks, () => {
    const verifier = makeVerifier(config)
    return CustomerProviders.BankLinkCallbacks.of({
      verify: ({ body, headers }) =>
        verifier.verify(body, headers["plaid-verification"]).pipe(
          Effect.flatMap((webhook) =>
            Effect.map(
              webhook.action === "CheckIdentity" ? verifier.customerOf(webhook.itemId) : Effect.succeed(undefined),
              (registrationId): CustomerProviders.BankLinkCallback => ({
                itemId: webhook.itemId,
                action: webhook.action,
                accountId: webhook.accountId,
                reason: webhook.errorCode ?? webhook.webhookCode,
                registrationId,
              }),
            ),
          ),
          Effect.catchTag("PlaidWebhookRefused", (refused) =>
            Effect.fail(new CustomerProviders.BankLinkCallbackRefused({ reason: refused.reason })),
          ),
        ),
    })
  })
