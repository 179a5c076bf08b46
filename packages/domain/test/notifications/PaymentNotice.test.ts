/**
 * Executable specification of the PaymentNotice aggregate and its rules: which
 * reminder is due on a day, which channels a message goes out on, and that a
 * notice is recorded at most once and never for a request that is no longer
 * Pending (reminders) or that did not reach the status (status messages).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { PartnerId, PaymentRequestId, RegistrationId } from "../../src/kernel/Ids.ts"
import * as PaymentNotice from "../../src/notifications/PaymentNotice.ts"
import type { PaymentNoticeEvent } from "../../src/notifications/PaymentNoticeEvents.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(1311)

const spec = DeciderSpecification.forAggregate(PaymentNotice.aggregate)

const paymentRequestId = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01" as PaymentRequestId
const partnerId = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e02" as PartnerId
const payer = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e03" as RegistrationId
const dueDate = "2026-03-15" as CalendarDate.CalendarDate
const at = DateTime.makeUnsafe("2026-03-12T09:00:00.000Z")
const offsets = [3, 0]

const request = (status: string): PaymentNotice.RequestSnapshot => ({
  paymentRequestId,
  partnerId,
  payerRegistrationId: payer,
  status,
  dueDate,
})

const remind = (overrides: Partial<PaymentNotice.SendPaymentReminder> = {}): PaymentNotice.SendPaymentReminder => ({
  _tag: "SendPaymentReminder",
  request: request("Pending"),
  offsetDays: 3,
  offsets,
  today: "2026-03-12" as CalendarDate.CalendarDate,
  channels: ["sms", "push"],
  at,
  ...overrides,
})

const reminderSent: PaymentNoticeEvent = {
  _tag: "PaymentReminderSent",
  paymentRequestId,
  partnerId,
  payerRegistrationId: payer,
  channels: ["sms", "push"],
  offsetDays: 3,
  dueDate,
  at,
}

const statusMessage = (
  status: PaymentNotice.NoticeStatus,
  current: string,
): PaymentNotice.SendPaymentStatusMessage => ({
  _tag: "SendPaymentStatusMessage",
  request: request(current),
  status,
  channels: ["email"],
  at,
})

describe("dueReminder", () => {
  const day = (offset: number) => CalendarDate.addDays(dueDate, -offset)

  it("is nothing before the first reminder's day", () => {
    assert.strictEqual(PaymentNotice.dueReminder(offsets, dueDate, day(4)), undefined)
  })

  it("is the 3-day reminder from 3 days before until the day before the due date", () => {
    for (const d of [3, 2, 1]) assert.strictEqual(PaymentNotice.dueReminder(offsets, dueDate, day(d)), 3)
  })

  it("is the due-date reminder on the due date", () => {
    assert.strictEqual(PaymentNotice.dueReminder(offsets, dueDate, dueDate), 0)
  })

  it("is nothing after the due date (no late reminders)", () => {
    assert.strictEqual(PaymentNotice.dueReminder(offsets, dueDate, day(-1)), undefined)
  })

  it("is, among several reminders whose day has come, only the latest one", () => {
    assert.strictEqual(PaymentNotice.dueReminder([7, 3, 1], dueDate, day(2)), 3)
  })

  it("is the latest one whatever the order the offsets are configured in", () => {
    assert.strictEqual(PaymentNotice.dueReminder([3, 7], dueDate, day(2)), 3)
  })
})

describe("channels", () => {
  const everything: PaymentNotice.Recipient = {
    phoneNumber: "+14155550123",
    emailAddress: "grace@example.com",
    pushTokens: ["device-1"],
    paymentDueEmail: true,
    paymentDuePush: true,
    paymentStatusEmail: true,
    paymentStatusPush: true,
  }
  const allOff = {
    ...everything,
    paymentDueEmail: false,
    paymentDuePush: false,
    paymentStatusEmail: false,
    paymentStatusPush: false,
  }

  it("a reminder goes by SMS always, and by push and e-mail when the paymentDue switches are on", () => {
    assert.deepStrictEqual(PaymentNotice.reminderChannels(everything), ["sms", "push", "email"])
    assert.deepStrictEqual(PaymentNotice.reminderChannels(allOff), ["sms"])
  })

  it("push needs an unexpired token and e-mail a known address", () => {
    const { emailAddress: _none, ...noEmail } = everything
    assert.deepStrictEqual(PaymentNotice.reminderChannels({ ...noEmail, pushTokens: [] }), ["sms"])
  })

  it("a reminder goes by SMS only to a customer with a phone number", () => {
    const { phoneNumber: _none, ...noPhone } = everything
    assert.deepStrictEqual(PaymentNotice.reminderChannels(noPhone), ["push", "email"])
  })

  it("a status message goes by push only with an unexpired token, and by e-mail only with a known address", () => {
    const { emailAddress: _none, ...noEmail } = everything
    assert.deepStrictEqual(PaymentNotice.statusChannels({ ...everything, pushTokens: [] }), ["email"])
    assert.deepStrictEqual(PaymentNotice.statusChannels(noEmail), ["push"])
  })

  it("a status message never goes by SMS, and follows the paymentStatus switches", () => {
    assert.deepStrictEqual(PaymentNotice.statusChannels(everything), ["push", "email"])
    assert.deepStrictEqual(PaymentNotice.statusChannels(allOff), [])
    assert.deepStrictEqual(PaymentNotice.statusChannels({ ...allOff, paymentStatusEmail: true }), ["email"])
  })
})

describe("PaymentNotice: a reminder not sent yet", () => {
  it("is recorded for a Pending request on its day", () => {
    spec.given([]).when(remind()).then([reminderSent])
  })

  it("is not recorded for a request that is no longer Pending", () => {
    for (const status of ["Accepted", "Paid", "Failed", "Cancelled", "Refunded"]) {
      spec
        .given([])
        .when(remind({ request: request(status) }))
        .thenNothingHappens()
    }
  })

  it("is not recorded on a day that is not its own", () => {
    spec
      .given([])
      .when(remind({ today: "2026-03-11" as CalendarDate.CalendarDate }))
      .thenNothingHappens()
    spec
      .given([])
      .when(remind({ today: dueDate }))
      .thenNothingHappens()
  })
})

describe("PaymentNotice: a reminder already sent", () => {
  it("is not sent again", () => {
    spec.given([reminderSent]).when(remind()).thenNothingHappens()
  })

  it("a second event for the same notice leaves it sent when it was first sent", () => {
    spec.given([reminderSent]).ignores({ ...reminderSent, at: DateTime.makeUnsafe("2026-03-13T09:00:00.000Z") })
  })
})

describe("PaymentNotice: a status message", () => {
  it("is recorded once the request reached the status", () => {
    spec
      .given([])
      .when(statusMessage("Paid", "Paid"))
      .then([
        {
          _tag: "PaymentStatusMessageSent",
          paymentRequestId,
          partnerId,
          payerRegistrationId: payer,
          channels: ["email"],
          status: "Paid",
          at,
        },
      ])
  })

  it("for Paid is still sent when the request was refunded meanwhile", () => {
    spec
      .given([])
      .when(statusMessage("Paid", "Refunded"))
      .then([
        {
          _tag: "PaymentStatusMessageSent",
          paymentRequestId,
          partnerId,
          payerRegistrationId: payer,
          channels: ["email"],
          status: "Paid",
          at,
        },
      ])
  })

  it("is not recorded for a status the request did not reach", () => {
    spec.given([]).when(statusMessage("Failed", "Paid")).thenNothingHappens()
    spec.given([]).when(statusMessage("Paid", "Accepted")).thenNothingHappens()
  })

  it("for Failed is not sent for a refunded request (only Paid counts a refund as reached)", () => {
    spec.given([]).when(statusMessage("Failed", "Refunded")).thenNothingHappens()
  })

  it("is recorded in its own stream, <paymentRequestId>/status/<status>", () => {
    assert.strictEqual(PaymentNotice.statusMessageId(paymentRequestId, "Failed"), `${paymentRequestId}/status/Failed`)
    assert.strictEqual(PaymentNotice.reminderId(paymentRequestId, 3), `${paymentRequestId}/reminder/3`)
  })
})

describe("PaymentNotice: properties", () => {
  const statuses = ["Pending", "Accepted", "Paid", "Failed", "Cancelled", "Refunded"]
  const attempt = fc.record({
    status: fc.constantFrom(...statuses),
    daysBefore: fc.integer({ min: -3, max: 10 }),
    offsetDays: fc.constantFrom(0, 1, 3, 7),
  })

  it("never records a reminder for a request that is not Pending, and at most one per stream", () => {
    fc.assert(
      fc.property(
        fc.array(attempt, { maxLength: 12 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 4 }),
        (attempts, configured) => {
          const history: Array<PaymentNoticeEvent> = []
          for (const a of attempts) {
            const command = remind({
              request: request(a.status),
              offsetDays: a.offsetDays,
              offsets: configured,
              today: CalendarDate.addDays(dueDate, -a.daysBefore),
            })
            const decision = PaymentNotice.decide(command, fold(PaymentNotice.aggregate, history))
            assert.strictEqual(decision._tag, "Success")
            if (decision._tag !== "Success") return
            if (decision.success.length > 0) {
              assert.strictEqual(a.status, "Pending")
              assert.strictEqual(PaymentNotice.dueReminder(configured, dueDate, command.today), a.offsetDays)
            }
            history.push(...decision.success)
          }
          assert.isAtMost(history.length, 1)
        },
      ),
      seeded(),
    )
  })
})
