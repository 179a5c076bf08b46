/**
 * The reimbursement-completion worker on PGlite: on the production path (the
 * operator's e-signature bridge, `ESignatureBridge`, against a fake provider)
 * it asks `envelope-status` for each transfer applied for reimbursement and,
 * once the envelope is Completed (the payer signed), the transfer reads
 * `isReimbursed: true`; on the sandbox path the sandbox payer signs after the
 * configured delay.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgDatabase } from "@partnerpay/adapters-pg"
import { CalendarDate, Companies, Ids, Payments, Transfers } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect, Fiber, Layer } from "effect"
import * as Domain from "../src/Domain.ts"
import * as ESignatureBridge from "../src/providers/ESignatureBridge.ts"
import * as ReimbursementCompletion from "../src/workers/ReimbursementCompletion.ts"
import * as FakeProvider from "./providers/FakeProvider.ts"
import { companyBody } from "./support.ts"

const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6d")
const payer = Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-0000000a0c0c")
const checking = Ids.BankAccountId.make("ba000000-0000-4000-8000-0000000a0c01")
const providerId = "5a5a5a5a-0000-4000-8000-000000000001" as Parameters<
  typeof Transfers.createReimbursement
>[0]["providerId"]

/** A settled transfer whose payer applied for its reimbursement: its id. */
const appliedTransfer = Effect.gen(function* () {
  const company = yield* Companies.register(partnerId, companyBody({ companyReferenceId: "reimburse-1" }))
  yield* Companies.completeKyb(company.companyId, "Verified")
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer, checking)
  const created = yield* Payments.create({
    partnerId,
    companyId: company.companyId,
    payerRegistrationId: payer,
    amount: { value: 80, currencyCode: "USD" },
    description: "Dental check-up",
    dueDate: CalendarDate.fromEpochMillis(Date.now()),
  })
  yield* Payments.accept({
    partnerId,
    paymentRequestId: created.paymentRequestId,
    registrationId: payer,
    bankAccountId: checking,
    acceptDebitAuth: false,
    transferDescription: "",
  })
  const transferId = Ids.TransferId.make((yield* Payments.get(partnerId, created.paymentRequestId)).transferId!)
  yield* Payments.settleTransfer(transferId)
  yield* Transfers.createReimbursement({ partnerId, registrationId: payer, transferId, providerId })
  return transferId
})

/** Waits (real time) until the transfer reads reimbursed. */
const reimbursed = (transferId: Ids.TransferId) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 200; attempt++) {
      const transfer = yield* Transfers.get({ _tag: "Partner", partnerId }, transferId)
      if (transfer.isReimbursed) return transfer
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.die(new Error("the reimbursement did not complete in time"))
  })

const worker = Layer.launch(ReimbursementCompletion.layer({ pollMillis: 20 }))

describe("the reimbursement-completion worker", () => {
  it.live(
    "production path: asks the bridge's envelope-status until Completed; the transfer is reimbursed",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.start()
        fake.script("reimbursement-envelope", [
          { status: 200, body: { envelopeId: "env-1", signingUrl: "https://sign.example.com/env-1" } },
        ])
        fake.script("envelope-status", [
          { status: 200, body: { status: "Sent" } },
          { status: 200, body: { status: "Completed" } },
        ])
        const context = yield* Layer.build(
          Layer.merge(
            Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPglite())),
            ESignatureBridge.layer(fake.config({ retries: 0 })),
          ),
        )
        const transferId = yield* Effect.provide(appliedTransfer, context)
        const running = yield* Effect.forkChild(worker.pipe(Effect.provide(context)))
        const transfer = yield* Effect.provide(reimbursed(transferId), context)
        assert.deepInclude(transfer, { appliedForReimbursement: true, isReimbursed: true })
        const asked = fake.received().filter((request) => request.operation === "envelope-status")
        assert.isAtLeast(asked.length, 2)
        assert.deepInclude(asked[0]?.body, { envelopeId: "env-1", transferId })
        yield* Fiber.interrupt(running)
      }).pipe(Effect.scoped),
    60_000,
  )

  it.live(
    "sandbox path: the sandbox payer signs after the delay; the transfer is reimbursed",
    () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(
          Layer.merge(
            Domain.layer.pipe(Layer.provideMerge(PgDatabase.layerPglite())),
            Transfers.eSignatureSandboxWith({ completeAfterMillis: 300 }),
          ),
        )
        const transferId = yield* Effect.provide(appliedTransfer, context)
        const running = yield* Effect.forkChild(worker.pipe(Effect.provide(context)))
        const transfer = yield* Effect.provide(reimbursed(transferId), context)
        assert.isTrue(transfer.isReimbursed)
        yield* Fiber.interrupt(running)
      }).pipe(Effect.scoped),
    60_000,
  )
})
