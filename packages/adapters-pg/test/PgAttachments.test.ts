/**
 * Payment attachments on PGlite and PostgreSQL (fresh schema): a registered
 * attachment is Pending and registered once; a claimed download is leased to
 * one worker; stored bytes come back byte for byte with their sha256 and
 * content type, to the request's partner only; a failure is retried later or
 * ends Failed with its reason; discovery registers the read model's requests
 * that name an attachment URL.
 */
import { assert, describe, it } from "@effect/vitest"
import { Attachments } from "@partnerpay/domain"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Migrations from "../src/Migrations.ts"
import * as PgAttachments from "../src/PgAttachments.ts"
import { databases } from "./readSideSupport.ts"

const partner = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b"
const otherPartner = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
const request = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e01"
const otherRequest = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e02"
const now = Date.parse("2026-11-23T12:00:00Z")
const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x00, 0xff, 0x0a])

for (const database of databases) {
  const layer = () =>
    PgAttachments.layer.pipe(Layer.provideMerge(Migrations.layer), Layer.provideMerge(database.layer()))

  describe(`payment attachments (${database.name})`, () => {
    it("keeps a downloaded document byte for byte, for the request's partner only", { timeout: 60_000 }, () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* Attachments.PaymentAttachments
          const registration = {
            partnerId: partner,
            paymentRequestId: request,
            url: "https://docs.example.com/invoices/INV-7.pdf",
            name: "INV-7.pdf",
          }
          yield* store.register(registration)
          yield* store.register({ ...registration, url: "https://docs.example.com/other.png" })
          const pending = yield* store.list(partner, request)
          assert.strictEqual(pending.length, 1)
          assert.deepStrictEqual(pending[0], {
            id: pending[0]?.id ?? "",
            name: "INV-7.pdf",
            contentType: "application/pdf",
            status: "Pending",
          })
          const claimed = yield* store.claimDue(now, 10, 60_000)
          assert.deepStrictEqual(
            claimed.map((due) => [due.paymentRequestId, due.url, due.attempts]),
            [[request, registration.url, 0]],
          )
          // Leased: a second worker finds nothing due until the lease ends.
          assert.deepStrictEqual(yield* store.claimDue(now + 1, 10, 60_000), [])
          const id = claimed[0]?.id ?? ""
          yield* store.recordStored(id, { contentType: "application/pdf", bytes, sha256: "ab".repeat(32) })
          const [stored] = yield* store.list(partner, request)
          assert.deepStrictEqual(stored, {
            id,
            name: "INV-7.pdf",
            contentType: "application/pdf",
            sizeBytes: bytes.byteLength,
            sha256: "ab".repeat(32),
            status: "Stored",
          })
          const content = yield* store.content(partner, request, id)
          assert.strictEqual(content?.contentType, "application/pdf")
          assert.deepStrictEqual(Array.from(content?.bytes ?? []), Array.from(bytes))
          assert.isUndefined(yield* store.content(otherPartner, request, id))
          assert.isUndefined(yield* store.content(partner, otherRequest, id))
          assert.isUndefined(yield* store.content(partner, request, "not-an-id"))
          assert.deepStrictEqual(yield* store.list(otherPartner, request), [])
          assert.deepStrictEqual(yield* store.claimDue(now + 10 * 60_000, 10, 60_000), [])
        }).pipe(Effect.provide(layer())),
      ),
    )

    it(
      "retries a failed download at the scheduled time, then records Failed with the reason",
      { timeout: 60_000 },
      () =>
        Effect.runPromise(
          Effect.gen(function* () {
            const store = yield* Attachments.PaymentAttachments
            yield* store.register({
              partnerId: partner,
              paymentRequestId: request,
              url: "https://x.example.com/a.pdf",
              name: "a.pdf",
            })
            const [due] = yield* store.claimDue(now, 10, 60_000)
            const id = due?.id ?? ""
            yield* store.recordFailure(id, {
              reason: "connection refused",
              attempts: 1,
              outcome: { _tag: "Retry", nextAttemptAtMillis: now + 30_000 },
            })
            assert.deepStrictEqual(yield* store.claimDue(now + 29_000, 10, 60_000), [])
            const [again] = yield* store.claimDue(now + 30_000, 10, 60_000)
            assert.strictEqual(again?.attempts, 1)
            yield* store.recordFailure(id, {
              reason: "content type text/html is not accepted",
              attempts: 2,
              outcome: { _tag: "Failed" },
            })
            const [failed] = yield* store.list(partner, request)
            assert.strictEqual(failed?.status, "Failed")
            assert.strictEqual(failed?.failureReason, "content type text/html is not accepted")
            assert.deepStrictEqual(yield* store.claimDue(now + 86_400_000, 10, 60_000), [])
            assert.isUndefined(yield* store.content(partner, request, id))
          }).pipe(Effect.provide(layer())),
        ),
    )

    it(
      "records an outcome's ATTACHMENT_STATUS_CHANGED webhook in the same write, once, and none for a retry",
      { timeout: 60_000 },
      () =>
        Effect.runPromise(
          Effect.gen(function* () {
            const store = yield* Attachments.PaymentAttachments
            const sql = yield* SqlClient
            const paymentRequestId = "9d2e3f40-5b6c-4d7e-8f90-1a2b3c4d5e03"
            yield* store.register({
              partnerId: partner,
              paymentRequestId,
              url: "https://x.example.com/w.pdf",
              name: "w.pdf",
            })
            const due = (yield* store.claimDue(now, 10, 60_000)).find((d) => d.paymentRequestId === paymentRequestId)!
            const at = DateTime.makeUnsafe(now)
            const outboxRows = () =>
              sql<{ id: string; event_type: string; data: { Status: string; SizeBytes?: number } }>`
                SELECT id, event_type, data FROM outbox WHERE data ->> 'AttachmentId' = ${due.id}`
            // A retry is no outcome: no webhook.
            yield* store.recordFailure(
              due.id,
              { reason: "timeout", attempts: 1, outcome: { _tag: "Retry", nextAttemptAtMillis: now + 1 } },
              undefined,
            )
            assert.deepStrictEqual(yield* outboxRows(), [])
            const stored = Attachments.statusNotification(
              due,
              { status: "Stored", contentType: "application/pdf", sizeBytes: bytes.byteLength },
              at,
            )
            yield* store.recordStored(
              due.id,
              { contentType: "application/pdf", bytes, sha256: "cd".repeat(32) },
              stored,
            )
            const rows = yield* outboxRows()
            assert.deepStrictEqual(
              rows.map((row) => [row.event_type, row.data.Status, row.data.SizeBytes]),
              [["ATTACHMENT_STATUS_CHANGED", "Stored", bytes.byteLength]],
            )
            // Recorded again (a second worker, a retry after a crash): the status does not change, nothing is sent twice.
            yield* store.recordStored(
              due.id,
              { contentType: "application/pdf", bytes, sha256: "cd".repeat(32) },
              stored,
            )
            yield* store.recordFailure(
              due.id,
              { reason: "late", attempts: 2, outcome: { _tag: "Failed" } },
              Attachments.statusNotification(due, { status: "Failed", reason: "late" }, at),
            )
            assert.lengthOf(yield* outboxRows(), 1)
          }).pipe(Effect.provide(layer())),
        ),
    )

    it("registers the read model's requests that name an attachment URL, once", { timeout: 60_000 }, () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* Attachments.PaymentAttachments
          const sql = yield* SqlClient
          const doc = (id: string, url?: string) =>
            JSON.stringify({ paymentRequestId: id, ...(url === undefined ? {} : { attachmentUrl: url }) })
          yield* sql`INSERT INTO read_models (collection, id, partner_id, sort_key, data) VALUES
            ('payment_requests', ${request}, ${partner}, '1', ${doc(request, "https://d.example.com/files/bill%201.pdf")}::jsonb),
            ('payment_requests', ${otherRequest}, ${partner}, '2', ${doc(otherRequest)}::jsonb)`
          assert.strictEqual(yield* store.discover(100), 1)
          assert.strictEqual(yield* store.discover(100), 0)
          const [found] = yield* store.list(partner, request)
          assert.strictEqual(found?.name, "bill 1.pdf")
          assert.strictEqual(found?.status, "Pending")
          assert.deepStrictEqual(yield* store.list(partner, otherRequest), [])
        }).pipe(Effect.provide(layer())),
      ),
    )
  })
}
