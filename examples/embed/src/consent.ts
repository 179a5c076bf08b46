import { PgDatabase, PgDomain } from "@partnerpay/adapters-pg"
import {
  CalendarDate,
  Companies,
  Consents,
  EventPipeline,
  IdGenerator,
  Ids,
  Money,
  PaymentPlans,
  UnitOfWork,
} from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { DateTime, Effect, Layer } from "effect"

// Who acts. In a real service these come from your authentication.
const partnerId = Ids.PartnerId.make("0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b")
const payer = { partnerId, registrationId: Ids.RegistrationId.make("7e57ab1e-0000-4000-8000-00000000c0de") }
const bankAccountId = Ids.BankAccountId.make("ba000000-0000-4000-8000-000000000001")

/** A company collects from a payer: the plan asks for consent, the payer accepts, then declines. */
export const consentLifecycle = Effect.gen(function* () {
  // The payer, verified (KYC) with a linked bank account: in a real service, your login (OTP),
  // identity verification and bank-link flows (CustomerLogin, Verification, BankAccounts.link)
  // create them; the test kit does it directly here. Only a verified payer pays.
  yield* Fixtures.registerVerifiedCustomer(partnerId, payer.registrationId, bankAccountId)
  const { companyId } = yield* Companies.register(partnerId, {
    companyReferenceId: "acme-001",
    name: "Acme Coffee",
    emailAddress: "hello@acme.example.com",
    taxId: "12-3456789",
    taxIdType: "EIN",
    streetNumberAndName: "100 Main St",
    zipCode: "94105",
    city: "San Francisco",
    state: "CA",
    contactNumber: "+14155550199",
    companyType: "ForProfit",
    owner: {
      name: "Ada Lovelace",
      emailAddress: "ada@acme.example.com",
      contactNumber: "(415) 555-0100",
      title: "CEO",
      documentNumber: "D7654321",
      documentType: "DriversLicense",
      ssn: "987-65-4321",
      dateOfBirth: "1980-12-10",
      streetNumberAndName: "1 Analytical Way",
      zipCode: "94105",
      city: "San Francisco",
      state: "CA",
    },
    locations: [
      {
        name: "Main Street Store",
        streetNumberAndName: "100 Main St",
        zipCode: "94105",
        city: "San Francisco",
        state: "CA",
      },
    ],
  })
  // Your KYB provider's verdict (Companies.completeKyb): only a Verified company collects.
  yield* Companies.completeKyb(companyId, "Verified")
  const today = CalendarDate.fromEpochMillis(DateTime.toEpochMillis(yield* DateTime.now))

  // Creating a plan requests the payer's consent (Pending).
  const plan = yield* PaymentPlans.create({
    partnerId,
    companyId,
    payerRegistrationId: payer.registrationId,
    amount: Money.make(2500, "USD"),
    frequency: "Monthly",
    recurrenceInterval: 1,
    startDate: today,
    numberOfPayments: 3,
  })
  const requested = yield* Consents.get(payer, plan.consentId)
  const accepted = yield* Consents.accept(payer, plan.consentId, bankAccountId)
  // Declining an Accepted consent revokes it; the consent policy cancels the plan in the same unit of work.
  const revoked = yield* Consents.decline(payer, plan.consentId)
  const after = yield* PaymentPlans.get(partnerId, plan.paymentPlanId)
  return { consent: [requested.status, accepted.status, revoked.status], plan: after.status }
})

/** Everything in memory: events, read models and outbox live as long as the layer. */
export const inMemory = Layer.mergeAll(
  EventPipeline.layerMemory(),
  UnitOfWork.UnitOfWork.layerMemory,
  IdGenerator.IdGenerator.layerRandom,
)

/** PostgreSQL, here embedded PGlite (in memory); `PgDatabase.layerPostgres(url)` for a server. Migrates at start. */
export const onPglite = Layer.mergeAll(
  PgDomain.layer().pipe(Layer.provide(PgDatabase.layerPglite())),
  IdGenerator.IdGenerator.layerRandom,
)
