/**
 * The messaging ports: how partnerpay reaches a partner's customers. One
 * service per channel (`SmsSender`, `PushSender`, `EmailSender`); each takes
 * an `OutgoingMessage` naming a template (the provider renders it) and fails
 * with `MessageUndeliverable` (the address cannot receive messages: retrying
 * will not help) or `ProviderUnavailable` (nothing is known to have happened).
 *
 * The one-time login code is one use of the SMS port: `otpSenderOverSms`
 * implements the `OtpSender` provider port with the `LoginCode` template.
 *
 * `SentMessages` keeps what the sandbox senders "sent" (they deliver nothing),
 * so a partner reads them at `GET /Sandbox/Messages`. `layerMemory` keeps them
 * in memory (tests); adapters-pg keeps them in the database, written in the
 * transaction of the decision that sent them.
 */
import { Context, DateTime, Effect, Layer, Ref, Schema } from "effect"
import { CustomerProviders } from "../customers/index.ts"
import type { EventStoreUnavailable } from "../infrastructure/EventStore.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { PersonalDataVault } from "../infrastructure/PersonalData.ts"
import { ProviderUnavailable } from "../infrastructure/Providers.ts"
import * as Tenancy from "../infrastructure/Tenancy.ts"
import { PartnerId, PaymentRequestId, RegistrationId } from "../kernel/Ids.ts"
import { erased } from "../kernel/Personal.ts"
import * as Traced from "../kernel/Traced.ts"

/** The ways a customer is reached. */
export const Channel = Schema.Literals(["sms", "push", "email"])
export type Channel = typeof Channel.Type

/** What a message says, by name; the provider holds the wording. */
export const Template = Schema.Literals([
  "LoginCode",
  "PaymentDueSoon",
  "PaymentDueToday",
  "PaymentPaid",
  "PaymentFailed",
])
export type Template = typeof Template.Type

/** One message to one address (an E.164 number, a device push token or an e-mail address). */
export interface OutgoingMessage {
  readonly partnerId: PartnerId
  /** The customer, when known (a first login code goes to a phone before the customer exists). */
  readonly registrationId?: RegistrationId | undefined
  readonly to: string
  readonly template: Template
  readonly paymentRequestId?: PaymentRequestId | undefined
}

/** The address cannot receive messages on this channel; retrying will not help. */
export class MessageUndeliverable extends Schema.TaggedError<MessageUndeliverable>()("MessageUndeliverable", {
  channel: Channel,
  reason: Schema.String,
}) {}

type Send = (message: OutgoingMessage) => Effect.Effect<void, MessageUndeliverable | ProviderUnavailable>

export class SmsSender extends Context.Service<SmsSender, { readonly send: Send }>()(
  "partnerpay/domain/notifications/SmsSender",
) {}

export class PushSender extends Context.Service<PushSender, { readonly send: Send }>()(
  "partnerpay/domain/notifications/PushSender",
) {}

export class EmailSender extends Context.Service<EmailSender, { readonly send: Send }>()(
  "partnerpay/domain/notifications/EmailSender",
) {}

export type Senders = SmsSender | PushSender | EmailSender

/** The sender of a channel. */
export const senderOf = (channel: Channel): Effect.Effect<{ readonly send: Send }, never, Senders> =>
  channel === "sms"
    ? Effect.service(SmsSender)
    : channel === "push"
      ? Effect.service(PushSender)
      : Effect.service(EmailSender)

// ---------------------------------------------------------------------------
// Recorded messages (sandbox)

/** A message a sandbox sender recorded instead of sending. */
export const SentMessage = Schema.Struct({
  id: Schema.String,
  partnerId: PartnerId,
  registrationId: Schema.optionalKey(RegistrationId),
  channel: Channel,
  to: Schema.String,
  template: Template,
  paymentRequestId: Schema.optionalKey(PaymentRequestId),
  sentAt: Schema.DateTimeUtcFromString,
})
export type SentMessage = typeof SentMessage.Type

export interface SentMessagesQuery {
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  /** 1..100. */
  readonly limit: number
  /** The id of the last message of the previous page. */
  readonly startingAfter?: string | undefined
}

export interface SentMessagesPage {
  /** Newest first (the order they were recorded). */
  readonly items: ReadonlyArray<SentMessage>
  readonly hasMore: boolean
}

export class SentMessages extends Context.Service<
  SentMessages,
  {
    readonly record: (message: SentMessage) => Effect.Effect<void, EventStoreUnavailable>
    /** One customer's messages of one partner, newest first; an unknown `startingAfter` is an empty page. */
    readonly list: (query: SentMessagesQuery) => Effect.Effect<SentMessagesPage, EventStoreUnavailable>
  }
>()("partnerpay/domain/notifications/SentMessages") {
  /** In memory, at most `capacity` messages (the oldest are forgotten first): tests and embedders. */
  static readonly layerMemory = (capacity = 10_000): Layer.Layer<SentMessages> =>
    Layer.effect(
      SentMessages,
      Effect.gen(function* () {
        const all = yield* Ref.make<ReadonlyArray<SentMessage>>([])
        return SentMessages.of({
          record: (message) => Ref.update(all, (messages) => [...messages, message].slice(-capacity)),
          list: ({ partnerId, registrationId, limit, startingAfter }) =>
            Effect.map(Ref.get(all), (messages) => {
              const mine = messages
                .filter((m) => m.partnerId === partnerId && m.registrationId === registrationId)
                .reverse()
              const from = startingAfter === undefined ? 0 : mine.findIndex((m) => m.id === startingAfter) + 1
              if (startingAfter !== undefined && from === 0) return { items: [], hasMore: false }
              return { items: mine.slice(from, from + limit), hasMore: mine.length > from + limit }
            }),
        })
      }),
    )
}

/** A sandbox phone number ending in 0000 cannot receive SMS (the same rule as the sandbox OTP sender). */
export const isUnreachableSandboxNumber = (phoneNumber: string): boolean => phoneNumber.endsWith("0000")

/** How long a slow sandbox provider takes to answer (a provider at its timeout). */
export const slowSandboxMillis = 10_000

/**
 * Sandbox magic: an SMS to a phone number ending in 0999, or an e-mail to an
 * address at slow.example.com, is answered after `slowSandboxMillis` (as a slow
 * Twilio or SMTP server would; the OTP sender is an SMS, so login codes too).
 */
export const isSlowSandboxAddress = (channel: Channel, to: string): boolean =>
  channel === "sms" ? to.endsWith("0999") : channel === "email" && to.toLowerCase().endsWith("@slow.example.com")

/**
 * Sandbox magic: a push token containing `unavailable` stands for a push
 * service that is down: its sender fails with `ProviderUnavailable` (the notice
 * is not recorded and is sent again later).
 */
export const isUnavailableSandboxAddress = (channel: Channel, to: string): boolean =>
  channel === "push" && to.includes("unavailable")

/**
 * The sandbox senders of the three channels: every message is recorded in
 * `SentMessages` with a new id and the current time, nothing leaves the
 * service. An SMS to a number ending in 0000 is undeliverable; an SMS to a
 * number ending in 0999 and an e-mail at slow.example.com answer after 10 s
 * (`isSlowSandboxAddress`); a push token containing `unavailable` fails with
 * `ProviderUnavailable` (`isUnavailableSandboxAddress`); a message log that cannot be written is
 * `ProviderUnavailable` (the caller retries). The message is recorded by its
 * own statement once "sent" (never inside the caller's transaction: callers
 * hold none while a provider works).
 */
export const layerRecording: Layer.Layer<Senders, never, SentMessages | IdGenerator> = Layer.effectContext(
  Effect.gen(function* () {
    const store = yield* SentMessages
    const ids = yield* IdGenerator
    const recorder = (channel: Channel): Send =>
      Traced.fn("Messaging.record")(function* (message: OutgoingMessage) {
        if (channel === "sms" && isUnreachableSandboxNumber(message.to)) {
          return yield* new MessageUndeliverable({ channel, reason: "the number cannot receive SMS" })
        }
        if (isSlowSandboxAddress(channel, message.to)) yield* Effect.sleep(slowSandboxMillis)
        if (isUnavailableSandboxAddress(channel, message.to)) {
          return yield* new ProviderUnavailable({ provider: `sandbox ${channel}`, reason: "the push service is down" })
        }
        const id = yield* ids.next
        const sentAt = yield* DateTime.now
        yield* store
          .record({
            id,
            partnerId: message.partnerId,
            ...(message.registrationId === undefined ? {} : { registrationId: message.registrationId }),
            channel,
            to: message.to,
            template: message.template,
            ...(message.paymentRequestId === undefined ? {} : { paymentRequestId: message.paymentRequestId }),
            sentAt,
          })
          .pipe(
            Effect.mapError(
              (error) => new ProviderUnavailable({ provider: `sandbox ${channel}`, reason: error.message }),
            ),
          )
      })
    return Context.make(SmsSender, SmsSender.of({ send: recorder("sms") })).pipe(
      Context.add(PushSender, PushSender.of({ send: recorder("push") })),
      Context.add(EmailSender, EmailSender.of({ send: recorder("email") })),
    )
  }),
)

/**
 * The one-time code sender as one use of the SMS port (template `LoginCode`;
 * the code itself travels to the SMS provider only and is never recorded).
 * An undeliverable number is `OtpDeliveryFailed`.
 */
export const otpSenderOverSms: Layer.Layer<CustomerProviders.OtpSender, never, SmsSender> = Layer.effect(
  CustomerProviders.OtpSender,
  Effect.gen(function* () {
    const sms = yield* SmsSender
    return CustomerProviders.OtpSender.of({
      send: ({ phoneNumber, partnerId, registrationId }) =>
        sms
          .send({
            partnerId: (partnerId ?? "00000000-0000-0000-0000-000000000000") as PartnerId,
            registrationId,
            to: phoneNumber,
            template: "LoginCode",
          })
          .pipe(
            Effect.catchTag("MessageUndeliverable", (failed) =>
              Effect.fail(new CustomerProviders.OtpDeliveryFailed({ reason: failed.reason })),
            ),
          ),
    })
  }),
)

/**
 * The message log with its recipients (phone numbers, push tokens, e-mail
 * addresses: personal data) sealed at rest for the customer they were sent
 * to (`subjectOf(registrationId)`: the customers area names it,
 * `CustomerPersonalData.messagesSubject`, and erases it with the customer;
 * docs/personal-data.md): the stored log
 * never holds a recipient in plaintext, and once the customer is erased the
 * log shows `"[erased]"`. A message without a customer (a login code to a
 * phone number not registered yet) is never listed, so its recipient is not
 * kept at all.
 */
export const protectSentMessages = (
  log: SentMessages["Service"],
  subjectOf: (registrationId: string) => string,
): Effect.Effect<SentMessages["Service"], never, PersonalDataVault> =>
  Effect.map(Effect.service(PersonalDataVault), (vault) =>
    SentMessages.of({
      record: (message) =>
        Effect.flatMap(
          message.registrationId === undefined
            ? Effect.succeed(erased as string)
            : // The customer's partner's key (a worker sending it runs in no partner's request).
              Effect.provideService(
                vault.seal(subjectOf(message.registrationId), message.to),
                Tenancy.CurrentPartner,
                message.partnerId,
              ),
          (to) => log.record({ ...message, to }),
        ),
      list: (query) =>
        Effect.flatMap(log.list(query), (page) =>
          Effect.map(
            Effect.forEach(page.items, (message) =>
              message.registrationId === undefined || message.to === erased
                ? Effect.succeed(message)
                : Effect.map(vault.open(subjectOf(message.registrationId), message.to), (to) => ({
                    ...message,
                    to: to._tag === "Some" ? to.value : erased,
                  })),
            ),
            (items) => ({ ...page, items }),
          ),
        ),
    }),
  )
