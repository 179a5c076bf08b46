/**
 * Which addresses the service's outbound calls may reach (server-side request
 * forgery): webhook deliveries (WebhookDispatcher.ts) and attachment
 * downloads (AttachmentFetcher.ts), and webhook URLs when they are set.
 *
 * In every environment an address that is not on the public internet is
 * refused (`PublicAddress.isPublicAddress`: loopback, private, link-local and
 * the cloud metadata address, unique-local, documentation, multicast, and
 * every IPv6 form that carries an IPv4 address judged by that address:
 * `::a.b.c.d`, `::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`, 64:ff9b::/96, 6to4; the
 * local-use NAT64 prefix 64:ff9b:1::/48 and Teredo 2001::/32 outright), with
 * two exceptions:
 * - a sandbox that listens only on loopback (HOST and PARTNERPAY_ADMIN_HOST
 *   127.0.0.0/8, ::1 or localhost: a developer's machine) reaches any address
 *   (partners test against local receivers); production never does;
 * - the addresses and networks the operator lists in PARTNERPAY_OUTBOUND_ALLOW.
 *
 * It is checked twice: when the URL is set (`checkUrl`: a 400 naming the
 * field), and at every connection (`pinnedLookupFor`): the connection resolves
 * the name through this lookup, which refuses when any resolved address may
 * not be reached and otherwise hands the checked address to the socket, so the
 * connection goes to the address that was checked (a DNS answer that changes
 * between the check and the connection, "DNS rebinding", cannot redirect it).
 * A refusal says only that the address is not allowed (never which address a
 * name resolved to, nor anything of a port).
 */
import * as Dns from "node:dns"
import { BlockList, isIP, type LookupFunction } from "node:net"
import { PublicAddress, WebhookLog } from "@partnerpay/domain"
import { Context, Effect, Layer, Option } from "effect"

export interface TargetPolicy {
  /** Refuse addresses that are not public (every environment, except a sandbox on loopback only). */
  readonly refusePrivateAddresses: boolean
  /** Addresses and networks allowed although not public (PARTNERPAY_OUTBOUND_ALLOW). */
  readonly allowed?: ReadonlyArray<string> | undefined
  /** A partner's webhook URL must be https:// (production; default: when private addresses are refused). */
  readonly httpsOnly?: boolean | undefined
}

/** The policy in force: every address allowed unless a layer says otherwise (Service.ts provides the configured one). */
export const WebhookTargetPolicy = Context.Reference<TargetPolicy>("partnerpay/app/WebhookTargetPolicy", {
  defaultValue: () => ({ refusePrivateAddresses: false }),
})

/** True when `host` (a listener's interface) is a loopback one. */
export const isLoopbackHost = (host: string): boolean => {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  if (bare.toLowerCase() === "localhost") return true
  if (isIP(bare) === 4) return bare.startsWith("127.")
  return bare === "::1" || bare.toLowerCase() === "::ffff:127.0.0.1"
}

/** Where the service listens and what the operator allows. */
export interface Listening {
  /** The interfaces of the service's listeners (public, and the operator API's when it has its own). */
  readonly hosts: ReadonlyArray<string>
  readonly allowed?: ReadonlyArray<string> | undefined
}

/**
 * The policy of an environment: non-public addresses refused, except in a sandbox whose listeners are all on
 * loopback; the operator's allowed addresses in both.
 */
export const policyFor = (
  environment: "sandbox" | "production",
  listening: Listening = { hosts: ["0.0.0.0"] },
): TargetPolicy => ({
  refusePrivateAddresses: !(environment === "sandbox" && listening.hosts.every(isLoopbackHost)),
  allowed: listening.allowed ?? [],
  httpsOnly: environment === "production",
})

/** The policy of a configuration: its environment, its listeners' interfaces and PARTNERPAY_OUTBOUND_ALLOW. */
export const policyOf = (config: {
  readonly environment: "sandbox" | "production"
  readonly host: string
  readonly adminListener: Option.Option<{ readonly host: string }>
  readonly outboundAllow: ReadonlyArray<string>
}): TargetPolicy =>
  policyFor(config.environment, {
    hosts: [config.host, ...Option.toArray(config.adminListener).map((listener) => listener.host)],
    allowed: config.outboundAllow,
  })

const allowLists = new WeakMap<ReadonlyArray<string>, BlockList>()

/** The operator's allowed addresses as a BlockList (built once per list). */
const allowListOf = (allowed: ReadonlyArray<string>): BlockList => {
  let list = allowLists.get(allowed)
  if (list === undefined) {
    list = new BlockList()
    for (const entry of allowed) {
      const [address = "", prefix] = entry.split("/")
      const family = isIP(address) === 6 ? "ipv6" : "ipv4"
      if (prefix === undefined) list.addAddress(address, family)
      else list.addSubnet(address, Number(prefix), family)
    }
    allowLists.set(allowed, list)
  }
  return list
}

/** True when `address` is public (see `PublicAddress`). */
export const isPublicAddress = PublicAddress.isPublicAddress

/** Whether an outbound call may connect to `address` (an IP literal) under `policy`. */
export const mayConnect = (policy: TargetPolicy, address: string): boolean => {
  if (!policy.refusePrivateAddresses || isPublicAddress(address)) return true
  const allowed = policy.allowed ?? []
  if (allowed.length === 0) return false
  const family = isIP(address)
  return family !== 0 && allowListOf(allowed).check(address, family === 6 ? "ipv6" : "ipv4")
}

/** What a refused address is reported as (the same whatever the address or the port). */
export const refusedReason = "address refused: not a public internet address"

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
    return mayConnect(policy, literal) ? undefined : "must not point to a loopback, private or link-local address"
  }
  let addresses: ReadonlyArray<Dns.LookupAddress>
  try {
    addresses = await Dns.promises.lookup(target.hostname, { all: true, verbatim: true })
  } catch {
    return `the host name ${target.hostname} does not resolve`
  }
  if (addresses.length === 0) return `the host name ${target.hostname} does not resolve`
  return addresses.every((a) => mayConnect(policy, a.address))
    ? undefined
    : "must not resolve to a loopback, private or link-local address"
}

/** The error a refused address fails the connection with (its message becomes the delivery's last error). */
export class AddressRefused extends Error {
  constructor() {
    super(refusedReason)
  }
}

/**
 * A `lookup` for `http.request` under `policy`: resolves like the default, then refuses (AddressRefused) when
 * any address of the answer may not be reached; the socket connects to the checked address.
 */
export const pinnedLookupFor =
  (policy: TargetPolicy): LookupFunction =>
  (hostname, options, callback) => {
    Dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error !== null) return callback(error, "", 4)
      const list = addresses as unknown as ReadonlyArray<Dns.LookupAddress>
      if (list.length === 0 || !list.every((a) => mayConnect(policy, a.address))) {
        return callback(Object.assign(new AddressRefused(), { code: "EADDRREFUSED" }), "", 4)
      }
      if (options.all === true)
        return (callback as unknown as (e: null, a: ReadonlyArray<Dns.LookupAddress>) => void)(null, list)
      const first = list[0]!
      return callback(null, first.address, first.family)
    })
  }

/** `pinnedLookupFor` with every non-public address refused. */
export const pinnedLookup: LookupFunction = pinnedLookupFor({ refusePrivateAddresses: true })

/** Before connecting to an IP literal (no lookup happens): the refusal when it may not be reached under `policy`. */
export const refusedLiteralFor = (policy: TargetPolicy, url: URL): string | undefined => {
  const literal = literalHost(url)
  return literal !== undefined && !mayConnect(policy, literal) ? refusedReason : undefined
}

/** `refusedLiteralFor` with every non-public address refused. */
export const refusedLiteral = (url: URL): string | undefined => refusedLiteralFor({ refusePrivateAddresses: true }, url)

/**
 * The domain's `WebhookTargets` port under the policy in force when the layer is built (Service.ts provides
 * the environment's): `checkUrl`, and in production an https:// URL only (a partner's own setting,
 * `PUT /Webhooks/Endpoint`).
 */
export const layerTargets: Layer.Layer<WebhookLog.WebhookTargets> = Layer.effect(
  WebhookLog.WebhookTargets,
  Effect.map(Effect.service(WebhookTargetPolicy), (policy) =>
    WebhookLog.WebhookTargets.of({
      // https:// only where the policy is production's (a sandbox off loopback still takes http:// receivers).
      check: (url) =>
        (policy.httpsOnly ?? policy.refusePrivateAddresses) && !url.toLowerCase().startsWith("https://")
          ? Effect.succeed("must be an https:// URL")
          : Effect.promise(() => checkUrl(url, policy)),
    }),
  ),
)
