/**
 * `client.paginate` against a fake fetch: page after page with `startingAfter` = the previous
 * page's last id (the id field of each list), until `hasMore` is false; the caller's query on
 * every page; breaking out stops the requests; a refused page throws the PartnerpayError.
 */
import { assert, describe, it } from "@effect/vitest"
import { PartnerpayError } from "../src/index.ts"
import { fakeServer, json, problem, type Sent, testClient } from "./fakeFetch.ts"

/** A list of `total` items answered `limit` at a time (newest first), like the service's. */
const pagedList =
  (ids: ReadonlyArray<string>, idField: string, listField = "data") =>
  (request: Sent) => {
    const query = new URL(request.path, "https://x").searchParams
    const limit = Number(query.get("limit") ?? "20")
    const after = query.get("startingAfter")
    const start = after === null ? 0 : ids.indexOf(after) + 1
    const page = ids.slice(start, start + limit)
    return json(200, { [listField]: page.map((id) => ({ [idField]: id })), hasMore: start + limit < ids.length })
  }

const ids = ["p5", "p4", "p3", "p2", "p1"]

describe("paginate", () => {
  it("/Payment/History: every item, pages chained by paymentRequestId, the query on every page", async () => {
    const server = fakeServer({ "GET /Payment/History": pagedList(ids, "paymentRequestId") })
    const { client } = testClient(server)
    const seen: Array<string> = []
    for await (const request of client.paginate("/Payment/History", { companyId: "c-1", limit: 2 })) {
      seen.push(request.paymentRequestId)
    }
    assert.deepStrictEqual(seen, ids)
    assert.deepStrictEqual(
      server.calls().map((request) => request.path),
      [
        "/Payment/History?companyId=c-1&limit=2",
        "/Payment/History?companyId=c-1&limit=2&startingAfter=p4",
        "/Payment/History?companyId=c-1&limit=2&startingAfter=p2",
      ],
    )
  })

  it("/Transaction/Report pages its items by externalTransferId", async () => {
    const server = fakeServer({ "GET /Transaction/Report": pagedList(ids, "externalTransferId", "items") })
    const { client } = testClient(server)
    const seen: Array<string> = []
    for await (const item of client.paginate("/Transaction/Report", {
      from: "2026-01-01",
      to: "2026-01-31",
      limit: 3,
    })) {
      seen.push(item.externalTransferId)
    }
    assert.deepStrictEqual(seen, ids)
    assert.strictEqual(
      server.calls()[1]!.path,
      "/Transaction/Report?from=2026-01-01&to=2026-01-31&limit=3&startingAfter=p3",
    )
  })

  it("other lists page by id (/Events), or by the cursor given", async () => {
    const server = fakeServer({ "GET /Events": pagedList(ids, "id"), "GET /Webhooks/Deliveries": pagedList(ids, "id") })
    const { client } = testClient(server)
    const events: Array<string> = []
    for await (const event of client.paginate("/Events", { limit: 4 })) events.push(event.id)
    assert.deepStrictEqual(events, ids)
    const cursors: Array<string> = []
    const byId = { cursor: (delivery: { id: string }) => `${delivery.id}` }
    for await (const delivery of client.paginate("/Webhooks/Deliveries", { limit: 2 }, byId)) cursors.push(delivery.id)
    assert.deepStrictEqual(cursors, ids)
    assert.strictEqual(server.calls().at(-1)!.path, "/Webhooks/Deliveries?limit=2&startingAfter=p2")
  })

  it("an empty list is one request and no item", async () => {
    const server = fakeServer({ "GET /Payment/History": () => json(200, { data: [], hasMore: false }) })
    const { client } = testClient(server)
    const seen: Array<unknown> = []
    for await (const request of client.paginate("/Payment/History")) seen.push(request)
    assert.deepStrictEqual(seen, [])
    assert.strictEqual(server.calls().length, 1)
  })

  it("breaking out of the loop requests no further page", async () => {
    const server = fakeServer({ "GET /Payment/History": pagedList(ids, "paymentRequestId") })
    const { client } = testClient(server)
    for await (const request of client.paginate("/Payment/History", { limit: 2 })) {
      if (request.paymentRequestId === "p4") break
    }
    assert.strictEqual(server.calls().length, 1)
  })

  it("a refused page throws the PartnerpayError", async () => {
    const server = fakeServer({
      "GET /Payment/History": [pagedList(ids, "paymentRequestId"), () => problem(400, "BAD_REQUEST")],
    })
    const { client } = testClient(server)
    const seen: Array<string> = []
    const error = await (async () => {
      for await (const request of client.paginate("/Payment/History", { limit: 2 })) seen.push(request.paymentRequestId)
    })().catch((e) => e)
    assert.instanceOf(error, PartnerpayError)
    assert.strictEqual(error.code, "BAD_REQUEST")
    assert.deepStrictEqual(seen, ["p5", "p4"])
  })

  it("pages are retried like any request (503, then the page)", async () => {
    const server = fakeServer({
      "GET /Payment/History": [() => problem(503, "SERVICE_UNAVAILABLE"), pagedList(ids, "paymentRequestId")],
    })
    const { client } = testClient(server)
    const seen: Array<string> = []
    for await (const request of client.paginate("/Payment/History", { limit: 5 })) seen.push(request.paymentRequestId)
    assert.deepStrictEqual(seen, ids)
  })
})
