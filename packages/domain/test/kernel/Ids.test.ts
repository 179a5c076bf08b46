/**
 * Ids: every identifier is a lowercase, non-nil UUID, decoded from any case to lower case; a partner's
 * company reference id is its own free text.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import * as Ids from "../../src/kernel/Ids.ts"
import { PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(20261126)

const accepts = (schema: Schema.Codec<unknown, string>, input: unknown): boolean =>
  Schema.decodeUnknownResult(schema)(input)._tag === "Success"

const messageOf = (schema: Schema.Codec<unknown, string>, input: unknown): string => {
  const result = Schema.decodeUnknownResult(schema)(input)
  if (result._tag === "Success") return assert.fail(`accepted ${JSON.stringify(input)}`)
  return result.failure.message
}

const idSchemas = {
  PartnerId: Ids.PartnerId,
  CompanyId: Ids.CompanyId,
  LocationId: Ids.LocationId,
  PaymentRequestId: Ids.PaymentRequestId,
  ConsentId: Ids.ConsentId,
  PaymentPlanId: Ids.PaymentPlanId,
  DebitAuthId: Ids.DebitAuthId,
  TransferId: Ids.TransferId,
  RegistrationId: Ids.RegistrationId,
  BankAccountId: Ids.BankAccountId,
  MerchantId: Ids.MerchantId,
  CardPaymentId: Ids.CardPaymentId,
  VerificationId: Ids.VerificationId,
  EventId: Ids.EventId,
}

describe("an id", () => {
  for (const [name, schema] of Object.entries(idSchemas)) {
    it(`${name} decodes a UUID in any case to its lower case`, () => {
      const decode = Schema.decodeUnknownSync(schema)
      assert.strictEqual(decode("3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f"), "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f")
      assert.strictEqual(decode("3F1C2B1E-8A3D-4C2E-9F5A-2B7D1E0C4A6F"), "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f")
      assert.strictEqual(decode("3f1C2b1E-8a3D-4c2E-9F5a-2b7D1e0C4a6F"), "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f")
    })
  }

  it("accepts UUIDs of versions 1 to 8 (v4 random, v7 time-ordered)", () => {
    assert.isTrue(accepts(Ids.CompanyId, "0190b6a4-2d4e-7c3a-8f00-1a2b3c4d5e6f"))
    assert.isTrue(accepts(Ids.CompanyId, "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
  })

  it("refuses the nil UUID", () => {
    assert.isFalse(accepts(Ids.PartnerId, "00000000-0000-0000-0000-000000000000"))
  })

  it("refuses garbage, with a message that shows what an id looks like", () => {
    for (const garbage of [
      "",
      "not-a-uuid",
      "3f1c2b1e8a3d4c2e9f5a2b7d1e0c4a6f",
      "{3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f}",
      " 3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f",
      "3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f\n",
      "3f1c2b1e-8a3d-4c2e-cf5a-2b7d1e0c4a6f",
      "3f1c2b1e-8a3d-0c2e-9f5a-2b7d1e0c4a6f",
    ]) {
      assert.isFalse(accepts(Ids.ConsentId, garbage), JSON.stringify(garbage))
    }
    assert.isFalse(accepts(Ids.ConsentId, 42))
    assert.isFalse(accepts(Ids.ConsentId, null))
    assert.include(messageOf(Ids.ConsentId, "nope"), "must be a UUID such as")
    assert.include(messageOf(Ids.ConsentId, "00000000-0000-0000-0000-000000000000"), "must be a UUID such as")
  })

  it("names the same resource whatever the case a v4 UUID is written in", () => {
    fc.assert(
      fc.property(fc.uuid({ version: 4 }), (uuid) => {
        const decode = Schema.decodeUnknownSync(Ids.EventId)
        assert.strictEqual(decode(uuid), uuid)
        assert.strictEqual(decode(uuid.toUpperCase()), uuid)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("made in the domain, is lower case only (make never lowers a case)", () => {
    assert.throws(() => Ids.EventId.make("3F1C2B1E-8A3D-4C2E-9F5A-2B7D1E0C4A6F"))
  })
})

describe("a company reference id", () => {
  it("accepts the partner's own key, up to 64 characters", () => {
    assert.isTrue(accepts(Ids.CompanyReferenceId, "ACME-0042"))
    assert.isTrue(accepts(Ids.CompanyReferenceId, "x"))
    assert.isTrue(accepts(Ids.CompanyReferenceId, "a b c"))
    assert.isTrue(accepts(Ids.CompanyReferenceId, "é".repeat(Ids.companyReferenceIdMaxLength)))
  })

  it("refuses an empty one", () => {
    assert.include(messageOf(Ids.CompanyReferenceId, ""), "must not be empty")
  })

  it("refuses one that starts or ends with whitespace", () => {
    assert.include(messageOf(Ids.CompanyReferenceId, " ACME"), "must not start or end with whitespace")
    assert.include(messageOf(Ids.CompanyReferenceId, "ACME\t"), "must not start or end with whitespace")
  })

  it("refuses one holding a control character (NUL, tab, newline inside)", () => {
    for (const reference of ["a\u0000b", "a\tb", "a\nb", "a\u007fb"]) {
      assert.include(messageOf(Ids.CompanyReferenceId, reference), "must not contain control characters")
    }
  })

  it("refuses one longer than 64 characters", () => {
    assert.include(messageOf(Ids.CompanyReferenceId, "x".repeat(65)), "must be at most 64 characters")
  })

  it("refuses what is not a string", () => {
    assert.isFalse(accepts(Ids.CompanyReferenceId, 42))
  })
})
