/**
 * Evidence of a payer's authorization (NACHA WEB debits: the originator keeps the authorization two
 * years and produces it on request): when it was given, from which client address (resolved
 * through the trusted proxies, as the rate limiter does) and user agent, and the text the payer
 * agreed to with its version. Recorded on the event of every authorization the payer gives through
 * the interface (an Accept, a consent, a debit authorization set or changed, the autopay designation,
 * a charity gift, a card payment); a partner reads it as `authorization` where the object is read
 * (docs/api/authorization-evidence.md).
 *
 * The texts: a default per kind, versioned (`defaultTexts`, documented in
 * docs/api/authorization-evidence.md); changing a wording means a new version, never an edit, so
 * the recorded `textVersion` always names the words the payer saw. Retention and erasure:
 * docs/personal-data.md.
 */
import { type DateTime, Schema } from "effect"

/** What the payer authorized. */
export const Kind = Schema.Literals([
  "PaymentAcceptance",
  "Consent",
  "DebitAuthorization",
  "Autopay",
  "CharityGift",
  "RecurringCharityGift",
  "CardPayment",
])
export type Kind = typeof Kind.Type

/** The default wording of each kind, with its version. */
export const defaultTexts: Readonly<Record<Kind, { readonly version: string; readonly text: string }>> = {
  PaymentAcceptance: {
    version: "payment-acceptance/2026-11-28",
    text: "I authorize the company named in this payment request to debit the bank account I selected, once, for the amount shown, and, if I so chose, to debit it again under a debit authorization up to the limit shown. I may revoke this authorization by contacting the company; I may dispute an unauthorized debit with my bank.",
  },
  Consent: {
    version: "consent/2026-11-28",
    text: "I authorize the company named in this payment plan to debit the bank account I selected for each instalment of the plan, of the amount and on the schedule shown, until the plan ends or I revoke this authorization by declining the consent.",
  },
  DebitAuthorization: {
    version: "debit-authorization/2026-11-28",
    text: "I authorize the company named to debit my linked bank account for its payment requests, each up to the limit I set, until I disable or change this authorization.",
  },
  Autopay: {
    version: "autopay/2026-11-28",
    text: "I designate the bank account I selected for autopay: I authorize each company whose payment request to me is set for autopay to debit this account on the request's due date, for the amount requested when it is within the request's autopay limit, until I designate another account, unlink this one, or revoke this authorization by contacting the company.",
  },
  CharityGift: {
    version: "charity-gift/2026-11-28",
    text: "I authorize a one-time debit of my linked bank account for the donation shown, including the processing fee if I chose to cover it, for the charity named.",
  },
  RecurringCharityGift: {
    version: "recurring-charity-gift/2026-11-28",
    text: "I authorize a debit of my linked bank account for the donation shown, including the processing fee if I chose to cover it, for the charity named, today and every month after on the same day, until I cancel this recurring gift.",
  },
  CardPayment: {
    version: "card-payment/2026-11-28",
    text: "I authorize the company named to charge the card I selected, once, for the amount shown.",
  },
}

/** The longest user agent kept (longer ones are cut: the evidence is the start of the header). */
export const maxUserAgentLength = 512

export const AuthorizationEvidence = Schema.Struct({
  acceptedAt: Schema.DateTimeUtcFromString.annotate({ description: "When the payer gave the authorization" }),
  /** The client's address (IPv4 or IPv6), as resolved through the trusted proxies; "unknown" when not known. */
  ipAddress: Schema.String.annotate({
    description: "The payer's client address, resolved through the trusted proxies (IPv4 or IPv6)",
  }),
  /** The request's User-Agent header ("" when absent). */
  userAgent: Schema.String.annotate({ description: "The User-Agent header of the payer's request" }),
  text: Schema.String.annotate({ description: "The authorization text the payer agreed to" }),
  textVersion: Schema.String.annotate({ description: "The version of that text (a wording is never edited)" }),
})
export type AuthorizationEvidence = typeof AuthorizationEvidence.Type

/** What the edge knows of the request that carried the authorization. */
export interface ClientContext {
  readonly ipAddress: string
  readonly userAgent: string
}

/** The evidence of an authorization of `kind` given at `at` through the request `client`, with the default text. */
export const evidenceOf = (kind: Kind, client: ClientContext, at: DateTime.Utc): AuthorizationEvidence => ({
  acceptedAt: at,
  ipAddress: client.ipAddress === "" ? "unknown" : client.ipAddress,
  userAgent: client.userAgent.slice(0, maxUserAgentLength),
  text: defaultTexts[kind].text,
  textVersion: defaultTexts[kind].version,
})

/**
 * The `authorization` an event records for an authorization of `kind` that `command` carried, to spread
 * into the event: none when the command came without the client's request (issued by the service itself).
 */
export const authorizationOf = (
  kind: Kind,
  command: { readonly client?: ClientContext | undefined; readonly at: DateTime.Utc },
): { readonly authorization?: AuthorizationEvidence } =>
  command.client === undefined ? {} : { authorization: evidenceOf(kind, command.client, command.at) }
