/** A connection to a customer's bank through the bank-link provider (a Plaid item), and its notifications. */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import * as BankLinkItem from "../../src/customers/BankLinkItem.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import { DeciderSpecification } from "../../src/testing/index.ts"

const spec = DeciderSpecification.forAggregate(BankLinkItem.aggregate)

const itemId = "wz666MBjYWTp2PDzzggYhM6oWWmBb"
const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const registrationId = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
const otherRegistrationId = "7e57ab1e-0000-4000-8000-00000000beef" as RegistrationId
const otherPartnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6c" as PartnerId
const checking = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e01" as BankAccountId
const savings = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e02" as BankAccountId
const at = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const item = { itemId, partnerId, registrationId }
const accounts = [
  { providerAccountId: "acc-checking", bankAccountId: checking },
  { providerAccountId: "acc-savings", bankAccountId: savings },
]

const connect = (registration = registrationId): BankLinkItem.ConnectItem => ({
  _tag: "ConnectItem",
  ...item,
  registrationId: registration,
  accounts,
  at,
})
const connected = BankLinkItem.BankLinkItemConnected.make({ ...item, accounts, at })
const repair: BankLinkItem.RequestRepair = { _tag: "RequestRepair", reason: "ITEM_LOGIN_REQUIRED", at }
const repairRequested = BankLinkItem.BankLinkRepairRequested.make({
  ...item,
  bankAccountIds: [checking, savings],
  reason: "ITEM_LOGIN_REQUIRED",
  at,
})
const revokeAll: BankLinkItem.RevokeAccess = { _tag: "RevokeAccess", at }
const revokeSavings: BankLinkItem.RevokeAccess = { _tag: "RevokeAccess", providerAccountId: "acc-savings", at }
const revoked = (...bankAccountIds: Array<BankAccountId>) =>
  BankLinkItem.BankLinkAccountsRevoked.make({ ...item, bankAccountIds, at })

describe("an item the provider never connected here", () => {
  it("linking accounts through it records which accounts it carries, and whose they are", () => {
    spec.given([]).when(connect()).then([connected])
  })
  it("a notification about it is refused as unknown (it changes nothing)", () => {
    spec.given([]).when(repair).thenFails({ _tag: "NotFound", entity: "BankLinkItem" })
  })
  it("a revocation of it is refused as unknown too", () => {
    spec.given([]).when(revokeAll).thenFails({ _tag: "NotFound", entity: "BankLinkItem" })
  })
})

describe("a connected item", () => {
  it("the bank asking the customer to log in again records one repair request", () => {
    spec.given([connected]).when(repair).then([repairRequested])
  })
  it("a repair request names only the accounts not revoked", () => {
    spec
      .given([connected, revoked(savings)])
      .when(repair)
      .then([
        BankLinkItem.BankLinkRepairRequested.make({
          ...item,
          bankAccountIds: [checking],
          reason: "ITEM_LOGIN_REQUIRED",
          at,
        }),
      ])
  })
  it("a repeated repair request records nothing", () => {
    spec.given([connected, repairRequested]).when(repair).thenNothingHappens()
  })
  it("linking through it again ends the repair: the next request is recorded again", () => {
    spec.given([connected, repairRequested, connected]).when(repair).then([repairRequested])
  })
  it("revoking the item revokes every account it carries", () => {
    spec
      .given([connected])
      .when(revokeAll)
      .then([revoked(checking, savings)])
  })
  it("revoking one account revokes that account only", () => {
    spec
      .given([connected])
      .when(revokeSavings)
      .then([revoked(savings)])
  })
  it("a repeated revocation records nothing", () => {
    spec
      .given([connected, revoked(checking, savings)])
      .when(revokeAll)
      .thenNothingHappens()
  })
  it("revoking an account it does not carry records nothing", () => {
    spec.given([connected]).when({ _tag: "RevokeAccess", providerAccountId: "acc-unknown", at }).thenNothingHappens()
  })
  it("the same customer linking through it again is recorded (a repair's new login)", () => {
    spec.given([connected]).when(connect()).then([connected])
  })
  it("an account linked again is no longer revoked: it can be revoked again", () => {
    spec
      .given([connected, revoked(savings), connected])
      .when(revokeSavings)
      .then([revoked(savings)])
  })
  it("an account linked earlier and not named by a new link stays carried by the item", () => {
    const checkingOnly = BankLinkItem.BankLinkItemConnected.make({ ...item, accounts: [accounts[0]!], at })
    spec
      .given([connected, checkingOnly])
      .when(revokeAll)
      .then([revoked(savings, checking)])
  })
  it("an account revoked and not named by a new link stays revoked", () => {
    const checkingOnly = BankLinkItem.BankLinkItemConnected.make({ ...item, accounts: [accounts[0]!], at })
    spec
      .given([connected, revoked(savings), checkingOnly])
      .when(revokeAll)
      .then([revoked(checking)])
  })
  it("a customer of another partner, even under the same registration id, cannot take it over", () => {
    spec
      .given([connected])
      .when({ ...connect(), partnerId: otherPartnerId })
      .thenFails({ _tag: "RuleViolated", code: "ITEM_OF_ANOTHER_CUSTOMER" })
  })
  it("another customer cannot take it over", () => {
    spec.given([connected]).when(connect(otherRegistrationId)).thenFails({
      _tag: "RuleViolated",
      code: "ITEM_OF_ANOTHER_CUSTOMER",
      reason: "the item belongs to another customer",
    })
  })
})

describe("an event that does not fit the state leaves it unchanged", () => {
  it("a repair request or a revocation of an item never connected", () => {
    spec.given([]).ignores(repairRequested)
    spec.given([]).ignores(revoked(checking))
  })
})

describe("the item's stream", () => {
  it("its events are stored at version 1", () => {
    for (const event of [connected, repairRequested, revoked(checking)])
      assert.strictEqual(BankLinkItem.aggregate.eventVersion(event._tag), 1)
  })
})
