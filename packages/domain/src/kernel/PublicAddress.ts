/**
 * Which IP addresses are on the public internet: the rule every outbound call
 * of the service (webhook deliveries, attachment downloads) applies to the
 * addresses a host name resolves to (server-side request forgery, issue 34).
 *
 * Not public: IPv4 "this network" 0/8, private 10/8, 172.16/12, 192.168/16,
 * carrier-grade NAT 100.64/10, loopback 127/8, link-local 169.254/16 (the
 * cloud metadata address 169.254.169.254), IETF 192.0.0/24, documentation
 * 192.0.2/24, 198.51.100/24, 203.0.113/24, 6to4 relay 192.88.99/24,
 * benchmarking 198.18/15, multicast, reserved and broadcast 224/3.
 * IPv6 unspecified and loopback, discard 100::/64, documentation
 * 2001:db8::/32 and 3fff::/20, ORCHID 2001:10::/28 and 2001:20::/28,
 * benchmarking 2001:2::/48, unique-local fc00::/7, link-local fe80::/10,
 * site-local fec0::/10, multicast ff00::/8, and the NAT64 local-use prefix
 * 64:ff9b:1::/48 and Teredo 2001::/32 (tunnels whose far end cannot be
 * judged).
 *
 * Every IPv6 form that carries an IPv4 address is judged by that address,
 * whatever its spelling (dotted or hexadecimal, compressed or not):
 * IPv4-compatible ::a.b.c.d, IPv4-mapped ::ffff:a.b.c.d, IPv4-translated
 * ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 6to4 2002::/16. Anything that is not
 * an IP literal is not public.
 */

/** The four bytes of a dotted-quad IPv4 address, or undefined. */
export const parseIpv4 = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes = parts.map((part) => (/^[0-9]{1,3}$/.test(part) ? Number(part) : Number.NaN))
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : undefined
}

/** The eight 16-bit groups of an IPv6 address (zone index ignored), or undefined. */
export const parseIpv6 = (text: string): ReadonlyArray<number> | undefined => {
  let body = text.toLowerCase()
  const zone = body.indexOf("%")
  if (zone !== -1) body = body.slice(0, zone)
  if (!body.includes(":")) return undefined
  // A trailing dotted quad is two groups.
  const lastColon = body.lastIndexOf(":")
  const tail = body.slice(lastColon + 1)
  let extra: Array<number> = []
  if (tail.includes(".")) {
    const v4 = parseIpv4(tail)
    if (v4 === undefined) return undefined
    extra = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!]
    body = body.slice(0, lastColon + 1)
    if (!body.endsWith("::")) body = body.slice(0, -1)
  }
  const halves = body.split("::")
  if (halves.length > 2) return undefined
  const groupsOf = (part: string): Array<number> | undefined => {
    if (part === "") return []
    const groups = part.split(":").map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? Number.parseInt(group, 16) : -1))
    return groups.every((group) => group >= 0) ? groups : undefined
  }
  const head = groupsOf(halves[0]!)
  const rest = halves.length === 2 ? groupsOf(halves[1]!) : []
  if (head === undefined || rest === undefined) return undefined
  const known = head.length + rest.length + extra.length
  if (halves.length === 1) return known === 8 ? [...head, ...extra] : undefined
  if (known > 7) return undefined
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...extra]
}

const publicIpv4 = ([a = 0, b = 0, c = 0]: ReadonlyArray<number>): boolean =>
  !(
    a === 0 || // "this" network
    a === 10 || // private
    a === 127 || // loopback
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata (169.254.169.254)
    (a === 172 && b >= 16 && b <= 31) || // private
    (a === 192 && b === 168) || // private
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, documentation
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // documentation
    (a === 203 && b === 0 && c === 113) || // documentation
    a >= 224 // multicast, reserved, broadcast
  )

const bytesOf = (high: number, low: number): ReadonlyArray<number> => [high >> 8, high & 255, low >> 8, low & 255]

const publicIpv6 = (g: ReadonlyArray<number>): boolean => {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g
  const zeroTo = (n: number) => g.slice(0, n).every((group) => group === 0)
  // ::/96 (unspecified, loopback, IPv4-compatible ::a.b.c.d): judged by the IPv4 address.
  if (zeroTo(6)) return publicIpv4(bytesOf(g6, g7))
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated).
  if (zeroTo(5) && g5 === 0xffff) return publicIpv4(bytesOf(g6, g7))
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return publicIpv4(bytesOf(g6, g7))
  // NAT64 well-known prefix 64:ff9b::/96: the IPv4 address; its local-use prefix 64:ff9b:1::/48: never.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return publicIpv4(bytesOf(g6, g7))
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return false
  // 6to4 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
  if (g0 === 0x2002) return publicIpv4(bytesOf(g1, g2))
  // Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID 2001:10::/28 and 2001:20::/28, documentation 2001:db8::/32.
  if (g0 === 0x2001 && (g1 === 0 || (g1 === 2 && g2 === 0) || (g1 & 0xffe0) === 0x20 || (g1 & 0xfff0) === 0x10))
    return false
  if (g0 === 0x2001 && g1 === 0xdb8) return false
  if ((g0 & 0xfff0) === 0x3ff0) return false // documentation 3fff::/20
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return false // discard 100::/64
  if ((g0 & 0xfe00) === 0xfc00) return false // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return false // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return false // site-local fec0::/10
  if ((g0 & 0xff00) === 0xff00) return false // multicast
  return true
}

/** True when `address` (an IPv4 or IPv6 literal, IPv6 without brackets) is on the public internet. */
export const isPublicAddress = (address: string): boolean => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  const v4 = parseIpv4(bare)
  if (v4 !== undefined) return publicIpv4(v4)
  const v6 = parseIpv6(bare)
  return v6 !== undefined && publicIpv6(v6)
}
