/**
 * The `payment_plans`, `payment_plans_due` and `consents` read models as pure
 * functions of the events (spec 2.16, 3.2).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { DomainEvent, Envelope } from "../../src/composition/DomainEvents.ts"
import type { Projection } from "../../src/infrastructure/ReadModel.ts"
import { CalendarDate } from "../../src/kernel/CalendarDate.ts"
import * as Ids from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import type { ConsentEvent } from "../../src/plans/ConsentEvents.ts"
import { type ConsentDocument, consents } from "../../src/plans/ConsentsProjection.ts"
import type { PaymentPlanEvent } from "../../src/plans/PaymentPlanEvents.ts"
import {
  duePlans,
  type PaymentPlanEnvelope,
  paymentPlans,
  schedulerTenant,
} from "../../src/plans/PaymentPlansProjection.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const companyId = Ids.CompanyId.make("c0000000-0000-4000-8000-000000000001")
const paymentPlanId = Ids.PaymentPlanId.make("90000000-0000-4000-8000-000000000001")
const consentId = Ids.ConsentId.make("c0c0c0c0-0000-4000-8000-000000000001")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de")
const bankAccountId = Ids.BankAccountId.make("ba000000-0000-4000-8000-000000000001")
const transferId = Ids.TransferId.make("7a000000-0000-4000-8000-000000000001")
const at = (iso: string) => DateTime.makeUnsafe(`${iso}T09:00:00Z`)
const amount = Money.make(4999, "USD")

let position = 0
const envelope = (event: DomainEvent): Envelope =>
  ({
    ...event,
    eventId: `e0000000-0000-4000-8000-${(++position).toString(16).padStart(12, "0")}`,
    streamId: `${event.streamType}-x`,
    streamVersion: position,
    globalPosition: position,
    recordedAt: at("2026-01-10"),
    metadata: {},
  }) as Envelope

const plan = (event: PaymentPlanEvent) => envelope({ streamType: "PaymentPlan", event })
const consent = (event: ConsentEvent) => envelope({ streamType: "Consent", event })

const fold = <Doc, Env extends Envelope>(
  projection: Projection<Doc, Env>,
  events: ReadonlyArray<Envelope>,
): Doc | undefined =>
  (events as ReadonlyArray<Env>).reduce<Doc | undefined>(
    (doc, event) => (projection.key(event) === undefined ? doc : projection.apply(doc, event)),
    undefined,
  )

const ids = { paymentPlanId, partnerId, companyId }
const consentIds = { consentId, paymentPlanId, partnerId, companyId, payerRegistrationId: payer }
const created = plan({
  _tag: "PaymentPlanCreated",
  ...ids,
  consentId,
  payerRegistrationId: payer,
  amount,
  frequency: "Weekly",
  recurrenceInterval: 2,
  startDate: CalendarDate.make("2026-01-15"),
  numberOfPayments: 2,
  at: at("2026-01-10"),
})
const requested = consent({
  _tag: "ConsentRequested",
  ...consentIds,
  amount,
  frequency: "Weekly",
  at: at("2026-01-10"),
})
const accepted = consent({ _tag: "ConsentAccepted", ...consentIds, bankAccountId, at: at("2026-01-11") })
const planAccepted = plan({ _tag: "PaymentPlanConsentAccepted", ...ids, consentId, at: at("2026-01-11") })
const activated = plan({ _tag: "PaymentPlanActivated", ...ids, skippedDueDates: [], at: at("2026-01-12") })
const paused = plan({ _tag: "PaymentPlanPaused", ...ids, at: at("2026-01-13") })
const collected = (dueDate: string, instalmentNumber: number) =>
  plan({
    _tag: "InstalmentCollected",
    ...ids,
    consentId,
    payerRegistrationId: payer,
    dueDate: CalendarDate.make(dueDate),
    instalmentNumber,
    amount,
    transferId,
    at: at(dueDate),
  })
const completed = plan({ _tag: "PaymentPlanCompleted", ...ids, instalmentsCollected: 2, at: at("2026-01-29") })

describe("the consents read model", () => {
  it("is the same whether the plan or its consent was recorded first", () => {
    const planFirst = fold(consents, [created, requested])
    const consentFirst = fold(consents, [requested, created])
    assert.deepStrictEqual(planFirst, consentFirst)
    assert.strictEqual(planFirst?.status, "Pending")
    assert.strictEqual(planFirst?.recurrenceInterval, 2)
    assert.strictEqual(planFirst?.startDate, "2026-01-15")
  })

  it("lists Pending and Accepted consents only", () => {
    const pending = fold(consents, [created, requested])
    const acceptedDoc = fold(consents, [created, requested, accepted])
    const revoked = fold(consents, [
      created,
      requested,
      accepted,
      consent({ _tag: "ConsentRevoked", ...consentIds, bankAccountId, at: at("2026-01-20") }),
    ])
    const declined = fold(consents, [
      created,
      requested,
      consent({ _tag: "ConsentDeclined", ...consentIds, at: at("2026-01-20") }),
    ])
    const listable = (doc: ConsentDocument | undefined) => (doc ? consents.index(doc).keys.listable : undefined)
    assert.deepStrictEqual([pending, acceptedDoc, revoked, declined].map(listable), ["true", "true", "false", "false"])
    assert.strictEqual(revoked?.status, "Revoked")
    assert.isDefined(revoked?.acceptedAt)
    assert.isDefined(revoked?.revokedAt)
    assert.strictEqual(declined?.status, "Declined")
    assert.isDefined(declined?.declinedAt)
    assert.deepStrictEqual(pending ? consents.index(pending).keys : undefined, {
      payerRegistrationId: payer,
      listable: "true",
      paymentPlanId,
    })
  })
})

describe("the payment plans read model", () => {
  it("follows the plan to completion: next due date, collected instalments, status", () => {
    const active = fold(paymentPlans, [created, planAccepted, activated])
    assert.strictEqual(active?.status, "Active")
    assert.strictEqual(active?.consentStatus, "Accepted")
    assert.strictEqual(active?.nextDueDate, "2026-01-15")
    const afterOne = fold(paymentPlans, [created, planAccepted, activated, collected("2026-01-15", 1)])
    assert.strictEqual(afterOne?.nextDueDate, "2026-01-29")
    assert.strictEqual(afterOne?.collectedCount, 1)
    const done = fold(paymentPlans, [
      created,
      planAccepted,
      activated,
      collected("2026-01-15", 1),
      collected("2026-01-29", 2),
      completed,
    ])
    assert.strictEqual(done?.status, "Completed")
    assert.isUndefined(done?.nextDueDate)
    assert.deepStrictEqual(
      done?.instalments.map((i) => i.dueDate),
      ["2026-01-15", "2026-01-29"],
    )
  })

  it("ignores consent events (the plan learns them through its own events)", () => {
    assert.isUndefined(paymentPlans.key(accepted as unknown as PaymentPlanEnvelope))
  })
})

describe("the scheduler's work list", () => {
  const collecting = (events: ReadonlyArray<Envelope>) => {
    const doc = fold(duePlans, events)
    return doc === undefined ? undefined : duePlans.index(doc).keys.collecting
  }

  it("holds a plan as collecting only while it is Active with an Accepted consent", () => {
    assert.strictEqual(collecting([created]), "false")
    assert.strictEqual(collecting([created, planAccepted]), "false")
    assert.strictEqual(collecting([created, planAccepted, activated]), "true")
    assert.strictEqual(collecting([created, planAccepted, activated, paused]), "false")
  })

  it("drops finished plans, and is owned by the system tenant, sorted by next due date", () => {
    assert.isUndefined(
      collecting([created, planAccepted, activated, collected("2026-01-15", 1), collected("2026-01-29", 2), completed]),
    )
    assert.isUndefined(
      collecting([
        created,
        plan({ _tag: "PaymentPlanCancelled", ...ids, reason: "CancelledByCompany", at: at("2026-01-12") }),
      ]),
    )
    const doc = fold(duePlans, [created, planAccepted, activated, collected("2026-01-15", 1)])
    assert.deepStrictEqual(doc ? duePlans.index(doc) : undefined, {
      partnerId: schedulerTenant,
      keys: { collecting: "true" },
      sortKey: "2026-01-29",
    })
  })
})
