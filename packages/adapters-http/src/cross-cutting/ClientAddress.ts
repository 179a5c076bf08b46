/**
 * The client's address as the rate limits and failure limits see it, and which
 * proxies may tell it (`PARTNERPAY_TRUST_PROXY`).
 *
 * A client writes whatever it likes into `X-Forwarded-For`; each proxy APPENDS
 * the address it received the request from. So only the right-hand entries,
 * appended by proxies the operator named, say anything. The walk starts at the
 * socket peer (hop 0) and moves left through the header while the hop it stands
 * on is a trusted proxy; the first hop that is not is the client (as Express's
 * `trust proxy` and `proxy-addr` do).
 *
 * - `Hops`: the N nearest hops are proxies (the socket peer and N - 1 entries),
 *   so the client is the N-th entry from the right.
 * - `Networks`: a hop is a proxy when its address is in one of the networks.
 *   The header is read only when the socket peer itself is in one.
 * - An entry that is not an IP address (`unknown`, a name, garbage) stops the
 *   walk: the client is the hop that was standing there (the trusted proxy that
 *   wrote the entry). A client cannot pick a bucket with one, and a proxy that
 *   writes one puts only its own requests together.
 * - When every hop is trusted (fewer entries than hops), the leftmost entry.
 * - Entries may carry a port (`192.0.2.7:4711`, `[2001:db8::7]:4711`) or
 *   brackets; IPv4-mapped IPv6 addresses (`::ffff:192.0.2.7`, what a
 *   dual-stack socket reports) are their IPv4 address.
 * - The key of an IPv6 client is its /64 (one subscriber's allocation), so a
 *   client cycling through the addresses of its own /64 stays in one bucket.
 */
import { Option, Result } from "effect"
import { IpNetwork, NetAddress } from "effect/net"

/** Which hops in front of the service may say who the client is. */
export type TrustedProxies =
  | { readonly _tag: "None" }
  | { readonly _tag: "Hops"; readonly hops: number }
  | { readonly _tag: "Networks"; readonly networks: ReadonlyArray<IpNetwork.IpNetwork> }

/** X-Forwarded-For is never read (the default): the socket peer is the client. */
export const none: TrustedProxies = { _tag: "None" }

/** The most proxies a hop count may name. */
export const maxHops = 10

/** Reads one address as written in X-Forwarded-For or by the socket: bare, bracketed, or with a port. */
export const parseAddress = (text: string): NetAddress.IpAddress | undefined => {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const ip = NetAddress.ipFromString(bare)
  if (Result.isSuccess(ip)) return NetAddress.toCanonical(ip.success)
  const inet = NetAddress.inetAddressFromString(text)
  return Result.isSuccess(inet) ? NetAddress.toCanonical(inet.success.address) : undefined
}

const quote = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)

const parseNetwork = (item: string): Result.Result<IpNetwork.IpNetwork, string> => {
  if (item.includes("/")) {
    return Result.mapError(
      IpNetwork.fromString(item),
      (error) => `${quote(item)} is not a network in CIDR notation (${error.message})`,
    )
  }
  const address = parseAddress(item)
  if (address === undefined) return Result.fail(`${quote(item)} is not an IP address or a network in CIDR notation`)
  return Result.succeed(IpNetwork.fromAddressUnsafe(address, NetAddress.width(address)))
}

const wordsForOn = new Set(["on", "true", "yes"])

/**
 * Parses a trust setting: `off`, a hop count (`1` .. `10`), or a comma-separated list of IPv4
 * and IPv6 addresses and CIDR networks (`10.0.0.0/8,127.0.0.1,::1`). The failure is a sentence
 * saying what to write instead.
 */
export const fromString = (text: string): Result.Result<TrustedProxies, string> => {
  const value = text.trim()
  const word = value.toLowerCase()
  if (word === "off") return Result.succeed(none)
  if (wordsForOn.has(word)) {
    return Result.fail(
      `${quote(value)} is no longer accepted: it trusted the first X-Forwarded-For entry, which the client writes. ` +
        `Write the number of proxies in front of the service (e.g. "1" for one load balancer) ` +
        `or their addresses and networks (e.g. "10.0.0.0/8,::1"), or "off"`,
    )
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops < 1 || hops > maxHops) {
      return Result.fail(`a number of proxies must be between 1 and ${maxHops} ("off" for none; got ${quote(value)})`)
    }
    return Result.succeed({ _tag: "Hops", hops })
  }
  const networks: Array<IpNetwork.IpNetwork> = []
  const problems: Array<string> = []
  for (const item of value.split(",").map((part) => part.trim())) {
    if (item === "") {
      problems.push("an empty item")
      continue
    }
    const parsed = parseNetwork(item)
    if (Result.isSuccess(parsed)) networks.push(parsed.success)
    else problems.push(parsed.failure)
  }
  if (problems.length > 0) {
    return Result.fail(
      `must be "off", a number of proxies (1 to ${maxHops}) or a comma-separated list of IP addresses and ` +
        `CIDR networks such as "10.0.0.0/8,::1": ${problems.join("; ")}`,
    )
  }
  return Result.succeed({ _tag: "Networks", networks })
}

/** The trust setting as it is written (for the start line and errors). */
export const format = (trust: TrustedProxies): string => {
  switch (trust._tag) {
    case "None":
      return "off"
    case "Hops":
      return String(trust.hops)
    case "Networks":
      return trust.networks.map(IpNetwork.format).join(",")
  }
}

/** The address a rate-limit bucket is keyed by: IPv4 as is, IPv6 its /64. */
export const keyOf = (address: NetAddress.IpAddress): string =>
  NetAddress.isIpv4Address(address)
    ? NetAddress.formatIp(address)
    : IpNetwork.format(IpNetwork.fromAddressUnsafe(address, 64))

const isTrusted = (trust: TrustedProxies, address: NetAddress.IpAddress, hop: number): boolean => {
  switch (trust._tag) {
    case "None":
      return false
    case "Hops":
      return hop < trust.hops
    case "Networks":
      return trust.networks.some((network) => IpNetwork.contains(network, address))
  }
}

/**
 * The client's address, walked from the socket peer through `X-Forwarded-For` (the header's
 * value as received; repeated headers joined with commas). Undefined when the peer is unknown.
 */
export const resolve = (
  peer: string | undefined,
  forwardedFor: string | undefined,
  trust: TrustedProxies,
): NetAddress.IpAddress | undefined => {
  const first = peer === undefined ? undefined : parseAddress(peer)
  if (first === undefined) return undefined
  const entries = trust._tag === "None" || forwardedFor === undefined ? [] : forwardedFor.split(",")
  let current = first
  for (let hop = 0; hop < entries.length; hop++) {
    if (!isTrusted(trust, current, hop)) return current
    const next = parseAddress(entries[entries.length - 1 - hop]!.trim())
    if (next === undefined) return current
    current = next
  }
  return current
}

/** The bucket key of the client: `keyOf` its address, the raw peer when it is not an IP address, else "unknown". */
export const clientKey = (
  peer: Option.Option<string>,
  forwardedFor: string | undefined,
  trust: TrustedProxies,
): string => {
  const address = resolve(Option.getOrUndefined(peer), forwardedFor, trust)
  if (address !== undefined) return keyOf(address)
  return Option.getOrElse(peer, () => "unknown")
}
