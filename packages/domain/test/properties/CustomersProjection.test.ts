/**
 * The `customers` read model agrees with the Customer aggregate: after any
 * history (identity verification started, verified, rejected; bank-link
 * sessions; accounts linked, relinked and unlinked; preferences; push tokens
 * registered, removed, pruned; cards saved), the document says what the
 * aggregate's state says, field by field.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as Customer from "../../src/customers/Customer.ts"
import { type CustomerDocument, projection } from "../../src/customers/CustomersProjection.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import { PropertyParams } from "../../src/testing/index.ts"
import { documentOf, history, iso, type Timed, uuid } from "./RandomHistory.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(42)

const hours = (at: DateTime.Utc, n: number) => DateTime.add(at, { hours: n })

/** Small pools of ids and tokens, so histories repeat them (retries, relinks, re-registrations). */
const pools = fc.record({
  tokenIds: fc.uniqueArray(uuid, { minLength: 3, maxLength: 3 }),
  referenceIds: fc.uniqueArray(uuid, { minLength: 2, maxLength: 2 }),
  bankAccountIds: fc.uniqueArray(uuid, { minLength: 3, maxLength: 3 }),
})
type Pools = typeof pools extends fc.Arbitrary<infer P> ? P : never

const personalData: Customer.RecordKycResult["personalData"] = {
  profileName: "",
  firstName: "Ada",
  lastName: "Lovelace",
  birthDate: "1990-12-10",
  ssnLastFourDigits: "4321",
  emailAddress: "ada@example.com",
  phoneNumber: "+14155550123",
} as Customer.RecordKycResult["personalData"]

const arbitraryCommand = (p: Pools): fc.Arbitrary<Timed<Customer.Command>> =>
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc.constantFrom(...p.tokenIds).map(
        (tokenId): Timed<Customer.Command> =>
          (at) => ({ _tag: "StartKyc", tokenId, expiration: hours(at, 1), at }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          outcome: fc.constantFrom("Verified" as const, "Rejected" as const, "Pending" as const),
          referenceId: fc.constantFrom(...p.referenceIds),
        })
        .map(
          ({ outcome, referenceId }): Timed<Customer.Command> =>
            (at) => ({ _tag: "RecordKycResult", outcome, referenceId, personalData, at }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...p.tokenIds).map(
        (tokenId): Timed<Customer.Command> =>
          (at) => ({ _tag: "OpenBankLinkSession", tokenId, expiration: hours(at, 1), at }),
      ),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({
          tokenId: fc.constantFrom(...p.tokenIds),
          accounts: fc.uniqueArray(
            fc.record({
              bankAccountId: fc.constantFrom(...p.bankAccountIds),
              name: fc.constantFrom("Everyday Checking", "Savings"),
              mask: fc.constantFrom("6789", "1234"),
            }),
            { minLength: 1, maxLength: 2, selector: (a) => a.bankAccountId },
          ),
        })
        .map(
          ({ tokenId, accounts }): Timed<Customer.Command> =>
            (at) => ({
              _tag: "LinkBankAccounts",
              tokenId,
              accounts: accounts.map((a) => ({
                bankAccountId: a.bankAccountId as BankAccountId,
                institutionId: "ins_1",
                name: a.name,
                mask: a.mask,
                type: "checking",
              })),
              at,
            }),
        ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...p.bankAccountIds).map(
        (id): Timed<Customer.Command> =>
          (at) => ({ _tag: "UnlinkBankAccount", bankAccountId: id as BankAccountId, at }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...p.bankAccountIds).map(
        (id): Timed<Customer.Command> =>
          (at) => ({ _tag: "SetDefaultBankAccount", bankAccountId: id as BankAccountId, at }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record(
          {
            newsEmail: fc.boolean(),
            newsPush: fc.boolean(),
            paymentDueEmail: fc.boolean(),
            paymentStatusPush: fc.boolean(),
          },
          { requiredKeys: [] },
        )
        .map(
          (changes): Timed<Customer.Command> =>
            (at) => ({ _tag: "UpdateNotificationPreferences", changes, at }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          token: fc.constantFrom("device-a", "device-b", "device-c"),
          lifetime: fc.integer({ min: 1, max: 3 }),
        })
        .map(
          ({ token, lifetime }): Timed<Customer.Command> =>
            (at) => ({ _tag: "RegisterPushToken", token, expireAt: hours(at, lifetime), at }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("device-a", "device-b").map(
        (token): Timed<Customer.Command> =>
          (at) => ({ _tag: "RemovePushToken", token, at }),
      ),
    },
    { weight: 1, arbitrary: fc.constant<Timed<Customer.Command>>((at) => ({ _tag: "PruneExpiredPushTokens", at })) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          id: fc.constantFrom("pm_1", "pm_2"),
          brand: fc.constantFrom("visa", "amex"),
          expYear: fc.constantFrom(2030, 2031),
        })
        .map(
          ({ id, brand, expYear }): Timed<Customer.Command> =>
            (at) => ({
              _tag: "SaveCardPaymentMethod",
              method: { id, type: "card", brand, last4: "4242", expMonth: 12, expYear },
              at,
            }),
        ),
    },
  )

const arbitraryHistory = fc.tuple(uuid, uuid, pools).chain(([registrationId, partnerId, p]) =>
  fc.array(arbitraryCommand(p), { minLength: 5, maxLength: 25 }).map((commands) => {
    const register: Timed<Customer.Command> = (at) => ({
      _tag: "RegisterCustomer",
      registrationId: registrationId as RegistrationId,
      partnerId: partnerId as PartnerId,
      phoneNumber: "+14155550123",
      at,
    })
    return { registrationId, ...history(Customer.aggregate, [register, ...commands]) }
  }),
)

const property = (check: (state: Customer.RegisteredCustomer, document: CustomerDocument) => void) =>
  fc.assert(
    fc.property(arbitraryHistory, ({ registrationId, events, state }) => {
      const document = documentOf(projection, "Customer", registrationId, events)
      if (state._tag !== "Registered" || document === undefined) throw new Error("a registered customer has a document")
      check(state, document)
    }),
    seeded(),
  )

describe("the customer document, after any history", () => {
  it("says the identity verification status, verdict reference and personal data the aggregate has", () =>
    property((state, document) => {
      assert.strictEqual(document.kycStatus, Customer.kycStatus(state))
      assert.strictEqual(document.kycReferenceId, state.kycReferenceId)
      assert.deepStrictEqual(document.personalData, Customer.personalData(state))
    }))

  it("says every session the aggregate issued, oldest first, and the latest verification session", () =>
    property((state, document) => {
      assert.deepStrictEqual(
        document.linkSessions.map((session) => session.tokenId),
        state.linkSessions,
      )
      assert.strictEqual(document.kycSession === null, state.kycStatus === "NotStarted")
      if (document.kycSession !== null) assert.include(state.linkSessions, document.kycSession.tokenId)
    }))

  it("lists exactly the bank accounts the aggregate has linked now, in order of first link", () =>
    property((state, document) => {
      assert.deepStrictEqual(document.bankAccounts, Customer.linkedBankAccounts(state))
    }))

  it("says the notification preferences the aggregate has", () =>
    property((state, document) => {
      assert.deepStrictEqual(document.notificationPreferences, Customer.notificationPreferences(state))
    }))

  it("lists the push tokens the aggregate keeps, with their expiry, least recently registered first", () =>
    property((state, document) => {
      assert.deepStrictEqual(
        document.pushTokens.map((t) => ({ token: t.token, expireAt: iso(t.expireAt) })),
        Customer.pushTokens(state).map((t) => ({ token: t.token, expireAt: iso(t.expireAt) })),
      )
    }))

  it("lists the saved cards the aggregate has, each once with its latest details", () =>
    property((state, document) => {
      assert.deepStrictEqual(document.cardPaymentMethods, Customer.cardPaymentMethods(state))
    }))

  it("says whose customer it is and the phone number the aggregate registered", () =>
    property((state, document) => {
      assert.strictEqual(document.registrationId, state.registrationId)
      assert.strictEqual(document.partnerId, state.partnerId)
      assert.strictEqual(document.phoneNumber, state.phoneNumber)
    }))
})
