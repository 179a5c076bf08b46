/**
 * The resource methods (resources.ts): each sends its operation's method, path and body, answers the
 * data, and throws a PartnerpayError carrying the problem when the service refuses.
 */
import { assert, describe, it } from "@effect/vitest"
import { PartnerpayError } from "../src/index.ts"
import { fakeServer, json, problem, testClient } from "./fakeFetch.ts"

const planId = "3a7c9e1f-5b2d-4e8a-8f6c-0d2e4a6c8e1b"
const requestId = "8c2f4e6a-1b3d-4f5a-9c7e-2d4f6a8b0c1e"

describe("the resource methods", () => {
  it("send their operation and answer its data", async () => {
    const server = fakeServer({
      [`PUT /PaymentPlan/${planId}/Metadata`]: (request) => json(200, JSON.parse(request.body)),
      [`GET /Payment/${requestId}`]: () => json(200, { paymentRequestId: requestId, status: "Pending" }),
      [`PUT /PaymentPlan/${planId}/Pause`]: () => json(200, { paymentPlanId: planId, status: "Paused" }),
      "GET /company/status": (request) =>
        json(200, { CompanyId: new URL(`http://x${request.path}`).searchParams.get("companyId") }),
    })
    const { client } = testClient(server)
    assert.deepStrictEqual(await client.paymentPlans.setMetadata(planId, { ref: "sub_1" }), {
      metadata: { ref: "sub_1" },
    })
    assert.strictEqual((await client.paymentRequests.get(requestId)).status, "Pending")
    assert.strictEqual((await client.paymentPlans.pause(planId)).status, "Paused")
    assert.deepStrictEqual(await client.companies.status("c-1"), { CompanyId: "c-1" } as never)
    assert.deepStrictEqual(
      server.calls().map((request) => `${request.method} ${request.path}`),
      [
        `PUT /PaymentPlan/${planId}/Metadata`,
        `GET /Payment/${requestId}`,
        `PUT /PaymentPlan/${planId}/Pause`,
        "GET /company/status?companyId=c-1",
      ],
    )
  })

  it("throw a PartnerpayError carrying the problem when refused", async () => {
    const server = fakeServer({ [`PUT /Payment/${requestId}/Cancel`]: () => problem(409, "ILLEGAL_TRANSITION") })
    const { client } = testClient(server)
    try {
      await client.paymentRequests.cancel(requestId)
      assert.fail("expected a PartnerpayError")
    } catch (error) {
      assert.instanceOf(error, PartnerpayError)
      assert.strictEqual((error as PartnerpayError).status, 409)
      assert.strictEqual((error as PartnerpayError).code, "ILLEGAL_TRANSITION")
    }
  })
})
