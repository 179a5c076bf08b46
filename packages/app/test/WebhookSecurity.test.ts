/**
 * What the webhook dispatcher refuses to do (issue 11 section 4), against
 * local receivers on ephemeral ports (embedded database):
 * - with the production policy, a webhook URL that is or resolves to a
 *   loopback address is refused at delivery (after DNS resolution), even
 *   when it was stored without the set-time check: nothing reaches the
 *   receiver, the attempt fails with "address refused" and is retried;
 * - at most 64 KiB of a receiver's answer is read: a 2xx whose body never
 *   ends is a delivery once 64 KiB have arrived (while a short body that
 *   never ends is a timeout);
 * - which addresses count as public.
 */
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Migrations, PgDatabase, PgOutbox, PgPartnerCredentials, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { Outbox } from "@partnerpay/domain"
import { Effect, Layer, Redacted } from "effect"
import * as WebhookDispatcher from "../src/workers/WebhookDispatcher.ts"
import { isPublicAddress, pinnedLookup, WebhookTargetPolicy } from "../src/workers/WebhookTarget.ts"

/** A receiver on 127.0.0.1 answering with `answer`; counts the requests it got. */
const receiver = (answer: (response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly port: number; readonly requests: { count: number }; readonly close: () => void }>(
      (resume) => {
        const requests = { count: 0 }
        const server = createServer((request, response) => {
          request.resume()
          request.on("end", () => {
            requests.count++
            answer(response)
          })
        })
        server.listen(0, "127.0.0.1", () =>
          resume(
            Effect.succeed({
              port: (server.address() as AddressInfo).port,
              requests,
              close: () => {
                server.closeAllConnections()
                server.close()
              },
            }),
          ),
        )
      },
    ),
    (server) => Effect.sync(server.close),
  )

const notification = (partnerId: string): Outbox.Webhook => ({
  id: crypto.randomUUID(),
  partnerId,
  eventType: "COMPANY_VERIFICATION_STATUS_CHANGED",
  data: { Name: "Café" },
  position: 1,
})

const base = Layer.mergeAll(PgOutbox.layer, PgPartnerCredentials.layer({ N: 2 ** 10, r: 8, p: 1 })).pipe(
  Layer.provideMerge(
    PgPersonalDataVault.layer(PgPersonalDataVault.parseMasterKey(PgPersonalDataVault.newMasterKeyText())),
  ),
  Layer.provideMerge(Migrations.layer),
  Layer.provideMerge(PgDatabase.layerPglite()),
)

/** Waits (at most 20 s) until `done` holds. */
const until = <E, R>(done: () => Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400 && !(yield* done()); i++) yield* Effect.sleep(50)
    assert.isTrue(yield* done(), "condition not met within 20 s")
  })

/** A partner whose webhook is `url`, with one notification recorded; its id. */
const partnerWith = (url: string) =>
  Effect.gen(function* () {
    const partners = yield* PgPartnerCredentials.Partners
    const { partnerId } = yield* partners.create({ name: "P" })
    // Stored directly: the set-time check is bypassed (a URL stored earlier, or a DNS answer that changed).
    yield* partners.setWebhook(partnerId, { url, signingSecret: Redacted.make("whsec_test") })
    const row = notification(partnerId)
    yield* (yield* Outbox.Outbox).record([row])
    return row.id
  })

const entry = (id: string) =>
  Effect.gen(function* () {
    const rows = yield* (yield* PgOutbox.OutboxDispatch).list({ limit: 100 })
    return rows.find((row) => row.id === id)!
  })

describe("which addresses are public", () => {
  it("refuses loopback, private, link-local, metadata and IPv4-in-IPv6 addresses; accepts public ones", () => {
    for (const address of [
      "127.0.0.1",
      "127.1.2.3",
      "0.0.0.0",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.100.100.200",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00:ec2::254",
      "fc00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "64:ff9b::10.0.0.1",
      "2002:7f00:1::",
      "not an address",
    ]) {
      assert.isFalse(isPublicAddress(address), address)
    }
    for (const address of ["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      assert.isTrue(isPublicAddress(address), address)
    }
  })

  it("the delivery lookup refuses a name resolving to loopback", async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((done) =>
      pinnedLookup("localhost", { family: 0 }, (e) => done(e)),
    )
    assert.strictEqual(error?.code, "EADDRREFUSED")
  })
})

describe("the webhook dispatcher", () => {
  it.live(
    "with the production policy, refuses loopback targets at delivery, by literal and after DNS resolution",
    () =>
      Effect.gen(function* () {
        const target = yield* receiver((response) => response.writeHead(200).end())
        const literal = yield* partnerWith(`http://127.0.0.1:${target.port}/hooks`)
        const named = yield* partnerWith(`http://localhost:${target.port}/hooks`)
        yield* Layer.build(WebhookDispatcher.layer({ live: true, workerId: "prod", pollMillis: 20 })).pipe(
          Effect.provideService(WebhookTargetPolicy, { refusePrivateAddresses: true }),
        )
        yield* until(() =>
          Effect.map(Effect.all([entry(literal), entry(named)]), (rows) => rows.every((row) => row.lastError !== null)),
        )
        assert.strictEqual(target.requests.count, 0)
        const [byLiteral, byName] = yield* Effect.all([entry(literal), entry(named)])
        // One reason whatever the address: nothing tells what a name resolved to, nor whether a port is open.
        assert.strictEqual(byLiteral.lastError, "address refused: not a public internet address")
        assert.strictEqual(byName.lastError, "address refused: not a public internet address")
        for (const row of [byLiteral, byName]) {
          assert.strictEqual(row.status, "pending")
          assert.isNull(row.lastResponseStatus)
        }
      }).pipe(Effect.scoped, Effect.provide(base)),
    30_000,
  )

  it.live(
    "reads at most 64 KiB of an answer: a 2xx whose body never ends is delivered, a short one times out",
    () =>
      Effect.gen(function* () {
        const endless = (bytes: number) => (response: ServerResponse) => {
          response.writeHead(200, { "content-type": "text/plain" })
          response.write(Buffer.alloc(bytes, 97))
          // ... and the body never ends.
        }
        const large = yield* receiver(endless(WebhookDispatcher.maxAnswerBytes + 1))
        const small = yield* receiver(endless(1024))
        const bigAnswer = yield* partnerWith(`http://127.0.0.1:${large.port}/hooks`)
        const smallAnswer = yield* partnerWith(`http://127.0.0.1:${small.port}/hooks`)
        yield* Layer.build(
          WebhookDispatcher.layer({ live: false, workerId: "limit", pollMillis: 20, timeoutMillis: 1500 }),
        )
        yield* until(() =>
          Effect.map(
            Effect.all([entry(bigAnswer), entry(smallAnswer)]),
            ([big, short]) => big.status === "delivered" && short.lastError !== null,
          ),
        )
        const [big, short] = yield* Effect.all([entry(bigAnswer), entry(smallAnswer)])
        assert.strictEqual(big.lastResponseStatus, 200)
        assert.strictEqual(big.attempts, 1)
        assert.strictEqual(short.lastError, "no answer within 1500 ms")
        assert.strictEqual(short.status, "pending")
      }).pipe(Effect.scoped, Effect.provide(base)),
    30_000,
  )
})
