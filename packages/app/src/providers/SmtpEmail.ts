/**
 * `EmailSender` over SMTP with `nodemailer` (`PARTNERPAY_PROVIDER_EMAIL=smtp`):
 * payment reminders and status messages as plain-text e-mails from
 * `PARTNERPAY_SMTP_FROM`, through the server of `PARTNERPAY_SMTP_URL`
 * (`smtp://` with STARTTLS when offered, `smtps://` for implicit TLS; user and
 * password in the URL), worded by `MessageTexts`.
 *
 * A permanent refusal of the recipient (an SMTP 5xx reply to RCPT TO, or an
 * address nodemailer cannot use) is `MessageUndeliverable`; a temporary one
 * (4xx), a timeout or a connection error is `ProviderUnavailable`.
 */
import { Messaging, Providers, Traced } from "@partnerpay/domain"
import { Effect, Layer, Redacted } from "effect"
import nodemailer from "nodemailer"
import * as Metrics from "../observability/Metrics.ts"
import { textOf } from "./MessageTexts.ts"

export interface SmtpConfig {
  /** `smtp://user:password@host:587` or `smtps://...:465` (may hold a password). */
  readonly url: Redacted.Redacted<string>
  /** The sender address, e.g. `Payments <payments@example.com>`. */
  readonly from: string
  readonly timeoutMillis: number
}

const provider = "SMTP"

/** nodemailer's error: the server's reply code, when there was one. */
const replyCodeOf = (error: unknown): number | undefined => {
  const code = (error as { responseCode?: unknown } | null)?.responseCode
  return typeof code === "number" ? code : undefined
}

export const make = (config: SmtpConfig) => {
  const url = new URL(Redacted.value(config.url))
  const secure = url.protocol === "smtps:"
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port === "" ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username === ""
      ? {}
      : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    connectionTimeout: config.timeoutMillis,
    greetingTimeout: config.timeoutMillis,
    socketTimeout: config.timeoutMillis,
  })
  return Messaging.EmailSender.of({
    send: (message) => {
      const { subject, body } = textOf(message)
      return Effect.tryPromise({
        try: () => transport.sendMail({ from: config.from, to: message.to, subject, text: body }),
        catch: (error) => error,
      }).pipe(
        Effect.flatMap((info) =>
          info.rejected.length > 0
            ? Effect.fail(new Messaging.MessageUndeliverable({ channel: "email", reason: "the server refused it" }))
            : Effect.void,
        ),
        Effect.catch((error): Effect.Effect<never, Messaging.MessageUndeliverable | Providers.ProviderUnavailable> => {
          if (error instanceof Messaging.MessageUndeliverable) return Effect.fail(error)
          const reply = replyCodeOf(error)
          const envelope = (error as { code?: unknown } | null)?.code === "EENVELOPE"
          return (reply !== undefined && reply >= 500) || envelope
            ? Effect.fail(
                new Messaging.MessageUndeliverable({
                  channel: "email",
                  reason: reply === undefined ? "invalid address" : `SMTP ${reply}`,
                }),
              )
            : Effect.fail(
                new Providers.ProviderUnavailable({
                  provider,
                  reason: reply === undefined ? "no answer (timeout or connection error)" : `SMTP ${reply}`,
                }),
              )
        }),
        Metrics.countProviderCall(provider, "send"),
        Traced.withSpan("Smtp.send"),
      )
    },
  })
}

export const layer = (config: SmtpConfig): Layer.Layer<Messaging.EmailSender> =>
  Layer.sync(Messaging.EmailSender, () => make(config))
