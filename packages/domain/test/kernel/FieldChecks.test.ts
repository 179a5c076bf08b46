/**
 * The field checks the PaymentRequest, Transfer and Company deciders share: each names the bad field and says
 * what is expected, and one command reports every bad field at once. Limits are tested on both sides.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as FieldChecks from "../../src/kernel/FieldChecks.ts"
import * as Money from "../../src/kernel/Money.ts"

/** The issues a check reports for one value (none: the value is accepted). */
const issuesOf = (check: (issues: FieldChecks.Issues) => void): FieldChecks.Issues => {
  const issues: FieldChecks.Issues = []
  check(issues)
  return issues
}

const longUrl = (scheme: string, host: string, length: number): string => {
  const start = `${scheme}://${host}/`
  return start + "a".repeat(length - start.length)
}

describe("required text", () => {
  const check = (value: string) => issuesOf((issues) => FieldChecks.requiredText(issues, "description", value, 10))

  it("empty or blank text is refused as empty", () => {
    assert.deepStrictEqual(check(""), [{ field: "description", message: "must not be empty" }])
    assert.deepStrictEqual(check("   "), [{ field: "description", message: "must not be empty" }])
  })

  it("text of the longest length allowed is accepted, one character more is refused with the limit", () => {
    assert.deepStrictEqual(check("a".repeat(10)), [])
    assert.deepStrictEqual(check("a".repeat(11)), [{ field: "description", message: "must be at most 10 characters" }])
  })
})

describe("optional text", () => {
  const check = (value: string) => issuesOf((issues) => FieldChecks.optionalText(issues, "note", value, 10))

  it("empty text is accepted", () => {
    assert.deepStrictEqual(check(""), [])
  })

  it("text of the longest length allowed is accepted, one character more is refused with the limit", () => {
    assert.deepStrictEqual(check("a".repeat(10)), [])
    assert.deepStrictEqual(check("a".repeat(11)), [{ field: "note", message: "must be at most 10 characters" }])
  })
})

describe("a positive amount", () => {
  const check = (minorUnits: number) =>
    issuesOf((issues) => FieldChecks.positiveMoney(issues, "amount", Money.make(minorUnits, "USD")))
  const outOfBounds = [{ field: "amount", message: "must be a whole number of minor units within bounds" }]

  it("one minor unit and the largest amount are accepted", () => {
    assert.deepStrictEqual(check(1), [])
    assert.deepStrictEqual(check(Money.maxMinorUnits), [])
  })

  it("zero is refused as not greater than zero", () => {
    assert.deepStrictEqual(check(0), [{ field: "amount", message: "must be greater than zero" }])
  })

  it("a fraction of a minor unit, a negative amount or one above the largest is refused as out of bounds", () => {
    assert.deepStrictEqual(check(1.5), outOfBounds)
    assert.deepStrictEqual(check(-1), outOfBounds)
    assert.deepStrictEqual(check(Money.maxMinorUnits + 1), outOfBounds)
  })
})

describe("an amount in the currency of another", () => {
  const check = (money: Money.Money) =>
    issuesOf((issues) => FieldChecks.sameCurrency(issues, "fee", money, Money.make(100, "USD")))

  it("the same currency is accepted, another is refused naming the currency expected", () => {
    assert.deepStrictEqual(check(Money.make(5, "USD")), [])
    assert.deepStrictEqual(check(Money.make(5, "EUR")), [
      { field: "fee", message: "must be in USD, the currency of the amount" },
    ])
  })
})

describe("a masked account number", () => {
  const check = (value: string) => issuesOf((issues) => FieldChecks.maskedAccountNumber(issues, "account", value))

  it("four asterisks then one to four digits are accepted", () => {
    assert.deepStrictEqual(check("****6789"), [])
    assert.deepStrictEqual(check("****9"), [])
  })

  it("a full account number is refused, saying never to send it", () => {
    assert.deepStrictEqual(check("123456789"), [
      { field: "account", message: 'must be a masked account number such as "****6789" (never the full number)' },
    ])
  })
})

describe("an https URL", () => {
  const check = (value: string) => issuesOf((issues) => FieldChecks.httpsUrl(issues, "attachmentUrl", value))

  it(`an https URL of ${FieldChecks.maxUrlLength} characters is accepted, one character more is refused with the limit`, () => {
    assert.deepStrictEqual(check(longUrl("https", "example.com", FieldChecks.maxUrlLength)), [])
    assert.deepStrictEqual(check(longUrl("https", "example.com", FieldChecks.maxUrlLength + 1)), [
      { field: "attachmentUrl", message: `must be at most ${FieldChecks.maxUrlLength} characters` },
    ])
  })

  it("an http URL is refused, saying an absolute https URL is expected", () => {
    assert.deepStrictEqual(check("http://example.com/file.pdf"), [
      { field: "attachmentUrl", message: "must be an absolute https URL such as https://example.com/file.pdf" },
    ])
  })
})

describe("an attachment URL", () => {
  const check = (value: string, sandbox: boolean) =>
    issuesOf((issues) => FieldChecks.attachmentUrl(issues, "attachmentUrl", value, sandbox))

  it("in production, only an https URL is accepted", () => {
    assert.deepStrictEqual(check("https://example.com/file.pdf", false), [])
    assert.deepStrictEqual(check("http://localhost:8080/file.pdf", false), [
      { field: "attachmentUrl", message: "must be an absolute https URL such as https://example.com/file.pdf" },
    ])
  })

  it("in the sandbox, an http URL of a local server is accepted too", () => {
    assert.deepStrictEqual(check("http://localhost:8080/file.pdf", true), [])
    assert.deepStrictEqual(check("https://example.com/file.pdf", true), [])
  })

  it("in the sandbox, another scheme is refused, saying an http or https URL is expected", () => {
    assert.deepStrictEqual(check("ftp://localhost/file.pdf", true), [
      {
        field: "attachmentUrl",
        message: "must be an absolute http or https URL such as http://localhost:8080/file.pdf",
      },
    ])
  })

  it(`in the sandbox, a URL of ${FieldChecks.maxUrlLength} characters is accepted, one character more is refused with the limit`, () => {
    assert.deepStrictEqual(check(longUrl("http", "localhost", FieldChecks.maxUrlLength), true), [])
    assert.deepStrictEqual(check(longUrl("http", "localhost", FieldChecks.maxUrlLength + 1), true), [
      { field: "attachmentUrl", message: `must be at most ${FieldChecks.maxUrlLength} characters` },
    ])
  })
})

describe("a return code", () => {
  const check = (value: string) => issuesOf((issues) => FieldChecks.returnCode(issues, "returnCode", value))

  it("an ACH code such as R01 is accepted; lower case is refused, saying what a code looks like", () => {
    assert.deepStrictEqual(check("R01"), [])
    assert.deepStrictEqual(check("r01"), [
      { field: "returnCode", message: 'must be 2 to 8 upper-case letters or digits, such as "R01"' },
    ])
  })
})

describe("the refusal of a command", () => {
  it("is none when no field is bad", () => {
    assert.strictEqual(FieldChecks.refusal([]), undefined)
  })

  it("lists every bad field at once", () => {
    const issues = [
      { field: "amount", message: "must be greater than zero" },
      { field: "description", message: "must not be empty" },
    ]
    const refusal = FieldChecks.refusal(issues)
    assert.isTrue(refusal !== undefined && Result.isFailure(refusal))
    if (refusal === undefined || Result.isSuccess(refusal)) return
    assert.strictEqual(refusal.failure._tag, "ValidationFailed")
    assert.deepStrictEqual(refusal.failure.issues, issues)
  })
})
