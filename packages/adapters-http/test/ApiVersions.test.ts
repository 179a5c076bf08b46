/**
 * API versions: the versions are dated and ordered, and an answer of a changed operation is given back in
 * the shape of an older version (the returns change: `Returned` and the return code fields).
 */
import { assert, describe, it } from "@effect/vitest"
import * as ApiVersions from "../src/cross-cutting/ApiVersions.ts"

const returned = {
  paymentRequestId: "8c2f4e6a-1b3d-4f5a-9c7e-2d4f6a8b0c1e",
  status: "Returned",
  returnCode: "R10",
  returnReason: "Customer advises originator is not known and/or not authorized to debit the account",
  statusHistory: [{ status: "Pending" }, { status: "Accepted" }, { status: "Paid" }, { status: "Returned" }],
}

describe("the versions", () => {
  it("are dated YYYY-MM-DD, oldest first, the latest last", () => {
    const names = ApiVersions.versions.map((v) => v.version)
    for (const name of names) assert.match(name, /^\d{4}-\d{2}-\d{2}$/)
    assert.deepStrictEqual([...names].sort(), names)
    assert.strictEqual(new Set(names).size, names.length)
    assert.strictEqual(ApiVersions.latest, names[names.length - 1])
  })

  it("know only their own names", () => {
    assert.isTrue(ApiVersions.isKnown("2026-11-25"))
    assert.isFalse(ApiVersions.isKnown("2026-11-24"))
    assert.isFalse(ApiVersions.isKnown(""))
  })
})

describe("an answer given in an older version", () => {
  it("of a returned payment request before returns: Failed, without the return code fields, in its history too", () => {
    assert.deepStrictEqual(
      ApiVersions.downgrade("2026-11-25", "GET", `/Payment/${returned.paymentRequestId}`, returned),
      {
        paymentRequestId: returned.paymentRequestId,
        status: "Failed",
        statusHistory: [{ status: "Pending" }, { status: "Accepted" }, { status: "Paid" }, { status: "Failed" }],
      },
    )
  })

  it("of the payment history: each request downgraded", () => {
    const page = { data: [returned, { ...returned, status: "Paid", returnCode: undefined }], nextCursor: null }
    const old = ApiVersions.downgrade("2026-11-25", "GET", "/Payment/History", page) as {
      data: Array<{ status: string }>
    }
    assert.deepStrictEqual(
      old.data.map((d) => d.status),
      ["Failed", "Paid"],
    )
  })

  it("of a transfer whose company had no payout account: the placeholder mask it showed then", () => {
    const transfer = { transferId: "t-1", status: "Settled", recipientAccount: "pending payout account" }
    assert.deepStrictEqual(ApiVersions.downgrade("2026-11-25", "GET", "/Transaction/t-1", transfer), {
      ...transfer,
      recipientAccount: "****0000",
    })
    const masked = { ...transfer, recipientAccount: "****6789" }
    assert.deepStrictEqual(ApiVersions.downgrade("2026-11-25", "GET", "/Transaction/t-1", masked), masked)
    assert.deepStrictEqual(ApiVersions.downgrade(ApiVersions.latest, "GET", "/Transaction/t-1", transfer), transfer)
  })

  it("in the latest version, or of an operation no change concerns, is the answer as it is", () => {
    assert.strictEqual(ApiVersions.downgrade(ApiVersions.latest, "GET", "/Payment/x", returned), returned)
    assert.strictEqual(ApiVersions.downgrade("2026-11-25", "GET", "/Consent/x", returned), returned)
    assert.strictEqual(ApiVersions.downgrade("2026-11-25", "PUT", "/Payment/x", returned), returned)
    assert.isFalse(ApiVersions.concerns(ApiVersions.latest, "GET", "/Payment/x"))
    assert.isTrue(ApiVersions.concerns("2026-11-25", "GET", "/Transaction/x"))
    assert.isFalse(ApiVersions.concerns("2026-11-25", "GET", "/Transaction/x/y"))
  })
})

describe("a problem answer given in an older version", () => {
  const problem = { type: "/docs/problems/not-found", title: "Not Found", status: 404, code: "NOT_FOUND", detail: "d" }

  it("before 2026-11-28: the type is the identifier it was, under https://partnerpay.dev/problems/", () => {
    for (const version of ["2026-11-25", "2026-11-26"]) {
      assert.isTrue(ApiVersions.concernsProblems(version))
      assert.deepStrictEqual(ApiVersions.downgradeProblem(version, problem), {
        ...problem,
        type: "https://partnerpay.dev/problems/not-found",
      })
    }
  })

  it("before 2026-11-29: a business-rule code that was PascalCase is given as it was", () => {
    const refused = { ...problem, type: "/docs/problems/rule-violated", status: 422, code: "REFUND_EXCEEDS_TRANSFER" }
    assert.isTrue(ApiVersions.concernsProblems("2026-11-28"))
    assert.deepStrictEqual(ApiVersions.downgradeProblem("2026-11-28", refused), {
      ...refused,
      code: "RefundExceedsTransfer",
    })
    assert.deepStrictEqual(ApiVersions.downgradeProblem("2026-11-25", refused), {
      ...refused,
      type: "https://partnerpay.dev/problems/rule-violated",
      code: "RefundExceedsTransfer",
    })
  })

  it("before 2026-11-29: a code that was always UPPER_SNAKE_CASE is unchanged", () => {
    for (const code of ["NOT_FOUND", "CONSENT_NOT_ACCEPTED", "PAYER_LIMIT_EXCEEDED"])
      assert.deepStrictEqual(ApiVersions.downgradeProblem("2026-11-28", { ...problem, code }), { ...problem, code })
  })

  it("in the latest version: the problem as it is (its type the page's path)", () => {
    assert.isFalse(ApiVersions.concernsProblems(ApiVersions.latest))
    assert.strictEqual(ApiVersions.downgradeProblem(ApiVersions.latest, problem), problem)
  })

  it("leaves a body that is no problem of the service as it is", () => {
    assert.strictEqual(ApiVersions.downgradeProblem("2026-11-25", "text"), "text")
    const foreign = { type: "about:blank", status: 404 }
    assert.deepStrictEqual(ApiVersions.downgradeProblem("2026-11-25", foreign), foreign)
  })
})
