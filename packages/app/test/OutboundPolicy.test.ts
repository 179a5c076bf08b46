/**
 * Which addresses the service's outbound calls may reach (issue 34), in both
 * environments: a service that listens beyond loopback refuses, when a
 * webhook URL is set and when an attachment is downloaded, loopback, private,
 * link-local (metadata) and unique-local addresses and every IPv6 form that
 * embeds an IPv4 address, with one generic reason; a sandbox listening on
 * loopback only (local development) reaches them; production never does;
 * an operator's PARTNERPAY_OUTBOUND_ALLOW lets named addresses through.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Config from "../src/config/Config.ts"
import * as AttachmentFetcher from "../src/workers/AttachmentFetcher.ts"
import * as WebhookTarget from "../src/workers/WebhookTarget.ts"
import { productionEnvironment } from "./support.ts"

/** Every form the audit and the issue name, each pointing inside (metadata, loopback, private, unique-local). */
const insideUrls = [
  "http://127.0.0.1/",
  "http://10.0.0.1/",
  "http://169.254.169.254/",
  "http://[::1]/",
  "http://[fe80::1]/",
  "http://[fd00::1]/",
  "http://[::169.254.169.254]/",
  "http://[::127.0.0.1]/",
  "http://[::ffff:169.254.169.254]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:0:169.254.169.254]/",
  "http://[::ffff:0:a9fe:a9fe]/",
  "http://[64:ff9b::169.254.169.254]/",
  "http://[64:ff9b::a9fe:a9fe]/",
  "http://[64:ff9b:1::a9fe:a9fe]/",
  "http://[2002:a9fe:a9fe::1]/",
  "http://[2002:7f00:1::]/",
  "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
] as const

const sandboxOffLoopback = WebhookTarget.policyFor("sandbox", { hosts: ["0.0.0.0"] })
const sandboxOnLoopback = WebhookTarget.policyFor("sandbox", { hosts: ["127.0.0.1"] })
const production = WebhookTarget.policyFor("production", { hosts: ["127.0.0.1"] })

const checkAll = (policy: WebhookTarget.TargetPolicy) =>
  Promise.all(insideUrls.map(async (url) => [url, await WebhookTarget.checkUrl(url, policy)] as const)).then(
    (results) => results.filter(([, refusal]) => refusal === undefined).map(([url]) => url),
  )

describe("the outbound address policy", () => {
  it.effect("refuses private addresses unless the service is a sandbox whose listeners are all on loopback", () =>
    Effect.gen(function* () {
      const sandbox = yield* Config.fromRecord({})
      const exposed = yield* Config.fromRecord({ HOST: "0.0.0.0" })
      const adminExposed = yield* Config.fromRecord({
        PARTNERPAY_ADMIN_TOKEN: "admin-token-0123456789abcdef0123456789",
        PARTNERPAY_ADMIN_PORT: "0",
        PARTNERPAY_ADMIN_HOST: "0.0.0.0",
      })
      const prod = yield* Config.fromRecord(productionEnvironment())
      assert.deepStrictEqual(
        [sandbox, exposed, adminExposed, prod].map((config) => WebhookTarget.policyOf(config).refusePrivateAddresses),
        [false, true, true, true],
      )
    }),
  )

  it("refuses every inside form when a webhook URL is set, in the sandbox off loopback and in production", async () => {
    assert.deepStrictEqual(await checkAll(sandboxOffLoopback), [])
    assert.deepStrictEqual(await checkAll(production), [])
    assert.isFalse(sandboxOnLoopback.refusePrivateAddresses)
    assert.deepStrictEqual(await checkAll(sandboxOnLoopback), [...insideUrls])
  })

  it("refuses every inside form at connection time with one generic reason, in both environments", () => {
    for (const policy of [sandboxOffLoopback, production]) {
      for (const url of insideUrls) {
        assert.strictEqual(
          WebhookTarget.refusedLiteralFor(policy, new URL(url)),
          "address refused: not a public internet address",
          url,
        )
      }
      assert.isUndefined(WebhookTarget.refusedLiteralFor(policy, new URL("https://[2606:4700:4700::1111]/")))
    }
  })

  it("lets the operator's allowed addresses and networks through (PARTNERPAY_OUTBOUND_ALLOW)", async () => {
    const policy = WebhookTarget.policyFor("production", {
      hosts: ["0.0.0.0"],
      allowed: ["10.1.2.3", "fd00:1::/64"],
    })
    assert.isTrue(WebhookTarget.mayConnect(policy, "10.1.2.3"))
    assert.isTrue(WebhookTarget.mayConnect(policy, "fd00:1::5"))
    assert.isFalse(WebhookTarget.mayConnect(policy, "10.1.2.4"))
    assert.isFalse(WebhookTarget.mayConnect(policy, "fd00:2::5"))
    assert.isUndefined(await WebhookTarget.checkUrl("http://10.1.2.3/hooks", policy))
  })

  it.effect("PARTNERPAY_OUTBOUND_ALLOW takes IPs and CIDRs and refuses anything else, naming the variable", () =>
    Effect.gen(function* () {
      const config = yield* Config.fromRecord({ PARTNERPAY_OUTBOUND_ALLOW: "10.0.0.5, fd00::/64" })
      assert.deepStrictEqual(config.outboundAllow, ["10.0.0.5", "fd00::/64"])
      const bad = yield* Effect.exit(Config.fromRecord({ PARTNERPAY_OUTBOUND_ALLOW: "intranet.local" }))
      assert.isTrue(Exit.isFailure(bad))
      assert.include(String(Exit.isFailure(bad) ? bad.cause : ""), "PARTNERPAY_OUTBOUND_ALLOW")
    }),
  )
})

describe("an attachment download", () => {
  it.live(
    "from a local server: refused in the sandbox off loopback and in production (every spelling), fetched on loopback",
    () =>
      Effect.gen(function* () {
        const server = Http.createServer((_, response) =>
          response.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.4"),
        )
        yield* Effect.promise(() => new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready)))
        yield* Effect.addFinalizer(() => Effect.promise(() => new Promise<void>((done) => server.close(() => done()))))
        const port = (server.address() as AddressInfo).port
        const urls = [
          `http://127.0.0.1:${port}/a.pdf`,
          `http://localhost:${port}/a.pdf`,
          `http://[::ffff:7f00:1]:${port}/a.pdf`,
        ]
        for (const policy of [sandboxOffLoopback, production]) {
          for (const url of urls) {
            const failure = yield* Effect.flip(AttachmentFetcher.download(url, true, policy))
            assert.strictEqual(failure.reason, "address refused: not a public internet address", url)
            assert.isTrue(failure.permanent)
          }
        }
        const fetched = yield* AttachmentFetcher.download(urls[0]!, true, sandboxOnLoopback)
        assert.strictEqual(fetched.contentType, "application/pdf")
      }).pipe(Effect.scoped),
    30_000,
  )
})
