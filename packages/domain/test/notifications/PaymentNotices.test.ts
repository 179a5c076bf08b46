/**
 * Executable specification of the payment notice use cases on the in-memory
 * stack: a Pending request is reminded 3 days before and on its due date, by
 * SMS and by e-mail and push as the payer's switches say, once; an expired
 * push token is skipped and pruned (PushTokenRemoved, reason Expired); a
 * request that is no longer Pending is not reminded; a Paid request's message
 * follows the paymentStatus switches, once; the work list empties as notices
 * go out.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Companies from "../../src/companies/Companies.ts"
import * as EventPipeline from "../../src/composition/EventPipeline.ts"
import * as Customer from "../../src/customers/Customer.ts"
import * as CustomerPreferences from "../../src/customers/CustomerPreferences.ts"
import * as CommandHandler from "../../src/infrastructure/CommandHandler.ts"
import { EventStore } from "../../src/infrastructure/EventStore.ts"
import { IdGenerator } from "../../src/infrastructure/IdGenerator.ts"
import type * as PersonalData from "../../src/infrastructure/PersonalData.ts"
import { UnitOfWork } from "../../src/infrastructure/UnitOfWork.ts"
import type { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import { streamId } from "../../src/kernel/Decider.ts"
import type { BankAccountId, PartnerId, PaymentRequestId, RegistrationId, TransferId } from "../../src/kernel/Ids.ts"
import * as Messaging from "../../src/notifications/Messaging.ts"
import * as PaymentNotices from "../../src/notifications/PaymentNotices.ts"
import * as Payments from "../../src/payments/Payments.ts"
import * as Transfers from "../../src/payments/Transfers.ts"
import { Fixtures } from "../../src/testing/index.ts"
import { fakeVault, layerSealed } from "../fixtures/SealedMemory.ts"

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const payer = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
const checking = "8b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as BankAccountId
const phoneNumber = "+14155550123"
const offsets = [3, 0]

const layer = () =>
  Messaging.layerRecording.pipe(
    Layer.provideMerge(Messaging.SentMessages.layerMemory()),
    Layer.provideMerge(
      Layer.mergeAll(
        EventPipeline.layerMemory(),
        UnitOfWork.layerMemory,
        IdGenerator.layerRandom,
        Transfers.eSignatureSandbox,
      ),
    ),
  )

/** The same stack with the event store and the read models sealed per data subject, as the service's are. */
const sealedLayer = (vault: PersonalData.PersonalDataVault["Service"]) =>
  Messaging.layerRecording.pipe(
    Layer.provideMerge(Messaging.SentMessages.layerMemory()),
    Layer.provideMerge(
      Layer.mergeAll(layerSealed(vault), UnitOfWork.layerMemory, IdGenerator.layerRandom, Transfers.eSignatureSandbox),
    ),
  )

const at = (iso: string) => DateTime.makeUnsafe(iso)

/** 12 March 2026: a verified payer (grace@example.com) with a linked account and two push tokens, one expiring tomorrow. */
const seed = Effect.gen(function* () {
  yield* TestClock.setTime(Date.parse("2026-03-12T10:00:00.000Z"))
  const { companyId } = yield* Companies.register(
    partnerId,
    Fixtures.companyRegistrationBody({ websiteUrl: undefined, employees: [], locations: [] }),
  )
  yield* Fixtures.verifyCompany(companyId)
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking, phoneNumber)
  yield* CustomerPreferences.registerPushToken(partnerId, payer, {
    token: "phone-old",
    expireAt: at("2026-03-13T10:00:00.000Z"),
  })
  yield* CustomerPreferences.registerPushToken(partnerId, payer, {
    token: "phone-new",
    expireAt: at("2026-04-30T10:00:00.000Z"),
  })
  const { paymentRequestId } = yield* Payments.create({
    partnerId,
    companyId,
    payerRegistrationId: payer,
    amount: { value: 125.5, currencyCode: "USD" },
    description: "Invoice 42",
    dueDate: "2026-03-15" as CalendarDate,
  })
  return paymentRequestId as PaymentRequestId
})

const summary = (
  messages: ReadonlyArray<{ readonly channel: string; readonly to: string; readonly template: string }>,
) => messages.map((m) => `${m.channel} ${m.to} ${m.template}`).sort()

const recorded = Effect.gen(function* () {
  const page = yield* (yield* Messaging.SentMessages).list({ partnerId, registrationId: payer, limit: 100 })
  return page.items
})

describe("a Pending request 3 days before its due date", () => {
  it.effect("is reminded once: SMS, e-mail, and push to each unexpired token", () =>
    Effect.gen(function* () {
      const id = yield* seed
      assert.deepStrictEqual(yield* PaymentNotices.dueReminders("2026-03-12" as CalendarDate, offsets), [
        { paymentRequestId: id, partnerId, offsetDays: 3 },
      ])
      const sent = yield* PaymentNotices.remind(id, offsets)
      assert.deepStrictEqual(summary(sent), [
        "email grace@example.com PaymentDueSoon",
        "push phone-new PaymentDueSoon",
        "push phone-old PaymentDueSoon",
        `sms ${phoneNumber} PaymentDueSoon`,
      ])
      assert.deepStrictEqual(yield* PaymentNotices.remind(id, offsets), [])
      assert.deepStrictEqual(yield* PaymentNotices.dueReminders("2026-03-12" as CalendarDate, offsets), [])
      assert.strictEqual((yield* recorded).length, 4)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("with the paymentDue switches off is reminded by SMS only", () =>
    Effect.gen(function* () {
      const id = yield* seed
      yield* CustomerPreferences.updateNotificationPreferences(partnerId, payer, {
        paymentDueEmail: false,
        paymentDuePush: false,
      })
      assert.deepStrictEqual(summary(yield* PaymentNotices.remind(id, offsets)), [`sms ${phoneNumber} PaymentDueSoon`])
    }).pipe(Effect.provide(layer())),
  )
})

describe("a Pending request on its due date", () => {
  it.effect("is reminded again; the expired push token is skipped and pruned (reason Expired)", () =>
    Effect.gen(function* () {
      const id = yield* seed
      yield* PaymentNotices.remind(id, offsets)
      yield* TestClock.adjust("3 days")
      const sent = yield* PaymentNotices.remind(id, offsets)
      assert.deepStrictEqual(summary(sent), [
        "email grace@example.com PaymentDueToday",
        "push phone-new PaymentDueToday",
        `sms ${phoneNumber} PaymentDueToday`,
      ])
      const { state } = yield* CommandHandler.load(Customer.aggregate, payer)
      assert.deepStrictEqual(
        Customer.pushTokens(state).map((t) => t.token),
        ["phone-new"],
      )
      const events = yield* (yield* EventStore).readStream(streamId(Customer.aggregate, payer))
      const removed = events.filter((e) => e.eventType === "PushTokenRemoved").map((e) => e.data)
      assert.deepStrictEqual(
        removed.map((e) => [(e as { token: string }).token, (e as { reason: string }).reason]),
        [["phone-old", "Expired"]],
      )
    }).pipe(Effect.provide(layer())),
  )
})

describe("a Pending request of an erased payer", () => {
  it.effect("is reminded on no channel: nothing goes to an erased phone number, e-mail address or push token", () => {
    const vault = fakeVault()
    return Effect.gen(function* () {
      const id = yield* seed
      yield* vault.erase(`customer:${payer}`)
      // The tokens read "[erased]" (the two registrations now name the same unreadable token).
      const { state } = yield* CommandHandler.load(Customer.aggregate, payer)
      assert.deepStrictEqual(
        Customer.pushTokens(state).map((t) => t.token),
        ["[erased]"],
      )
      assert.deepStrictEqual(yield* PaymentNotices.remind(id, offsets), [])
      assert.strictEqual((yield* recorded).length, 0)
    }).pipe(Effect.provide(sealedLayer(vault)))
  })
})

describe("a request that is no longer Pending", () => {
  it.effect("is not reminded once cancelled", () =>
    Effect.gen(function* () {
      const id = yield* seed
      yield* Payments.cancel(partnerId, id)
      assert.deepStrictEqual(yield* PaymentNotices.remind(id, offsets), [])
      assert.deepStrictEqual(yield* PaymentNotices.dueReminders("2026-03-12" as CalendarDate, offsets), [])
      assert.strictEqual((yield* recorded).length, 0)
    }).pipe(Effect.provide(layer())),
  )
})

describe("a request that became Paid", () => {
  it.effect("sends its status message once, as the paymentStatus switches say (push only here)", () =>
    Effect.gen(function* () {
      const id = yield* seed
      yield* CustomerPreferences.updateNotificationPreferences(partnerId, payer, { paymentStatusEmail: false })
      yield* Payments.accept({
        partnerId,
        registrationId: payer,
        paymentRequestId: id,
        bankAccountId: checking,
        acceptDebitAuth: false,
        transferDescription: "",
      })
      assert.deepStrictEqual(yield* PaymentNotices.remind(id, offsets), [])
      const accepted = yield* Payments.get(partnerId, id)
      yield* Payments.settleTransfer(accepted.transferId as TransferId)
      assert.deepStrictEqual(yield* PaymentNotices.unsentStatusMessages(), [
        { paymentRequestId: id, partnerId, status: "Paid" },
      ])
      const sent = yield* PaymentNotices.sendStatusMessage(id, "Paid")
      assert.deepStrictEqual(summary(sent), ["push phone-new PaymentPaid", "push phone-old PaymentPaid"])
      assert.deepStrictEqual(yield* PaymentNotices.sendStatusMessage(id, "Paid"), [])
      assert.deepStrictEqual(yield* PaymentNotices.unsentStatusMessages(), [])
      assert.deepStrictEqual(yield* PaymentNotices.sendStatusMessage(id, "Failed"), [])
    }).pipe(Effect.provide(layer())),
  )
})

describe("a request that became Failed", () => {
  it.effect("sends PaymentFailed by e-mail and push (the defaults), and nothing for Paid", () =>
    Effect.gen(function* () {
      const id = yield* seed
      yield* Payments.accept({
        partnerId,
        registrationId: payer,
        paymentRequestId: id,
        bankAccountId: checking,
        acceptDebitAuth: false,
        transferDescription: "",
      })
      const accepted = yield* Payments.get(partnerId, id)
      yield* Payments.failTransfer(accepted.transferId as TransferId, "R01")
      assert.deepStrictEqual(yield* PaymentNotices.unsentStatusMessages(), [
        { paymentRequestId: id, partnerId, status: "Failed" },
      ])
      assert.deepStrictEqual(yield* PaymentNotices.sendStatusMessage(id, "Paid"), [])
      const sent = yield* PaymentNotices.sendStatusMessage(id, "Failed")
      assert.deepStrictEqual(summary(sent), [
        "email grace@example.com PaymentFailed",
        "push phone-new PaymentFailed",
        "push phone-old PaymentFailed",
      ])
      assert.deepStrictEqual(yield* PaymentNotices.unsentStatusMessages(), [])
    }).pipe(Effect.provide(layer())),
  )
})

describe("a Pending request whose payer's push service is down (sandbox token containing `unavailable`)", () => {
  it.effect("is not recorded when a sender fails: it stays due and is sent again once the provider answers", () =>
    Effect.gen(function* () {
      const id = yield* seed
      yield* CustomerPreferences.registerPushToken(partnerId, payer, {
        token: "phone-unavailable",
        expireAt: at("2026-04-30T10:00:00.000Z"),
      })
      const failed = yield* Effect.flip(PaymentNotices.remind(id, offsets))
      assert.strictEqual(failed._tag, "ProviderUnavailable")
      assert.deepStrictEqual(yield* PaymentNotices.dueReminders("2026-03-12" as CalendarDate, offsets), [
        { paymentRequestId: id, partnerId, offsetDays: 3 },
      ])
      yield* CustomerPreferences.removePushToken(partnerId, payer, "phone-unavailable")
      assert.isAbove((yield* PaymentNotices.remind(id, offsets)).length, 0)
      assert.deepStrictEqual(yield* PaymentNotices.dueReminders("2026-03-12" as CalendarDate, offsets), [])
    }).pipe(Effect.provide(layer())),
  )
})

describe("the sandbox senders", () => {
  it.effect("answer an SMS to a number ending in 0999 after 10 s, and only then record it", () =>
    Effect.gen(function* () {
      const sms = yield* Messaging.SmsSender
      const sending = yield* Effect.forkChild(
        sms.send({ partnerId, registrationId: payer, to: "+14155550999", template: "PaymentDueToday" }),
      )
      yield* TestClock.adjust("9999 millis")
      assert.strictEqual((yield* recorded).length, 0)
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(sending)
      assert.strictEqual((yield* recorded).length, 1)
    }).pipe(Effect.provide(layer())),
  )

  it.effect("answer an e-mail at slow.example.com after 10 s; other addresses at once", () =>
    Effect.gen(function* () {
      assert.isTrue(Messaging.isSlowSandboxAddress("email", "grace@SLOW.example.com"))
      assert.isTrue(Messaging.isSlowSandboxAddress("sms", "+14155550999"))
      assert.isFalse(Messaging.isSlowSandboxAddress("email", "grace@example.com"))
      assert.isFalse(Messaging.isSlowSandboxAddress("sms", "+14155550998"))
      assert.isFalse(Messaging.isSlowSandboxAddress("push", "device-0999"))
      const email = yield* Messaging.EmailSender
      const sending = yield* Effect.forkChild(
        email.send({ partnerId, registrationId: payer, to: "grace@slow.example.com", template: "PaymentPaid" }),
      )
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(sending)
      yield* email.send({ partnerId, registrationId: payer, to: "grace@example.com", template: "PaymentPaid" })
      assert.strictEqual((yield* recorded).length, 2)
    }).pipe(Effect.provide(layer())),
  )
})
