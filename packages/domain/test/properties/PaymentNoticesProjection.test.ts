/**
 * The `payment_notices` work list agrees with the aggregates it is kept from:
 * the PaymentRequest and the PaymentNotice streams of its reminders and status
 * messages. After any interleaving of the request's history (accepted, paid,
 * paid by card, failed, refunded, cancelled, auto-collection skipped) and
 * of the notifications worker's decisions, the document exists, and says the
 * stage, the reminders sent and the status message still to send, exactly as
 * the aggregates' states say.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Result } from "effect"
import fc from "fast-check"
import * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import type {
  BankAccountId,
  CardPaymentId,
  CompanyId,
  PartnerId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import * as PaymentNotice from "../../src/notifications/PaymentNotice.ts"
import { projection } from "../../src/notifications/PaymentNoticesProjection.ts"
import * as PaymentRequest from "../../src/payments/PaymentRequest.ts"
import type { RefundId } from "../../src/payments/TransferEvents.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { documentOfLog, instant, type Recorded, usd, uuid } from "./RandomHistory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(42)

/** Steps are half a day apart: the reminder days (3 before, and on the due date) come during a history. */
const hoursApart = 12
const offsets = PaymentNotice.defaultReminderOffsets
const dueDate = "2026-03-04" as CalendarDate.CalendarDate
const payer = "5d0c8a3e-1b2f-4c3d-8e4f-5a6b7c8d9e0f" as RegistrationId
const transferId = "7f2eac50-3d41-4e5f-a061-7c8d9e0f1a2b" as TransferId

interface World {
  readonly request: PaymentRequest.State
  readonly notices: ReadonlyMap<string, PaymentNotice.State>
  readonly log: ReadonlyArray<Recorded>
}

/** One step of a history: a command to the request, or a notice the worker decides. */
type Step =
  | { readonly _tag: "Request"; readonly command: (at: DateTime.Utc) => PaymentRequest.Command }
  | { readonly _tag: "Reminder"; readonly offsetDays: number }
  | { readonly _tag: "StatusMessage"; readonly status: PaymentNotice.NoticeStatus }

const snapshotOf = (state: PaymentRequest.State): PaymentNotice.RequestSnapshot | undefined =>
  state._tag === "Initial"
    ? undefined
    : {
        paymentRequestId: state.request.paymentRequestId,
        partnerId: state.request.partnerId,
        payerRegistrationId: state.request.payerRegistrationId,
        status: PaymentRequest.status(state) ?? "Pending",
        dueDate: state.request.dueDate,
      }

/** The world after one step at `at`: a refused or idle decision leaves it as it was. */
const next = (world: World, step: Step, at: DateTime.Utc): World => {
  if (step._tag === "Request") {
    const decision = PaymentRequest.decide(step.command(at), world.request)
    if (Result.isFailure(decision)) return world
    let request = world.request
    const log = [...world.log]
    for (const event of decision.success) {
      request = PaymentRequest.evolve(request, event)
      if (request._tag !== "Initial")
        log.push({ streamType: "PaymentRequest", streamId: request.request.paymentRequestId, event })
    }
    return { ...world, request, log }
  }
  const snapshot = snapshotOf(world.request)
  if (snapshot === undefined) return world
  const noticeId =
    step._tag === "Reminder"
      ? PaymentNotice.reminderId(snapshot.paymentRequestId, step.offsetDays)
      : PaymentNotice.statusMessageId(snapshot.paymentRequestId, step.status)
  const notice = world.notices.get(noticeId) ?? PaymentNotice.initialState
  const command: PaymentNotice.Command =
    step._tag === "Reminder"
      ? {
          _tag: "SendPaymentReminder",
          request: snapshot,
          offsetDays: step.offsetDays,
          offsets,
          today: CalendarDate.fromEpochMillis(DateTime.toEpochMillis(at)),
          channels: ["sms"],
          at,
        }
      : { _tag: "SendPaymentStatusMessage", request: snapshot, status: step.status, channels: ["push"], at }
  const decision = PaymentNotice.decide(command, notice)
  if (Result.isFailure(decision) || decision.success.length === 0) return world
  const notices = new Map(world.notices)
  notices.set(noticeId, decision.success.reduce(PaymentNotice.evolve, notice))
  const log = [
    ...world.log,
    ...decision.success.map((event): Recorded => ({ streamType: "PaymentNotice", streamId: noticeId, event })),
  ]
  return { ...world, notices, log }
}

const run = (steps: ReadonlyArray<Step>): World => {
  let world: World = { request: PaymentRequest.initialState, notices: new Map(), log: [] }
  steps.forEach((step, index) => {
    world = next(world, step, instant(index, hoursApart))
  })
  return world
}

const arbitraryRequestStep = (paymentRequestId: PaymentRequestId, partnerId: PartnerId): fc.Arbitrary<Step> =>
  fc
    .oneof(
      { weight: 3, arbitrary: fc.constant("accept" as const) },
      { weight: 1, arbitrary: fc.constant("cancel" as const) },
      { weight: 3, arbitrary: fc.constant("settle" as const) },
      { weight: 1, arbitrary: fc.constant("fail" as const) },
      { weight: 1, arbitrary: fc.constant("refund" as const) },
      { weight: 1, arbitrary: fc.constant("card" as const) },
      { weight: 1, arbitrary: fc.constant("collect" as const) },
    )
    .chain((kind) => uuid.map((fresh) => ({ kind, fresh })))
    .map(
      ({ kind, fresh }): Step => ({
        _tag: "Request",
        command: (at): PaymentRequest.Command => {
          switch (kind) {
            case "accept":
              return {
                _tag: "AcceptPaymentRequest",
                paymentRequestId,
                registrationId: payer,
                payerKyc: "Verified",
                bankAccountId: "8a3fbd61-4e52-4f60-b172-8d9e0f1a2b3c" as BankAccountId,
                accountNumberMasked: "****6789",
                acceptDebitAuth: false,
                transferDescription: "March cleaning",
                transferId,
                at,
              }
            case "cancel":
              return { _tag: "CancelPaymentRequest", paymentRequestId, partnerId, at }
            case "settle":
              return { _tag: "RecordTransferSettled", paymentRequestId, transferId, at }
            case "fail":
              return {
                _tag: "RecordTransferFailed",
                paymentRequestId,
                transferId,
                returnCode: "R01",
                reason: "Insufficient funds",
                at,
              }
            case "refund":
              return { _tag: "RefundPaymentRequest", paymentRequestId, refundId: fresh as RefundId, at }
            case "card":
              return {
                _tag: "PayWithCard",
                paymentRequestId,
                registrationId: payer,
                payerKyc: "Verified",
                cardPaymentId: fresh as CardPaymentId,
                paymentMethodId: "pm_1",
                brand: "visa",
                last4: "4242",
                processorReference: "ch_1",
                at,
              }
            case "collect":
              return {
                _tag: "TryAutoCollection",
                paymentRequestId,
                today: dueDate,
                parties: { companyStatus: "Verified", payerKyc: "Verified" },
                transferId,
                at,
              }
          }
        },
      }),
    )

const arbitraryHistory = fc
  .record({ paymentRequestId: uuid, partnerId: uuid, companyId: uuid, autoPay: fc.boolean() })
  .chain(({ paymentRequestId, partnerId, companyId, autoPay }) => {
    const id = paymentRequestId as PaymentRequestId
    const create: Step = {
      _tag: "Request",
      command: (at) => ({
        _tag: "CreatePaymentRequest",
        paymentRequestId: id,
        partnerId: partnerId as PartnerId,
        companyId: companyId as CompanyId,
        companyStatus: "Verified",
        payerRegistrationId: payer,
        amount: usd(10_000),
        description: "Cleaning, March",
        dueDate,
        ...(autoPay ? { enableAutoPay: true, autoPayLimit: usd(20_000) } : {}),
        at,
      }),
    }
    const step: fc.Arbitrary<Step> = fc.oneof(
      { weight: 4, arbitrary: arbitraryRequestStep(id, partnerId as PartnerId) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(...offsets).map((offsetDays): Step => ({ _tag: "Reminder", offsetDays })),
      },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom("Paid" as const, "Failed" as const)
          .map((status): Step => ({ _tag: "StatusMessage", status })),
      },
    )
    return fc
      .array(step, { minLength: 2, maxLength: 16 })
      .map((steps) => ({ paymentRequestId, ...run([create, ...steps]) }))
  })

/** The status message a request's status calls for, if any. */
const messageFor = (status: PaymentRequest.PaymentRequestStatus): PaymentNotice.NoticeStatus | undefined =>
  status === "Paid" || status === "Refunded" ? "Paid" : status === "Failed" ? "Failed" : undefined

const sent = (world: World, noticeId: string) => world.notices.get(noticeId)?._tag === "Sent"

describe("the payment notices work list, after any history of the request and its notices", () => {
  it("keys every payment request event by the request's own id (owned by the PaymentRequest stream)", () =>
    fc.assert(
      fc.property(arbitraryHistory, ({ paymentRequestId, log }) => {
        for (const recorded of log) {
          if (recorded.streamType !== "PaymentRequest") continue
          const envelope = { ...recorded, eventId: "", streamVersion: 0, globalPosition: 0, metadata: {} }
          assert.strictEqual(projection.ownedBy, "PaymentRequest")
          assert.strictEqual(recorded.streamId, paymentRequestId)
          assert.strictEqual(
            projection.key(envelope as unknown as Parameters<typeof projection.key>[0]),
            paymentRequestId,
          )
        }
      }),
      seeded(),
    ))

  it("holds a request exactly while it may still cause a notice: not cancelled, and its status message not sent", () =>
    fc.assert(
      fc.property(arbitraryHistory, ({ paymentRequestId, ...world }) => {
        const status = PaymentRequest.status(world.request)
        if (status === undefined) throw new Error("the request was created")
        const message = messageFor(status)
        const document = documentOfLog(projection, paymentRequestId, world.log)
        assert.strictEqual(
          document !== undefined,
          status !== "Cancelled" &&
            (message === undefined || !sent(world, PaymentNotice.statusMessageId(paymentRequestId, message))),
        )
      }),
      seeded(),
    ))

  it("says the stage the request's status calls for: reminding while Pending, waiting once accepted, notify once Paid or Failed", () =>
    fc.assert(
      fc.property(arbitraryHistory, ({ paymentRequestId, ...world }) => {
        const document = documentOfLog(projection, paymentRequestId, world.log)
        if (document === undefined) return
        const status = PaymentRequest.status(world.request)
        assert.strictEqual(
          document.stage,
          status === "Pending" ? "reminding" : status === "Accepted" ? "waiting" : "notify",
        )
        assert.strictEqual(document.unsentStatus, status === undefined ? undefined : messageFor(status))
      }),
      seeded(),
    ))

  it("says which reminders the PaymentNotice aggregates sent, and the request's payer and due date", () =>
    fc.assert(
      fc.property(arbitraryHistory, ({ paymentRequestId, ...world }) => {
        const document = documentOfLog(projection, paymentRequestId, world.log)
        if (document === undefined || world.request._tag === "Initial") return
        assert.deepStrictEqual(
          [...document.remindedOffsets].sort(),
          offsets.filter((offset) => sent(world, PaymentNotice.reminderId(paymentRequestId, offset))).sort(),
        )
        assert.strictEqual(document.dueDate, world.request.request.dueDate)
        assert.strictEqual(document.partnerId, world.request.request.partnerId)
        assert.strictEqual(document.payerRegistrationId, world.request.request.payerRegistrationId)
      }),
      seeded(),
    ))
})
