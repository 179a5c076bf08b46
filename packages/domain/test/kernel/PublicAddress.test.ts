/**
 * Which addresses the service's outbound calls may reach (issue 34): public
 * addresses only; loopback, private, link-local and unique-local refused, and
 * every IPv6 form embedding an IPv4 address judged by that address in every
 * spelling; the local-use NAT64 prefix and Teredo refused outright.
 */
import { assert, describe, it } from "@effect/vitest"
import { isPublicAddress, parseIpv6 } from "../../src/kernel/PublicAddress.ts"

const refused = (addresses: ReadonlyArray<string>) => addresses.filter((address) => isPublicAddress(address))

describe("an IPv4 address", () => {
  it("is public unless loopback, private, link-local, shared, documentation, benchmarking or multicast", () => {
    assert.deepStrictEqual(
      refused([
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "192.0.2.1",
        "198.18.0.1",
        "224.0.0.1",
        "255.255.255.255",
      ]),
      [],
    )
    assert.isTrue(isPublicAddress("8.8.8.8"))
    assert.isTrue(isPublicAddress("93.184.216.34"))
  })
})

describe("an IPv6 address embedding an IPv4 address", () => {
  it("is judged by the IPv4 address in every form and spelling: ::a.b.c.d, ::ffff:(0:)a.b.c.d, 64:ff9b::/96, 6to4", () => {
    assert.deepStrictEqual(
      refused([
        "::169.254.169.254",
        "::a9fe:a9fe",
        "::127.0.0.1",
        "::ffff:169.254.169.254",
        "::ffff:a9fe:a9fe",
        "0:0:0:0:0:ffff:7f00:1",
        "::ffff:0:169.254.169.254",
        "::ffff:0:a9fe:a9fe",
        "64:ff9b::169.254.169.254",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:0:0:0:0:7f00:1",
        "2002:a9fe:a9fe::1",
        "2002:7f00:1::",
        "2002:0a00:0001:1::1",
      ]),
      [],
    )
    assert.isTrue(isPublicAddress("::ffff:8.8.8.8"))
    assert.isTrue(isPublicAddress("64:ff9b::808:808"))
    assert.isTrue(isPublicAddress("2002:808:808::1"))
  })

  it("is refused outright under the local-use NAT64 prefix 64:ff9b:1::/48 and Teredo 2001::/32", () => {
    assert.deepStrictEqual(
      refused(["64:ff9b:1::a9fe:a9fe", "64:ff9b:1::808:808", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1"]),
      [],
    )
  })
})

describe("another IPv6 address", () => {
  it("is public unless unspecified, loopback, link-local, unique-local, site-local, multicast, documentation or discard", () => {
    assert.deepStrictEqual(
      refused([
        "::",
        "::1",
        "[::1]",
        "0000:0000:0000:0000:0000:0000:0000:0001",
        "fe80::1",
        "fe80::1%eth0",
        "fd00::1",
        "fc00::1",
        "fec0::1",
        "ff02::1",
        "2001:db8::1",
        "3fff::1",
        "100::1",
      ]),
      [],
    )
    assert.isTrue(isPublicAddress("2001:4860:4860::8888"))
    assert.isTrue(isPublicAddress("2606:4700:4700::1111"))
  })
})

describe("text that is not an IP literal", () => {
  it("is never public", () => {
    assert.deepStrictEqual(refused(["localhost", "example.com", "1::2::3", "1.2.3", "::ffff:1.2.3.256", ""]), [])
    assert.isUndefined(parseIpv6("1:2:3:4:5:6:7:8:9"))
    assert.deepStrictEqual(parseIpv6("1::8"), [1, 0, 0, 0, 0, 0, 0, 8])
    assert.deepStrictEqual(parseIpv6("::ffff:1.2.3.4"), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304])
  })
})
