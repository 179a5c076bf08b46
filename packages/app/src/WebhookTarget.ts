/**
 * Which webhook URLs the service may call (server-side request forgery).
 *
 * In production (`PARTNERPAY_ENV=production`, `refusePrivateAddresses`), a
 * webhook URL whose host is, or resolves to, an address that is not on the
 * public internet is refused:
 * - loopback (127.0.0.0/8, ::1), "this network" (0.0.0.0/8, ::),
 * - private (10/8, 172.16/12, 192.168/16, fc00::/7), carrier-grade NAT
 *   (100.64/10, where some clouds put their metadata service),
 * - link-local (169.254/16, fe80::/10: the cloud metadata address
 *   169.254.169.254 is one), multicast, reserved and broadcast ranges,
 *   documentation and benchmarking ranges,
 * - IPv4 written inside IPv6 (::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4
 *   2002::/16) is judged by the IPv4 address.
 * It is refused twice: when the URL is set (`checkUrl`: a 400 naming the
 * field), and at every delivery (`pinnedLookup`): the dispatcher's
 * connection resolves the name through this lookup, which refuses when any
 * resolved address is not public and otherwise hands the checked address to
 * the socket, so the connection goes to the address that was checked (a DNS
 * answer that changes between the check and the connection, "DNS
 * rebinding", cannot redirect it).
 *
 * In the sandbox every address is allowed (partners test against local
 * receivers and tunnels).
 */
import * as Dns from "node:dns"
import { BlockList, isIP, type LookupFunction } from "node:net"
import { WebhookLog } from "@partnerpay/domain"
import { Context, Effect, Layer } from "effect"

export interface TargetPolicy {
  /** Refuse URLs that are or resolve to non-public addresses (production). */
  readonly refusePrivateAddresses: boolean
}

/** The policy in force: every address allowed unless a layer says otherwise (Service.ts in production). */
export const WebhookTargetPolicy = Context.Reference<TargetPolicy>("partnerpay/app/WebhookTargetPolicy", {
  defaultValue: () => ({ refusePrivateAddresses: false }),
})

/** The policy of an environment: production refuses non-public addresses, the sandbox allows them. */
export const policyFor = (environment: "sandbox" | "production"): TargetPolicy => ({
  refusePrivateAddresses: environment === "production",
})

const blocked = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4")
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6")
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), if any. */
const embeddedIpv4 = (address: string): string | undefined => {
  const lower = address.toLowerCase()
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted !== null) return dotted[1]
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower)
  const parts = hex ?? sixToFour
  if (parts === null) return undefined
  const high = Number.parseInt(parts[1]!, 16)
  const low = Number.parseInt(parts[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/** True when `address` (an IP literal) is on the public internet. */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address)
  if (family === 4) return !blocked.check(address, "ipv4")
  if (family !== 6) return false
  const inner = embeddedIpv4(address)
  if (inner !== undefined) return isPublicAddress(inner)
  return !blocked.check(address, "ipv6")
}

/** The URL's host as an IP literal (brackets of IPv6 removed), or undefined when it is a name. */
const literalHost = (url: URL): string | undefined => {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  return isIP(host) === 0 ? undefined : host
}

/** Why the service refuses to call `url` under `policy`; undefined when it may. Resolves the host name. */
export const checkUrl = async (url: string, policy: TargetPolicy): Promise<string | undefined> => {
  if (!policy.refusePrivateAddresses) return undefined
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return "must be an absolute http:// or https:// URL"
  }
  const literal = literalHost(target)
  if (literal !== undefined) {
    return isPublicAddress(literal) ? undefined : "must not point to a loopback, private or link-local address"
  }
  let addresses: ReadonlyArray<Dns.LookupAddress>
  try {
    addresses = await Dns.promises.lookup(target.hostname, { all: true, verbatim: true })
  } catch {
    return `the host name ${target.hostname} does not resolve`
  }
  if (addresses.length === 0) return `the host name ${target.hostname} does not resolve`
  return addresses.every((a) => isPublicAddress(a.address))
    ? undefined
    : "must not resolve to a loopback, private or link-local address"
}

/** The error a refused address fails the connection with (its message becomes the delivery's last error). */
export class AddressRefused extends Error {
  constructor(host: string) {
    super(`address refused: ${host} is not a public internet address`)
  }
}

/**
 * A `lookup` for `http.request`: resolves like the default, then refuses (AddressRefused) when any address
 * of the answer is not public; the socket connects to the checked address.
 */
export const pinnedLookup: LookupFunction = (hostname, options, callback) => {
  Dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error !== null) return callback(error, "", 4)
    const list = addresses as unknown as ReadonlyArray<Dns.LookupAddress>
    if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) {
      return callback(Object.assign(new AddressRefused(hostname), { code: "EADDRREFUSED" }), "", 4)
    }
    if (options.all === true)
      return (callback as unknown as (e: null, a: ReadonlyArray<Dns.LookupAddress>) => void)(null, list)
    const first = list[0]!
    return callback(null, first.address, first.family)
  })
}

/** Before connecting to an IP literal (no lookup happens): refused when not public. */
export const refusedLiteral = (url: URL): string | undefined => {
  const literal = literalHost(url)
  return literal !== undefined && !isPublicAddress(literal)
    ? `address refused: ${literal} is not a public internet address`
    : undefined
}

/**
 * The domain's `WebhookTargets` port under the policy in force when the layer is built (Service.ts provides
 * the environment's): `checkUrl`, and in production an https:// URL only (a partner's own setting,
 * `PUT /Webhooks/Endpoint`).
 */
export const layerTargets: Layer.Layer<WebhookLog.WebhookTargets> = Layer.effect(
  WebhookLog.WebhookTargets,
  Effect.map(Effect.service(WebhookTargetPolicy), (policy) =>
    WebhookLog.WebhookTargets.of({
      check: (url) =>
        policy.refusePrivateAddresses && !url.toLowerCase().startsWith("https://")
          ? Effect.succeed("must be an https:// URL")
          : Effect.promise(() => checkUrl(url, policy)),
    }),
  ),
)
