/**
 * The client address behind proxies (`ClientAddress.ts`): the trust setting,
 * the walk through X-Forwarded-For from the right, and, over HTTP, the two
 * attacks it stops at POST /auth/token: rotating the header to escape the
 * failure limit, and naming a victim's address to lock the victim out.
 *
 * The in-process server has no socket, so the test plays the socket peer
 * through a header a test middleware turns into the request's peer address
 * (`fixtures.socketPeerFromHeader`); the service never reads that header.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Result } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { IpNetwork } from "effect/net"
import { afterAll } from "vitest"
import * as ClientAddress from "../src/cross-cutting/ClientAddress.ts"
import * as CrossCutting from "../src/cross-cutting/CrossCutting.ts"
import * as Server from "../src/Server.ts"
import {
  clientId,
  clientSecret,
  type Handler,
  Ports,
  peerHeader,
  send,
  socketPeerFromHeader,
  withTestClock,
} from "./fixtures.ts"

const trust = (text: string): ClientAddress.TrustedProxies => Result.getOrThrow(ClientAddress.fromString(text))

const keyOf = (peer: string | undefined, forwardedFor: string | undefined, setting: string) =>
  ClientAddress.clientKey(Option.fromUndefinedOr(peer), forwardedFor, trust(setting))

describe("the trust setting (PARTNERPAY_TRUST_PROXY)", () => {
  it("is off, a number of proxies, or a list of IPv4 and IPv6 addresses and CIDR networks", () => {
    assert.deepStrictEqual(trust("off"), ClientAddress.none)
    assert.deepStrictEqual(trust(" 2 "), { _tag: "Hops", hops: 2 })
    const networks = trust("10.0.0.0/8, 127.0.0.1,::1,fd00::/8")
    assert.strictEqual(ClientAddress.format(networks), "10.0.0.0/8,127.0.0.1/32,::1/128,fd00::/8")
    assert.strictEqual(networks._tag === "Networks" && IpNetwork.format(networks.networks[0]!), "10.0.0.0/8")
  })

  it('"on" is refused with what to write instead: it meant the first entry, which the client writes', () => {
    for (const word of ["on", "ON", "true", "yes"]) {
      const refused = ClientAddress.fromString(word)
      assert.isTrue(Result.isFailure(refused), word)
      const message = Result.isFailure(refused) ? refused.failure : ""
      assert.include(message, "the client writes")
      assert.include(message, 'e.g. "1"')
      assert.include(message, "10.0.0.0/8")
    }
  })

  it("names every bad item: host bits in a network, a name, an empty item, a hop count out of range", () => {
    const refused = ClientAddress.fromString("10.0.0.1/8,proxy.internal,,::1")
    assert.isTrue(Result.isFailure(refused))
    const message = Result.isFailure(refused) ? refused.failure : ""
    assert.include(message, '"10.0.0.1/8" is not a network in CIDR notation')
    assert.include(message, '"proxy.internal" is not an IP address')
    assert.include(message, "an empty item")
    for (const count of ["0", "11"]) assert.isTrue(Result.isFailure(ClientAddress.fromString(count)), count)
  })
})

describe("the client address", () => {
  it("is the socket peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    assert.strictEqual(keyOf("203.0.113.9", "198.51.100.7", "off"), "203.0.113.9")
    assert.strictEqual(keyOf("::ffff:203.0.113.9", undefined, "off"), "203.0.113.9")
    assert.strictEqual(keyOf(undefined, "198.51.100.7", "1"), "unknown")
  })

  it("with a number of proxies, is that many entries from the right; the entries the client wrote are ignored", () => {
    // client 198.51.100.7 -> load balancer 10.0.0.1 -> ingress 10.0.0.2 -> service
    const header = "6.6.6.6, 198.51.100.7, 10.0.0.1"
    assert.strictEqual(keyOf("10.0.0.2", header, "2"), "198.51.100.7")
    assert.strictEqual(keyOf("10.0.0.2", header, "1"), "10.0.0.1")
    // Fewer entries than proxies: the leftmost (written by a proxy, not by the client).
    assert.strictEqual(keyOf("10.0.0.2", "198.51.100.7", "2"), "198.51.100.7")
    assert.strictEqual(keyOf("10.0.0.2", undefined, "2"), "10.0.0.2")
  })

  it("with networks, is the first address from the right outside them; from an untrusted peer the header is ignored", () => {
    const header = "6.6.6.6, 198.51.100.7, 10.0.0.1"
    assert.strictEqual(keyOf("10.0.0.2", header, "10.0.0.0/8"), "198.51.100.7")
    assert.strictEqual(keyOf("::ffff:10.0.0.2", header, "10.0.0.0/8"), "198.51.100.7")
    assert.strictEqual(keyOf("203.0.113.9", header, "10.0.0.0/8"), "203.0.113.9")
    assert.strictEqual(keyOf("::1", "2001:db8:1:2::7", "::1"), "2001:db8:1:2::/64")
    assert.strictEqual(keyOf("127.0.0.1", "[2001:db8::7]:4711, 192.0.2.1:80", "127.0.0.1"), "192.0.2.1")
    // Every hop trusted: the leftmost.
    assert.strictEqual(keyOf("10.0.0.2", "10.0.0.9, 10.0.0.1", "10.0.0.0/8"), "10.0.0.9")
  })

  it("stops at an entry that is not an IP address: the proxy that wrote it is the client", () => {
    for (const bad of ["unknown", "", "not an ip", "1.2.3.4.5", "999.0.0.1", "::g", "_hidden", "1.2.3.4:port"]) {
      assert.strictEqual(keyOf("10.0.0.2", `198.51.100.7, ${bad}`, "10.0.0.0/8"), "10.0.0.2", bad)
      assert.strictEqual(keyOf("10.0.0.2", `${bad}, 10.0.0.1`, "10.0.0.0/8"), "10.0.0.1", bad)
      assert.strictEqual(keyOf("10.0.0.2", `6.6.6.6, ${bad}`, "2"), "10.0.0.2", bad)
    }
  })

  it("of an IPv6 client is its /64, so cycling through its own /64 keeps one bucket", () => {
    assert.strictEqual(keyOf("2001:db8:1:2::1", undefined, "off"), "2001:db8:1:2::/64")
    assert.strictEqual(keyOf("2001:db8:1:2:ffff::9", undefined, "off"), "2001:db8:1:2::/64")
    assert.strictEqual(keyOf("2001:db8:1:3::1", undefined, "off"), "2001:db8:1:3::/64")
  })
})

// ---------------------------------------------------------------------------
// Over HTTP: POST /auth/token failure limits (30 failures per address) behind a proxy

const serverBehind = (setting: string) =>
  HttpRouter.toWebHandler(
    Server.Routes.pipe(
      Layer.provide(
        Layer.mergeAll(Ports, CrossCutting.layerLimits({ rateLimiting: false, trustedProxies: trust(setting) })),
      ),
      Layer.provide(HttpServer.layerServices),
    ),
    { routerConfig: Server.routerConfig, disableLogger: true, middleware: socketPeerFromHeader },
  )

/** A login through a proxy at `peer`, which appended the address it saw to the header the client sent. */
const login = (h: Handler, peer: string, forwardedFor: string, id: string, secret: string) =>
  Effect.flatMap(withTestClock, (context) =>
    Effect.map(
      send(
        h,
        "/auth/token",
        {
          method: "POST",
          headers: { "content-type": "application/json", [peerHeader]: peer, "x-forwarded-for": forwardedFor },
          body: JSON.stringify({ ClientId: id, ClientSecret: secret }),
        },
        context,
      ),
      (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after") }),
    ),
  )

const servers: Array<{ dispose: () => Promise<void> }> = []
afterAll(async () => {
  for (const server of servers) await server.dispose()
})
const freshServer = (setting: string) => {
  const server = serverBehind(setting)
  servers.push(server)
  return server.handler as unknown as Handler
}
const proxy = "10.0.0.1"
const attacker = "203.0.113.66"
const victim = "198.51.100.7"

describe.each([
  { proxies: "one proxy counted (PARTNERPAY_TRUST_PROXY=1)", setting: "1" },
  { proxies: "a proxy network (PARTNERPAY_TRUST_PROXY=10.0.0.0/8,::1)", setting: "10.0.0.0/8,::1" },
])("failed logins behind $proxies", ({ setting }) => {
  const fresh = () => freshServer(setting)

  it.effect("rotating X-Forwarded-For does not escape the limit: the 31st failure from one address is 429", () =>
    Effect.gen(function* () {
      const h = fresh()
      const statuses: Array<number> = []
      for (let i = 0; i < 40; i++) {
        const spoofed = `192.0.2.${i + 1}`
        statuses.push((yield* login(h, proxy, `${spoofed}, ${attacker}`, `guess-${i}`, "wrong")).status)
      }
      assert.deepStrictEqual(statuses.slice(0, 30), Array(30).fill(401))
      assert.deepStrictEqual(statuses.slice(30), Array(10).fill(429))
      const refused = yield* login(h, proxy, `192.0.2.200, ${attacker}`, clientId, clientSecret)
      assert.strictEqual(refused.status, 429)
      assert.isAtLeast(Number(refused.retryAfter), 1)
    }),
  )

  it.effect("naming a victim's address does not lock the victim out", () =>
    Effect.gen(function* () {
      const h = fresh()
      for (let i = 0; i < 40; i++) yield* login(h, proxy, `${victim}, ${attacker}`, `guess-${i}`, "wrong")
      assert.strictEqual((yield* login(h, proxy, `${victim}, ${attacker}`, clientId, clientSecret)).status, 429)
      assert.strictEqual((yield* login(h, proxy, victim, clientId, clientSecret)).status, 200)
    }),
  )

  it.effect("malformed entries left of the proxy's are ignored: the address the proxy saw is limited", () =>
    Effect.gen(function* () {
      const h = fresh()
      for (let i = 0; i < 30; i++) {
        const junk = ["unknown", "", "x".repeat(300), "300.1.1.1", "[::1", `guess-${i}`][i % 6]
        assert.strictEqual((yield* login(h, proxy, `${junk}, ${attacker}`, `guess-${i}`, "wrong")).status, 401)
      }
      assert.strictEqual((yield* login(h, proxy, `garbage, ${attacker}`, clientId, clientSecret)).status, 429)
      assert.strictEqual((yield* login(h, proxy, `garbage, ${victim}`, clientId, clientSecret)).status, 200)
    }),
  )
})

describe("a client reaching the service around the proxy network", () => {
  it.effect("cannot use X-Forwarded-For: its own address is limited", () =>
    Effect.gen(function* () {
      const h = freshServer("10.0.0.0/8")
      for (let i = 0; i < 30; i++) yield* login(h, attacker, `192.0.2.${i + 1}`, `guess-${i}`, "wrong")
      assert.strictEqual((yield* login(h, attacker, victim, clientId, clientSecret)).status, 429)
      assert.strictEqual((yield* login(h, proxy, victim, clientId, clientSecret)).status, 200)
    }),
  )
})
