import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as CalendarDate from "../../src/kernel/CalendarDate.ts"
import { fold, run } from "../../src/kernel/Decider.ts"
import type {
  BankAccountId,
  CompanyId,
  ConsentId,
  PartnerId,
  PaymentPlanId,
  PaymentRequestId,
  RegistrationId,
  TransferId,
} from "../../src/kernel/Ids.ts"
import * as Money from "../../src/kernel/Money.ts"
import * as ConsentAnswerPolicy from "../../src/plans/ConsentAnswerPolicy.ts"
import type { ConsentEvent } from "../../src/plans/ConsentEvents.ts"
import * as PaymentPlan from "../../src/plans/PaymentPlan.ts"
import type { CancellationReason, PaymentPlanEvent } from "../../src/plans/PaymentPlanEvents.ts"
import * as PaymentPlanSchedule from "../../src/plans/PaymentPlanSchedule.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(20260301)

const spec = DeciderSpecification.forAggregate(PaymentPlan.aggregate)

const paymentPlanId = "0d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a60" as PaymentPlanId
const consentId = "1d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a61" as ConsentId
const otherConsentId = "1d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a62" as ConsentId
const partnerId = "2d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a63" as PartnerId
const companyId = "3d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as CompanyId
const payer = "4d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a65" as RegistrationId
const bankAccount = "5d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66" as BankAccountId
const request1 = "6d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a67" as PaymentRequestId
const request2 = "6d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a68" as PaymentRequestId
const transfer1 = "7d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a69" as TransferId
const transfer2 = "7d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6a" as TransferId

const on = (iso: string) => DateTime.makeUnsafe(`${iso}T09:00:00.000Z`)
const date = (text: string) => text as CalendarDate.CalendarDate

const amount = Money.make(4_999, "USD")
const planIds = { paymentPlanId, partnerId, companyId }

// The plan of these examples: 49.99 USD monthly, 3 payments due Jan 15, Feb 15 and Mar 15 2026, created Jan 10.
const createdAt = on("2026-01-10")
const create = (overrides: Partial<PaymentPlan.CreatePaymentPlan> = {}): PaymentPlan.CreatePaymentPlan => ({
  _tag: "CreatePaymentPlan",
  ...planIds,
  consentId,
  companyStatus: "Verified",
  payerRegistrationId: payer,
  amount,
  frequency: "Monthly",
  recurrenceInterval: 1,
  startDate: date("2026-01-15"),
  numberOfPayments: 3,
  at: createdAt,
  ...overrides,
})
const recordAccepted = (consent = consentId): PaymentPlan.RecordConsentAccepted => ({
  _tag: "RecordConsentAccepted",
  paymentPlanId,
  consentId: consent,
  at: on("2026-01-11"),
})
const recordWithdrawn = (
  withdrawal: "Declined" | "Revoked",
  at = on("2026-01-20"),
): PaymentPlan.RecordConsentWithdrawn => ({
  _tag: "RecordConsentWithdrawn",
  paymentPlanId,
  consentId,
  withdrawal,
  at,
})
const activate = (at = on("2026-01-12")): PaymentPlan.ActivatePaymentPlan => ({
  _tag: "ActivatePaymentPlan",
  paymentPlanId,
  at,
})
const pause = (at = on("2026-01-20")): PaymentPlan.PausePaymentPlan => ({ _tag: "PausePaymentPlan", paymentPlanId, at })
const resume = (at = on("2026-01-25")): PaymentPlan.ResumePaymentPlan => ({
  _tag: "ResumePaymentPlan",
  paymentPlanId,
  at,
})
const cancel = (at = on("2026-01-20")): PaymentPlan.CancelPaymentPlan => ({
  _tag: "CancelPaymentPlan",
  paymentPlanId,
  at,
})
const collect = (
  dueDate: string,
  at: DateTime.Utc,
  reference: { paymentRequestId?: PaymentRequestId; transferId?: TransferId } = { paymentRequestId: request1 },
): PaymentPlan.CollectInstalment => ({
  _tag: "CollectInstalment",
  paymentPlanId,
  dueDate: date(dueDate),
  ...reference,
  at,
})

const created: PaymentPlanEvent = {
  _tag: "PaymentPlanCreated",
  ...planIds,
  consentId,
  payerRegistrationId: payer,
  amount,
  frequency: "Monthly",
  recurrenceInterval: 1,
  startDate: date("2026-01-15"),
  numberOfPayments: 3,
  at: createdAt,
}
const consentAccepted: PaymentPlanEvent = {
  _tag: "PaymentPlanConsentAccepted",
  ...planIds,
  consentId,
  at: on("2026-01-11"),
}
const activated = (skipped: ReadonlyArray<string> = [], at = on("2026-01-12")): PaymentPlanEvent => ({
  _tag: "PaymentPlanActivated",
  ...planIds,
  skippedDueDates: skipped.map(date),
  at,
})
const paused = (at = on("2026-01-20")): PaymentPlanEvent => ({ _tag: "PaymentPlanPaused", ...planIds, at })
const resumed = (skipped: ReadonlyArray<string> = [], at = on("2026-01-25")): PaymentPlanEvent => ({
  _tag: "PaymentPlanResumed",
  ...planIds,
  skippedDueDates: skipped.map(date),
  at,
})
const cancelled = (reason: CancellationReason = "CancelledByCompany", at = on("2026-01-20")): PaymentPlanEvent => ({
  _tag: "PaymentPlanCancelled",
  ...planIds,
  reason,
  at,
})
const collected = (
  dueDate: string,
  instalmentNumber: number,
  at: DateTime.Utc,
  reference: { paymentRequestId?: PaymentRequestId; transferId?: TransferId } = { paymentRequestId: request1 },
): PaymentPlanEvent => ({
  _tag: "InstalmentCollected",
  ...planIds,
  consentId,
  payerRegistrationId: payer,
  dueDate: date(dueDate),
  instalmentNumber,
  amount,
  ...reference,
  at,
})
const completed = (instalmentsCollected: number, at: DateTime.Utc): PaymentPlanEvent => ({
  _tag: "PaymentPlanCompleted",
  ...planIds,
  instalmentsCollected,
  at,
})
const withdrawn = (withdrawal: "Declined" | "Revoked", at = on("2026-01-20")): PaymentPlanEvent => ({
  _tag: "PaymentPlanConsentWithdrawn",
  ...planIds,
  consentId,
  withdrawal,
  at,
})

const draft = [created]
const draftWithConsent = [created, consentAccepted]
const active = [...draftWithConsent, activated()]
const activeAfterTwo = [
  ...active,
  collected("2026-01-15", 1, on("2026-01-15")),
  collected("2026-02-15", 2, on("2026-02-15"), { paymentRequestId: request2 }),
]
const pausedPlan = [...active, paused(on("2026-01-13"))]
const completedPlan = [
  ...activeAfterTwo,
  collected("2026-03-15", 3, on("2026-03-16"), { transferId: transfer1 }),
  completed(3, on("2026-03-16")),
]

describe("a payment plan that does not exist", () => {
  it("a company whose KYB is not Verified cannot create one (COMPANY_NOT_VERIFIED, COMPANY_REJECTED)", () => {
    spec
      .given([])
      .when(create({ companyStatus: "Unverified" }))
      .thenFails({ _tag: "RuleViolated", code: "COMPANY_NOT_VERIFIED" })
    spec
      .given([])
      .when(create({ companyStatus: "Rejected" }))
      .thenFails({ _tag: "RuleViolated", code: "COMPANY_REJECTED" })
  })
  it("create keeps the company's description; one over 500 characters is refused", () => {
    spec
      .given([])
      .when(create({ description: "Monthly coffee subscription" }))
      .then([{ ...created, description: "Monthly coffee subscription" } as PaymentPlanEvent])
    spec
      .given([])
      .when(create({ description: "x".repeat(501) }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "description", message: "must be at most 500 characters" }],
      })
    spec
      .given([{ ...created, description: "Monthly coffee subscription" } as PaymentPlanEvent])
      .when(create({ description: "Another text" }))
      .thenFails({ _tag: "AlreadyExists", entity: "PaymentPlan" })
  })
  it("create makes a Draft plan whose consent is Pending", () => {
    spec.given([]).when(create()).then([created])
    spec
      .given([])
      .when(create())
      .thenState((state) => {
        assert.strictEqual(PaymentPlan.statusOf(state), "Draft")
        if (state._tag === "Draft") assert.strictEqual(state.consent, "Pending")
      })
  })
  it("create with an end date and no number of payments is allowed; with neither the plan runs until cancelled", () => {
    const { numberOfPayments: _n, ...endless } = create()
    spec
      .given([])
      .when({ ...endless, endDate: date("2026-06-30") })
      .thenState((state) => assert.strictEqual(state._tag, "Draft"))
    spec
      .given([])
      .when(endless)
      .thenState((state) => assert.strictEqual(state._tag, "Draft"))
  })
  it("create starting on the creation date is allowed, as is the longest interval (52 weeks)", () => {
    spec
      .given([])
      .when(create({ startDate: date("2026-01-10"), frequency: "Weekly", recurrenceInterval: 52 }))
      .thenState((state) => assert.strictEqual(state._tag, "Draft"))
  })
  it("create refuses bad terms, naming every bad field", () => {
    spec
      .given([])
      .when(
        create({
          amount: Money.make(0, "USD"),
          recurrenceInterval: 13,
          startDate: date("2026-01-09"),
          numberOfPayments: 0,
          endDate: date("2026-01-01"),
        }),
      )
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "amount", message: "must be greater than zero" },
          { field: "recurrenceInterval", message: "must be a whole number from 1 to 12 for a Monthly plan" },
          { field: "startDate", message: "must not be before the creation date 2026-01-10" },
          { field: "endDate", message: "give either numberOfPayments or endDate, not both" },
          { field: "numberOfPayments", message: "must be a whole number from 1 to 1000" },
          { field: "endDate", message: "must not be before the start date" },
        ],
      })
  })
  it("create refuses a weekly interval above 52, a fractional interval and more than 1000 payments", () => {
    spec
      .given([])
      .when(create({ frequency: "Weekly", recurrenceInterval: 53, numberOfPayments: 1001 }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "recurrenceInterval", message: "must be a whole number from 1 to 52 for a Weekly plan" },
          { field: "numberOfPayments", message: "must be a whole number from 1 to 1000" },
        ],
      })
    spec
      .given([])
      .when(create({ recurrenceInterval: 1.5 }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "recurrenceInterval", message: "must be a whole number from 1 to 12 for a Monthly plan" }],
      })
  })
  it("every other command is refused as NotFound", () => {
    const commands: ReadonlyArray<PaymentPlan.Command> = [
      recordAccepted(),
      recordWithdrawn("Declined"),
      activate(),
      pause(),
      resume(),
      cancel(),
      collect("2026-01-15", on("2026-01-15")),
    ]
    for (const command of commands) spec.given([]).when(command).thenFails({ _tag: "NotFound", entity: "PaymentPlan" })
  })
  it("has no status and no next due date", () => {
    assert.isUndefined(PaymentPlan.statusOf(PaymentPlan.initialState))
    assert.isUndefined(PaymentPlan.nextDueDate(PaymentPlan.initialState))
  })
  it("create accepts the limits themselves: 1000 payments, an end date on the start date, 500 characters", () => {
    const { numberOfPayments: _n, ...endless } = create()
    for (const command of [
      create({ numberOfPayments: 1000 }),
      { ...endless, endDate: date("2026-01-15") },
      create({ description: "x".repeat(500) }),
    ])
      spec
        .given([])
        .when(command)
        .thenState((state) => assert.strictEqual(state._tag, "Draft"))
  })
})

describe("a plan's creation records its terms", () => {
  it("an end date instead of a number of payments, and a description, are kept in PaymentPlanCreated", () => {
    const { numberOfPayments: _n, ...endless } = create({ description: "Gym membership" })
    const { numberOfPayments: _m, ...createdEndless } = created as Extract<
      PaymentPlanEvent,
      { _tag: "PaymentPlanCreated" }
    >
    spec
      .given([])
      .when({ ...endless, endDate: date("2026-06-30") })
      .then([{ ...createdEndless, endDate: date("2026-06-30"), description: "Gym membership" }])
  })
})

describe("a Draft plan's terms", () => {
  it("are exactly those of its creation, without the terms it was not given", () => {
    const { numberOfPayments: _n, ...endless } = create({ description: "Gym membership" })
    const schedule = { frequency: "Monthly" as const, recurrenceInterval: 1, startDate: date("2026-01-15") }
    const fixed = { paymentPlanId, consentId, partnerId, companyId, payerRegistrationId: payer, amount }
    spec
      .given([])
      .when(create())
      .thenState((state) => {
        assert.strictEqual(state._tag, "Draft")
        if (state._tag === "Draft")
          assert.deepStrictEqual(state.terms, { ...fixed, ...schedule, numberOfPayments: 3, createdAt })
      })
    spec
      .given([])
      .when({ ...endless, endDate: date("2026-06-30") })
      .thenState((state) => {
        assert.strictEqual(state._tag, "Draft")
        if (state._tag === "Draft")
          assert.deepStrictEqual(state.terms, {
            ...fixed,
            ...schedule,
            endDate: date("2026-06-30"),
            description: "Gym membership",
            createdAt,
          })
      })
  })
})

describe("a repeated create under the same id", () => {
  const otherTerms: ReadonlyArray<[string, Partial<PaymentPlan.CreatePaymentPlan>]> = [
    ["consent", { consentId: otherConsentId }],
    ["partner", { partnerId: "2d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PaymentPlan.CreatePaymentPlan["partnerId"] }],
    ["company", { companyId: "3d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PaymentPlan.CreatePaymentPlan["companyId"] }],
    [
      "payer",
      {
        payerRegistrationId:
          "4d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a6f" as PaymentPlan.CreatePaymentPlan["payerRegistrationId"],
      },
    ],
    ["amount", { amount: Money.make(5_000, "USD") }],
    ["frequency", { frequency: "Weekly" }],
    ["interval", { recurrenceInterval: 2 }],
    ["start date", { startDate: date("2026-01-16") }],
    ["number of payments", { numberOfPayments: 4 }],
    ["end date", { endDate: date("2026-06-30") }],
    ["description", { description: "Gym membership" }],
  ]
  for (const [term, overrides] of otherTerms) {
    it(`with another ${term} is refused as AlreadyExists`, () => {
      spec.given(draft).when(create(overrides)).thenFails({ _tag: "AlreadyExists", entity: "PaymentPlan" })
    })
  }
})

describe("news about another consent than the plan's own", () => {
  it("its withdrawal is refused and does not cancel the plan", () => {
    for (const given of [draft, draftWithConsent, active])
      spec
        .given(given)
        .when({ ...recordWithdrawn("Revoked"), consentId: otherConsentId })
        .thenFails({ _tag: "RuleViolated", code: "CONSENT_MISMATCH" })
  })
  it("the refusal names both the consent and the plan", () => {
    spec
      .given(draft)
      .when(recordAccepted(otherConsentId))
      .thenFails({
        _tag: "RuleViolated",
        code: "CONSENT_MISMATCH",
        reason: `consent ${otherConsentId} is not the consent of payment plan ${paymentPlanId}`,
      })
  })
})

describe("an event that does not fit the state leaves it unchanged", () => {
  it("any event but the creation, for a plan that does not exist", () => {
    for (const event of [
      consentAccepted,
      withdrawn("Revoked"),
      activated(),
      paused(),
      resumed(),
      cancelled(),
      collected("2026-01-15", 1, on("2026-01-15")),
      completed(3, on("2026-03-16")),
    ])
      spec.given([]).ignores(event)
  })

  it("a second creation, for a plan that exists, even with other terms", () => {
    spec.given(draft).ignores(created)
    spec.given(draft).ignores({ ...created, amount: Money.make(1, "USD") } as PaymentPlanEvent)
    spec.given(active).ignores({ ...created, numberOfPayments: 12 } as PaymentPlanEvent)
  })

  it("activation, unless the plan is a Draft", () => {
    spec.given(active).ignores(activated())
    spec.given(pausedPlan).ignores(activated())
    spec.given([...active, cancelled()]).ignores(activated())
  })

  it("a pause, unless the plan is Active", () => {
    spec.given(draft).ignores(paused())
    spec.given(pausedPlan).ignores(paused())
  })

  it("a resumption, unless the plan is Paused", () => {
    spec.given(draft).ignores(resumed())
    spec.given(active).ignores(resumed())
  })

  it("a cancellation or completion of a plan that already ended", () => {
    spec.given([...active, cancelled()]).ignores(cancelled("ConsentRevoked"))
    spec.given([...active, cancelled()]).ignores(completed(3, on("2026-03-16")))
    spec.given([...active, completed(3, on("2026-03-16"))]).ignores(cancelled())
  })
})

describe("a Draft plan", () => {
  it("create with the same terms changes nothing; other terms are refused as AlreadyExists", () => {
    spec
      .given(draft)
      .when(create({ at: on("2026-01-11") }))
      .thenNothingHappens()
    spec
      .given(draft)
      .when(create({ numberOfPayments: 4 }))
      .thenFails({ _tag: "AlreadyExists", entity: "PaymentPlan" })
  })
  it("learns that its consent was accepted", () => {
    spec.given(draft).when(recordAccepted()).then([consentAccepted])
  })
  it("refuses news about another consent", () => {
    spec.given(draft).when(recordAccepted(otherConsentId)).thenFails({ _tag: "RuleViolated", code: "CONSENT_MISMATCH" })
  })
  it("learning the acceptance twice changes nothing", () => {
    spec.given(draftWithConsent).when(recordAccepted()).thenNothingHappens()
  })
  it("activation with an Accepted consent moves it to Active", () => {
    spec.given(draftWithConsent).when(activate()).then([activated()])
  })
  it("activation while the consent is Pending is refused", () => {
    spec.given(draft).when(activate()).thenFails({
      _tag: "RuleViolated",
      code: "CONSENT_NOT_ACCEPTED",
      reason: "the payer's consent is Pending; a plan collects only with an Accepted consent",
    })
  })
  it("activation after due dates have passed skips them (they are never collected)", () => {
    spec
      .given(draftWithConsent)
      .when(activate(on("2026-02-20")))
      .then([activated(["2026-01-15", "2026-02-15"], on("2026-02-20"))])
  })
  it("activation after every due date has passed activates and completes it at once", () => {
    spec
      .given(draftWithConsent)
      .when(activate(on("2026-04-01")))
      .then([activated(["2026-01-15", "2026-02-15", "2026-03-15"], on("2026-04-01")), completed(0, on("2026-04-01"))])
  })
  it("cannot be paused or resumed", () => {
    spec.given(draft).when(pause()).thenFails({
      _tag: "IllegalTransition",
      state: "Draft",
      command: "PausePaymentPlan",
      reason: "a Draft plan is not collecting yet: only an Active plan can be paused",
    })
    spec.given(draft).when(resume()).thenFails({
      _tag: "IllegalTransition",
      state: "Draft",
      command: "ResumePaymentPlan",
      reason: "a Draft plan was never active: activate it instead",
    })
  })
  it("collects nothing", () => {
    spec
      .given(draftWithConsent)
      .when(collect("2026-01-15", on("2026-01-15")))
      .thenFails({ _tag: "IllegalTransition", state: "Draft", command: "CollectInstalment" })
  })
  it("cancel moves it to Cancelled", () => {
    spec.given(draft).when(cancel()).then([cancelled()])
  })
  it("a declined consent cancels it", () => {
    spec
      .given(draft)
      .when(recordWithdrawn("Declined"))
      .then([withdrawn("Declined"), cancelled("ConsentDeclined")])
  })
})

describe("an Active plan", () => {
  it("activating again changes nothing; resuming changes nothing", () => {
    spec.given(active).when(activate()).thenNothingHappens()
    spec.given(active).when(resume()).thenNothingHappens()
  })
  it("collects the next due date once it has arrived", () => {
    spec
      .given(active)
      .when(collect("2026-01-15", on("2026-01-15")))
      .then([collected("2026-01-15", 1, on("2026-01-15"))])
  })
  it("collects a due date late (the edge was late), still in schedule order", () => {
    spec
      .given(active)
      .when(collect("2026-01-15", on("2026-01-18"), { transferId: transfer1 }))
      .then([collected("2026-01-15", 1, on("2026-01-18"), { transferId: transfer1 })])
  })
  it("refuses to collect before the due date", () => {
    spec
      .given(active)
      .when(collect("2026-01-15", on("2026-01-14")))
      .thenFails({
        _tag: "RuleViolated",
        code: "INSTALMENT_NOT_DUE",
        reason: "the instalment due 2026-01-15 cannot be collected on 2026-01-14",
      })
  })
  it("refuses to collect any date but the next due date", () => {
    spec
      .given(active)
      .when(collect("2026-02-15", on("2026-02-16")))
      .thenFails({
        _tag: "RuleViolated",
        code: "NOT_NEXT_INSTALMENT",
        reason: "the next instalment of the plan is due 2026-01-15, not 2026-02-15",
      })
    spec
      .given(active)
      .when(collect("2026-01-16", on("2026-01-16")))
      .thenFails({ _tag: "RuleViolated", code: "NOT_NEXT_INSTALMENT" })
  })
  it("collecting the same due date again with the same payment changes nothing", () => {
    spec
      .given(activeAfterTwo)
      .when(collect("2026-01-15", on("2026-03-01")))
      .thenNothingHappens()
  })
  it("collecting a collected due date with another payment is refused", () => {
    spec
      .given(activeAfterTwo)
      .when(collect("2026-01-15", on("2026-03-01"), { paymentRequestId: request2 }))
      .thenFails({
        _tag: "RuleViolated",
        code: "INSTALMENT_ALREADY_COLLECTED",
        reason: "the instalment due 2026-01-15 was already collected by another payment",
      })
  })
  it("collecting a due date already collected by a transfer is refused, whatever transfer id it carries", () => {
    const byTransfer = [...active, collected("2026-01-15", 1, on("2026-01-15"), { transferId: transfer1 })]
    const otherTransfer = "7d8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a70" as TransferId
    spec
      .given(byTransfer)
      .when(collect("2026-01-15", on("2026-01-20"), { transferId: otherTransfer }))
      .thenFails({ _tag: "RuleViolated", code: "INSTALMENT_ALREADY_COLLECTED" })
    spec
      .given(byTransfer)
      .when(collect("2026-01-15", on("2026-01-20"), { transferId: transfer1 }))
      .thenNothingHappens()
  })
  it("collection needs exactly one of a payment request or a transfer", () => {
    spec
      .given(active)
      .when(collect("2026-01-15", on("2026-01-15"), {}))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [
          { field: "paymentRequestId", message: "either paymentRequestId or transferId is required" },
          { field: "transferId", message: "either paymentRequestId or transferId is required" },
        ],
      })
    spec
      .given(active)
      .when(collect("2026-01-15", on("2026-01-15"), { paymentRequestId: request1, transferId: transfer1 }))
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "transferId", message: "give either paymentRequestId or transferId, not both" }],
      })
  })
  it("collecting the last instalment completes it", () => {
    spec
      .given(activeAfterTwo)
      .when(collect("2026-03-15", on("2026-03-16"), { transferId: transfer1 }))
      .then([collected("2026-03-15", 3, on("2026-03-16"), { transferId: transfer1 }), completed(3, on("2026-03-16"))])
  })
  it("with an end date completes with the last due date on or before it", () => {
    const { numberOfPayments: _n, ...terms } = created as Extract<PaymentPlanEvent, { _tag: "PaymentPlanCreated" }>
    const endDated: PaymentPlanEvent = { ...terms, endDate: date("2026-02-20") }
    spec
      .given([endDated, consentAccepted, activated(), collected("2026-01-15", 1, on("2026-01-15"))])
      .when(collect("2026-02-15", on("2026-02-15")))
      .then([collected("2026-02-15", 2, on("2026-02-15")), completed(2, on("2026-02-15"))])
  })
  it("pause moves it to Paused", () => {
    spec.given(active).when(pause()).then([paused()])
  })
  it("cancel moves it to Cancelled", () => {
    spec.given(active).when(cancel()).then([cancelled()])
  })
  it("a revoked consent cancels it", () => {
    spec
      .given(active)
      .when(recordWithdrawn("Revoked"))
      .then([withdrawn("Revoked"), cancelled("ConsentRevoked")])
  })
})

describe("a Paused plan", () => {
  it("pausing again changes nothing", () => {
    spec.given(pausedPlan).when(pause()).thenNothingHappens()
  })
  it("resume moves it back to Active", () => {
    spec
      .given(pausedPlan)
      .when(resume(on("2026-01-14")))
      .then([resumed([], on("2026-01-14"))])
  })
  it("resume also skips an instalment left uncollected before the pause (no catch-up after a pause)", () => {
    spec
      .given([...active, paused(on("2026-01-20"))])
      .when(resume(on("2026-01-25")))
      .then([resumed(["2026-01-15"], on("2026-01-25"))])
  })
  it("resume skips the due dates that passed while paused", () => {
    spec
      .given(pausedPlan)
      .when(resume(on("2026-02-16")))
      .then([resumed(["2026-01-15", "2026-02-15"], on("2026-02-16"))])
    spec
      .given(pausedPlan)
      .when(resume(on("2026-02-15")))
      .then([resumed(["2026-01-15"], on("2026-02-15"))])
  })
  it("resume after the last due date resumes and completes it", () => {
    spec
      .given(pausedPlan)
      .when(resume(on("2026-05-01")))
      .then([resumed(["2026-01-15", "2026-02-15", "2026-03-15"], on("2026-05-01")), completed(0, on("2026-05-01"))])
  })
  it("after resuming, collection continues with the first due date not skipped", () => {
    spec
      .given([...pausedPlan, resumed(["2026-01-15"], on("2026-02-01"))])
      .when(collect("2026-02-15", on("2026-02-15")))
      .then([collected("2026-02-15", 2, on("2026-02-15"))])
    spec
      .given([...pausedPlan, resumed(["2026-01-15"], on("2026-02-01"))])
      .when(collect("2026-01-15", on("2026-02-15")))
      .thenFails({ _tag: "RuleViolated", code: "NOT_NEXT_INSTALMENT" })
  })
  it("cannot be activated (it is resumed)", () => {
    spec.given(pausedPlan).when(activate()).thenFails({
      _tag: "IllegalTransition",
      state: "Paused",
      command: "ActivatePaymentPlan",
      reason: "the plan is paused: resume it instead",
    })
  })
  it("collects nothing", () => {
    spec
      .given(pausedPlan)
      .when(collect("2026-01-15", on("2026-01-15")))
      .thenFails({
        _tag: "IllegalTransition",
        state: "Paused",
        command: "CollectInstalment",
        reason: "a Paused plan collects nothing",
      })
  })
  it("cancel moves it to Cancelled", () => {
    spec.given(pausedPlan).when(cancel()).then([cancelled()])
  })
  it("a revoked consent cancels it", () => {
    spec
      .given(pausedPlan)
      .when(recordWithdrawn("Revoked"))
      .then([withdrawn("Revoked"), cancelled("ConsentRevoked")])
  })
})

describe("a Cancelled plan", () => {
  const cancelledPlan = [...active, cancelled()]
  it("cancelling again changes nothing", () => {
    spec.given(cancelledPlan).when(cancel()).thenNothingHappens()
  })
  it("cannot be activated, paused or resumed", () => {
    const refused = (reason: string) => ({ _tag: "IllegalTransition", state: "Cancelled", reason })
    spec.given(cancelledPlan).when(activate()).thenFails(refused("a Cancelled plan cannot be activated"))
    spec.given(cancelledPlan).when(pause()).thenFails(refused("a Cancelled plan cannot be paused"))
    spec.given(cancelledPlan).when(resume()).thenFails(refused("a Cancelled plan cannot be resumed"))
  })
  it("collects nothing", () => {
    spec
      .given(cancelledPlan)
      .when(collect("2026-01-15", on("2026-01-15")))
      .thenFails({ _tag: "IllegalTransition", state: "Cancelled", command: "CollectInstalment" })
  })
  it("news about its consent changes nothing", () => {
    spec.given(cancelledPlan).when(recordWithdrawn("Revoked")).thenNothingHappens()
    spec
      .given([...draft, cancelled()])
      .when(recordAccepted())
      .thenNothingHappens()
  })
  it("a plan cancelled by a withdrawn consent stays cancelled when an old acceptance arrives late", () => {
    spec
      .given([...draft, withdrawn("Declined"), cancelled("ConsentDeclined")])
      .when(recordAccepted())
      .thenState((state) => {
        assert.strictEqual(state._tag, "Cancelled")
        if (state._tag === "Cancelled") assert.strictEqual(state.consent, "Withdrawn")
      })
  })
})

describe("a Completed plan", () => {
  it("cannot be cancelled", () => {
    spec.given(completedPlan).when(cancel()).thenFails({
      _tag: "IllegalTransition",
      state: "Completed",
      command: "CancelPaymentPlan",
      reason: "a Completed plan has nothing left to cancel",
    })
  })
  it("cannot be activated, paused or resumed", () => {
    const refused = (reason: string) => ({ _tag: "IllegalTransition", state: "Completed", reason })
    spec.given(completedPlan).when(activate()).thenFails(refused("a Completed plan cannot be activated"))
    spec.given(completedPlan).when(pause()).thenFails(refused("a Completed plan cannot be paused"))
    spec.given(completedPlan).when(resume()).thenFails(refused("a Completed plan cannot be resumed"))
  })
  it("a repeated collection of its last instalment changes nothing", () => {
    spec
      .given(completedPlan)
      .when(collect("2026-03-15", on("2026-03-17"), { transferId: transfer1 }))
      .thenNothingHappens()
  })
  it("a revoked consent changes nothing", () => {
    spec.given(completedPlan).when(recordWithdrawn("Revoked")).thenNothingHappens()
  })
})

describe("an instalment collected through a transfer", () => {
  const byTransfer = [...active, collected("2026-01-15", 1, on("2026-01-15"), { transferId: transfer1 })]
  const outcome = (
    result: PaymentPlan.RecordInstalmentOutcome["outcome"],
    transferId: TransferId = transfer1,
  ): PaymentPlan.Command => ({
    _tag: "RecordInstalmentOutcome",
    paymentPlanId: planIds.paymentPlanId,
    transferId,
    outcome: result,
    at: on("2026-01-17"),
  })
  const instalment = { ...planIds, instalmentNumber: 1, dueDate: date("2026-01-15"), transferId: transfer1 }
  const settled: PaymentPlanEvent = { _tag: "InstalmentSettled", ...instalment, at: on("2026-01-17") }
  const failed: PaymentPlanEvent = {
    _tag: "InstalmentFailed",
    ...instalment,
    returnCode: "R01",
    reason: "insufficient funds",
    at: on("2026-01-17"),
  }
  const r01 = { _tag: "Failed", returnCode: "R01", reason: "insufficient funds" } as const

  it("is Settled when its transfer settles", () => {
    spec
      .given(byTransfer)
      .when(outcome({ _tag: "Settled" }))
      .then([settled])
  })
  it("is Failed when its transfer fails, and the plan still collects the next due date", () => {
    spec.given(byTransfer).when(outcome(r01)).then([failed])
    spec
      .given([...byTransfer, failed])
      .when(collect("2026-02-15", on("2026-02-15"), { transferId: transfer2 }))
      .then([collected("2026-02-15", 2, on("2026-02-15"), { transferId: transfer2 })])
  })
  it("is Failed without a return code when the rail refused its transfer (no ACH return)", () => {
    const refused = { _tag: "Failed", reason: "refused by the rail" } as const
    const failedWithoutCode: PaymentPlanEvent = {
      _tag: "InstalmentFailed",
      ...instalment,
      reason: "refused by the rail",
      at: on("2026-01-17"),
    }
    spec.given(byTransfer).when(outcome(refused)).then([failedWithoutCode])
  })
  it("keeps its first outcome: a repeated or contradicting outcome changes nothing", () => {
    spec
      .given([...byTransfer, settled])
      .when(outcome({ _tag: "Settled" }))
      .thenNothingHappens()
    spec
      .given([...byTransfer, failed])
      .when(outcome({ _tag: "Settled" }))
      .thenNothingHappens()
  })
  it("a settled one is Returned when its transfer comes back, with the code and its reason", () => {
    const r10 = { _tag: "Returned", returnCode: "R10", reason: "not authorised" } as const
    const returned: PaymentPlanEvent = {
      _tag: "InstalmentReturned",
      ...instalment,
      returnCode: "R10",
      reason: "not authorised",
      at: on("2026-01-17"),
    }
    spec
      .given([...byTransfer, settled])
      .when(outcome(r10))
      .then([returned])
    spec
      .given([...byTransfer, settled])
      .when(outcome(r10))
      .thenState((state) => {
        assert.notStrictEqual(state._tag, "Initial")
        if (state._tag !== "Initial") assert.strictEqual(state.collected[0]?.status, "Returned")
      })
    spec
      .given([...byTransfer, settled, returned])
      .when(outcome(r10))
      .thenNothingHappens()
  })
  it("a pending one returned before its settlement was recorded is Settled, then Returned", () => {
    const r10 = { _tag: "Returned", returnCode: "R10", reason: "not authorised" } as const
    spec
      .given(byTransfer)
      .when(outcome(r10))
      .then([
        settled,
        {
          _tag: "InstalmentReturned",
          ...instalment,
          returnCode: "R10",
          reason: "not authorised",
          at: on("2026-01-17"),
        },
      ])
  })
  it("a failed one is never Returned", () => {
    spec
      .given([...byTransfer, failed])
      .when(outcome({ _tag: "Returned", returnCode: "R10", reason: "not authorised" }))
      .thenNothingHappens()
  })
  it("learns its outcome even after the plan was cancelled", () => {
    spec
      .given([...byTransfer, cancelled()])
      .when(outcome({ _tag: "Settled" }))
      .then([settled])
  })
  it("a transfer collecting no instalment of the plan is refused", () => {
    spec
      .given(byTransfer)
      .when(outcome({ _tag: "Settled" }, transfer2))
      .thenFails({
        _tag: "RuleViolated",
        code: "UNKNOWN_INSTALMENT_TRANSFER",
        reason: `transfer ${transfer2} collects no instalment of payment plan ${paymentPlanId}`,
      })
  })
})

describe("the consent policy", () => {
  const consentIds = { consentId, paymentPlanId, partnerId, companyId, payerRegistrationId: payer }
  const at = on("2026-01-11")
  it("tells the plan nothing when its consent is requested", () => {
    const event: ConsentEvent = { _tag: "ConsentRequested", ...consentIds, amount, frequency: "Monthly", at }
    assert.isUndefined(ConsentAnswerPolicy.consentPolicy(event))
  })
  it("records an accepted consent on the plan", () => {
    const event: ConsentEvent = { _tag: "ConsentAccepted", ...consentIds, bankAccountId: bankAccount, at }
    assert.deepStrictEqual(ConsentAnswerPolicy.consentPolicy(event), {
      _tag: "RecordConsentAccepted",
      paymentPlanId,
      consentId,
      at,
    })
  })
  it("records a declined or revoked consent as withdrawn", () => {
    const declined: ConsentEvent = { _tag: "ConsentDeclined", ...consentIds, at }
    const revoked: ConsentEvent = { _tag: "ConsentRevoked", ...consentIds, bankAccountId: bankAccount, at }
    assert.deepStrictEqual(ConsentAnswerPolicy.consentPolicy(declined), {
      _tag: "RecordConsentWithdrawn",
      paymentPlanId,
      consentId,
      withdrawal: "Declined",
      at,
    })
    assert.deepStrictEqual(ConsentAnswerPolicy.consentPolicy(revoked), {
      _tag: "RecordConsentWithdrawn",
      paymentPlanId,
      consentId,
      withdrawal: "Revoked",
      at,
    })
  })
})

// ---------------------------------------------------------------------------
// Properties over generated plans and command sequences

type StepKind =
  | "accept"
  | "decline"
  | "revoke"
  | "activate"
  | "pause"
  | "resume"
  | "cancel"
  | "collectNext"
  | "collectNextEarly"
  | "collectRepeat"
  | "collectRepeatOtherPayment"
  | "collectAnyDate"

const arbitraryStep = fc.record({
  hours: fc.integer({ min: 0, max: 24 * 30 }),
  kind: fc.constantFrom<StepKind>(
    "accept",
    "accept",
    "decline",
    "revoke",
    "activate",
    "activate",
    "pause",
    "resume",
    "resume",
    "cancel",
    "collectNext",
    "collectNext",
    "collectNext",
    "collectNext",
    "collectNextEarly",
    "collectRepeat",
    "collectRepeatOtherPayment",
    "collectAnyDate",
  ),
  anyDateOffset: fc.integer({ min: -10, max: 200 }),
})

const arbitraryCreate = fc
  .record({
    frequency: fc.constantFrom<PaymentPlanSchedule.Frequency>("Weekly", "Monthly"),
    recurrenceInterval: fc.integer({ min: 1, max: 3 }),
    startOffset: fc.integer({ min: 0, max: 20 }),
    end: fc.oneof(
      fc.constant({ kind: "none" as const }),
      fc.record({ kind: fc.constant("count" as const), numberOfPayments: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ kind: fc.constant("date" as const), days: fc.integer({ min: 0, max: 150 }) }),
    ),
  })
  .map(({ frequency, recurrenceInterval, startOffset, end }): PaymentPlan.CreatePaymentPlan => {
    const { numberOfPayments: _n, ...base } = create()
    const startDate = CalendarDate.addDays(date("2026-01-10"), startOffset)
    return {
      ...base,
      frequency,
      recurrenceInterval,
      startDate,
      ...(end.kind === "count" ? { numberOfPayments: end.numberOfPayments } : {}),
      ...(end.kind === "date" ? { endDate: CalendarDate.addDays(startDate, end.days) } : {}),
    }
  })

const arbitraryScenario = fc.record({
  create: arbitraryCreate,
  steps: fc.array(arbitraryStep, { minLength: 1, maxLength: 25 }),
})

interface PlanStep {
  readonly before: PaymentPlan.State
  readonly command: PaymentPlan.Command
  readonly decision: ReturnType<typeof PaymentPlan.decide>
  readonly after: PaymentPlan.State
}

const existing = (state: PaymentPlan.State) => (state._tag === "Initial" ? undefined : state)

/** Turns a generated step into a command, looking at the plan only to pick plausible due dates. */
const toCommand = (
  step: { readonly kind: StepKind; readonly anyDateOffset: number },
  state: PaymentPlan.State,
  at: DateTime.Utc,
): PaymentPlan.Command => {
  const plan = existing(state)
  const next = PaymentPlan.nextDueDate(state) ?? plan?.terms.startDate ?? date("2026-01-10")
  const last = plan?.collected.at(-1)
  switch (step.kind) {
    case "accept":
      return { _tag: "RecordConsentAccepted", paymentPlanId, consentId, at }
    case "decline":
    case "revoke":
      return {
        _tag: "RecordConsentWithdrawn",
        paymentPlanId,
        consentId,
        withdrawal: step.kind === "decline" ? "Declined" : "Revoked",
        at,
      }
    case "activate":
      return { _tag: "ActivatePaymentPlan", paymentPlanId, at }
    case "pause":
      return { _tag: "PausePaymentPlan", paymentPlanId, at }
    case "resume":
      return { _tag: "ResumePaymentPlan", paymentPlanId, at }
    case "cancel":
      return { _tag: "CancelPaymentPlan", paymentPlanId, at }
    case "collectNext":
      return { _tag: "CollectInstalment", paymentPlanId, dueDate: next, paymentRequestId: request1, at }
    case "collectNextEarly":
      return {
        _tag: "CollectInstalment",
        paymentPlanId,
        dueDate: next,
        paymentRequestId: request1,
        at: DateTime.subtract(at, { days: 40 }),
      }
    case "collectRepeat":
      return {
        _tag: "CollectInstalment",
        paymentPlanId,
        dueDate: last?.dueDate ?? next,
        paymentRequestId: request1,
        at,
      }
    case "collectRepeatOtherPayment":
      return { _tag: "CollectInstalment", paymentPlanId, dueDate: last?.dueDate ?? next, transferId: transfer1, at }
    case "collectAnyDate":
      return {
        _tag: "CollectInstalment",
        paymentPlanId,
        dueDate: CalendarDate.addDays(plan?.terms.startDate ?? date("2026-01-10"), step.anyDateOffset),
        paymentRequestId: request1,
        at,
      }
  }
}

/** Runs the creation then the steps in order, the clock moving forward; refused commands leave the plan as it was. */
const play = (scenario: {
  create: PaymentPlan.CreatePaymentPlan
  steps: ReadonlyArray<{ hours: number; kind: StepKind; anyDateOffset: number }>
}) => {
  const steps: Array<PlanStep> = []
  const emitted: Array<PaymentPlanEvent> = []
  let state = PaymentPlan.initialState
  let clock = scenario.create.at
  const apply = (command: PaymentPlan.Command) => {
    const decision = PaymentPlan.decide(command, state)
    const outcome = run(PaymentPlan.aggregate, command, state)
    const after = outcome._tag === "Success" ? outcome.success.state : state
    if (decision._tag === "Success") emitted.push(...decision.success)
    steps.push({ before: state, command, decision, after })
    state = after
  }
  apply(scenario.create)
  for (const step of scenario.steps) {
    clock = DateTime.add(clock, { hours: step.hours })
    apply(toCommand(step, state, clock))
  }
  return { steps, emitted, state }
}

const collectedEvents = (events: ReadonlyArray<PaymentPlanEvent>) =>
  events.filter(
    (event): event is Extract<PaymentPlanEvent, { _tag: "InstalmentCollected" }> =>
      event._tag === "InstalmentCollected",
  )

const emittedBy = (step: PlanStep): ReadonlyArray<PaymentPlanEvent> =>
  step.decision._tag === "Success" ? step.decision.success : []

describe("payment plan rules (properties)", () => {
  it("replaying the events decide emitted reproduces the state", () => {
    fc.assert(
      fc.property(arbitraryScenario, (scenario) => {
        const { emitted, state } = play(scenario)
        assert.deepStrictEqual(fold(PaymentPlan.aggregate, emitted), state)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a paused, cancelled or unconsented plan collects nothing", () => {
    let refusedWhileNotCollecting = 0
    let collectedWhileActive = 0
    fc.assert(
      fc.property(arbitraryScenario, (scenario) => {
        for (const step of play(scenario).steps) {
          if (step.command._tag !== "CollectInstalment") continue
          const before = existing(step.before)
          const collecting = before?._tag === "Active" && before.consent === "Accepted"
          const collectedNow = collectedEvents(emittedBy(step)).length
          if (!collecting) {
            refusedWhileNotCollecting++
            assert.strictEqual(collectedNow, 0, `a ${before?._tag} plan with consent ${before?.consent} collected`)
          } else if (collectedNow > 0) {
            collectedWhileActive++
          }
        }
      }),
      // Seeded: the sanity counts below need a run that both refuses and collects, which unseeded runs missed now and then.
      seeded({ numRuns: 200 }),
    )
    assert.isAbove(refusedWhileNotCollecting, 0)
    assert.isAbove(collectedWhileActive, 0)
  })

  it("each due date is collected at most once, in schedule order, never before it is due", () => {
    fc.assert(
      fc.property(arbitraryScenario, (scenario) => {
        const { emitted } = play(scenario)
        const collections = collectedEvents(emitted)
        const dueDates = collections.map((event) => event.dueDate)
        assert.strictEqual(
          new Set(dueDates).size,
          dueDates.length,
          `a due date was collected twice: ${dueDates.join(", ")}`,
        )
        for (let i = 1; i < dueDates.length; i++)
          assert.isBelow(CalendarDate.compare(dueDates[i - 1]!, dueDates[i]!), 0)
        const terms = scenario.create
        for (const event of collections) {
          assert.strictEqual(
            PaymentPlanSchedule.dueDateAt(terms, event.instalmentNumber - 1),
            event.dueDate,
            "collected date is on the schedule",
          )
          assert.isAtMost(CalendarDate.compare(event.dueDate, PaymentPlan.today(event.at)), 0, "collected before due")
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a withdrawn consent ends the plan for good", () => {
    let seen = 0
    fc.assert(
      fc.property(arbitraryScenario, (scenario) => {
        for (const step of play(scenario).steps) {
          if (emittedBy(step).some((event) => event._tag === "PaymentPlanConsentWithdrawn")) {
            seen++
            assert.strictEqual(step.after._tag, "Cancelled")
          }
          const before = existing(step.before)
          if (before?.consent === "Withdrawn") assert.strictEqual(step.after._tag, "Cancelled")
        }
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isAbove(seen, 0)
  })

  it("no command moves a plan out of Cancelled or Completed", () => {
    let seen = 0
    fc.assert(
      fc.property(arbitraryScenario, (scenario) => {
        for (const step of play(scenario).steps) {
          if (PaymentPlan.isTerminal(step.before)) {
            seen++
            assert.strictEqual(step.after._tag, step.before._tag)
            assert.lengthOf(emittedBy(step), 0)
          }
        }
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isAbove(seen, 0)
  })

  it("a plan is Completed exactly when every due date of its schedule was collected or skipped", () => {
    let seen = 0
    fc.assert(
      fc.property(arbitraryScenario, (scenario) => {
        const { state } = play(scenario)
        const plan = existing(state)
        if (plan === undefined || plan._tag === "Cancelled") return
        const exhausted = PaymentPlanSchedule.isPastEnd(plan.terms, plan.nextIndex)
        if (plan._tag === "Completed") seen++
        assert.strictEqual(plan._tag === "Completed", exhausted)
      }),
      seeded({ numRuns: 200 }),
    )
    assert.isAbove(seen, 0)
  })
})
