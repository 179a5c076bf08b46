/**
 * The attachment fetcher: downloads the documents named by payment requests'
 * `attachmentUrl` and keeps them (`Attachments.PaymentAttachments`).
 *
 * Each poll registers the requests that have an attachment URL and no
 * attachment yet (`discover`), claims due downloads (leased, so one instance
 * downloads a document at a time) and tries each once. The rules are the
 * domain's (`Attachments`): content types, size limit, timeout, which
 * addresses may be fetched, retry schedule and attempts. The I/O is here:
 *
 * - the host name is resolved first and every address checked against the
 *   service's address policy (`WebhookTarget.mayConnect`: loopback, private,
 *   link-local/metadata and other non-public addresses refused in every
 *   environment, unless the service is a sandbox listening on loopback only,
 *   or the operator allows them; one generic reason); the sandbox also
 *   allows http. Then the connection is pinned to the
 *   checked address (the socket's `lookup` answers it), so a DNS answer that
 *   changes between the check and the connection cannot redirect it;
 * - a redirect to the same host is followed (at most 3); to another host it
 *   is a permanent failure;
 * - the body is read up to `Attachments.maxBytes` (a larger Content-Length or
 *   body aborts the download), within `Attachments.timeoutMillis`;
 * - kept bytes are hashed (sha256, hex) and stored with their content type.
 *
 * A failure is recorded with its reason: retried with backoff (network
 * errors, timeouts, 408/429/5xx) or Failed at once (wrong content type, too
 * large, 4xx, refused address or scheme, redirect to another host). Retries
 * follow the real clock (the sandbox clock does not move them).
 */

import { createHash } from "node:crypto"
import { lookup } from "node:dns/promises"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { Attachments, Traced } from "@partnerpay/domain"
import { Clock, DateTime, Effect } from "effect"
import { worker } from "./Polling.ts"
import { mayConnect, refusedReason, type TargetPolicy, WebhookTargetPolicy } from "./WebhookTarget.ts"

export const name = "attachment-fetcher"

export interface Options {
  /** Sandbox: http URLs and local addresses are fetched too. */
  readonly sandbox: boolean
  /** Downloads per poll (default 4). */
  readonly batchSize?: number
  /** Wait between polls when nothing was due (default 1 s). */
  readonly idleMillis?: number
  /** Least interval between two discoveries of new requests (default 10 s; reads register on their own). */
  readonly discoverEveryMillis?: number
}

/** A downloaded document the domain accepts. */
export interface Downloaded {
  readonly contentType: string
  readonly bytes: Uint8Array
  readonly sha256: string
}

const permanent = (reason: string): Attachments.DownloadFailure => ({ reason, permanent: true })
const transient = (reason: string): Attachments.DownloadFailure => ({ reason, permanent: false })

/** Resolves `host` and checks every address; the first one when all may be connected to. */
const resolve = async (
  host: string,
  policy: TargetPolicy,
): Promise<{ address: string; family: number } | Attachments.DownloadFailure> => {
  const bare = host.startsWith("[") ? host.slice(1, -1) : host
  let addresses: ReadonlyArray<{ address: string; family: number }>
  try {
    addresses = await lookup(bare, { all: true })
  } catch (error) {
    return transient(`cannot resolve ${bare}: ${(error as NodeJS.ErrnoException).code ?? "lookup failed"}`)
  }
  // One reason whatever the address (no oracle of what a name resolves to).
  if (addresses.some((entry) => !mayConnect(policy, entry.address))) return permanent(refusedReason)
  const first = addresses[0]
  return first === undefined ? transient(`cannot resolve ${bare}`) : first
}

const isFailure = (value: object): value is Attachments.DownloadFailure => "permanent" in value

/** One GET of `url`, pinned to a checked address; a same-host redirect is followed up to `redirects` times. */
const get = async (
  url: URL,
  sandbox: boolean,
  policy: TargetPolicy,
  signal: AbortSignal,
  redirects: number,
): Promise<Downloaded | Attachments.DownloadFailure> => {
  if (!Attachments.allowedSchemes(sandbox).includes(url.protocol))
    return permanent(`the scheme ${url.protocol.slice(0, -1)} is not allowed (https only)`)
  const target = await resolve(url.hostname, policy)
  if (isFailure(target)) return target
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }
  const client = url.protocol === "https:" ? https : http
  return new Promise((done) => {
    const request = client.get(
      url,
      { lookup: pinned, signal, headers: { accept: Attachments.allowedContentTypes.join(", ") } },
      (response) => {
        const status = response.statusCode ?? 0
        const finish = (result: Downloaded | Attachments.DownloadFailure) => {
          response.destroy()
          done(result)
        }
        if (status >= 300 && status < 400) {
          const location = response.headers.location
          if (location === undefined) return finish(permanent(`redirect ${status} without a location`))
          const next = new URL(location, url)
          if (next.host !== url.host) return finish(permanent(`redirected to another host (${next.host})`))
          if (redirects <= 0) return finish(permanent("too many redirects"))
          response.destroy()
          get(next, sandbox, policy, signal, redirects - 1).then(done, (error) => done(transient(String(error))))
          return
        }
        if (status !== 200)
          return finish(
            status === 408 || status === 429 || status >= 500
              ? transient(`the server answered ${status}`)
              : permanent(`the server answered ${status}`),
          )
        const header = response.headers["content-type"]
        const contentType = Attachments.acceptedContentType(header)
        if (contentType === undefined)
          return finish(permanent(`content type ${header ?? "(none)"} is not accepted (PDF, PNG or JPEG)`))
        const declared = Number(response.headers["content-length"] ?? "0")
        if (declared > Attachments.maxBytes) return finish(permanent(`larger than ${Attachments.maxBytes} bytes`))
        const chunks: Array<Buffer> = []
        let size = 0
        response.on("data", (chunk: Buffer) => {
          size += chunk.byteLength
          if (size > Attachments.maxBytes) return finish(permanent(`larger than ${Attachments.maxBytes} bytes`))
          chunks.push(chunk)
        })
        response.on("end", () => {
          const bytes = Buffer.concat(chunks)
          done({ contentType, bytes: new Uint8Array(bytes), sha256: createHash("sha256").update(bytes).digest("hex") })
        })
        response.on("error", (error) => done(transient(error.message)))
      },
    )
    request.on("error", (error: NodeJS.ErrnoException) =>
      done(
        transient(signal.aborted ? `timed out after ${Attachments.timeoutMillis} ms` : (error.code ?? error.message)),
      ),
    )
  })
}

/**
 * Downloads `url` under the domain's rules and the address `policy` (default: every non-public address
 * refused unless `sandbox`): the document, or why not.
 */
export const download = (
  url: string,
  sandbox: boolean,
  policy: TargetPolicy = { refusePrivateAddresses: !sandbox },
): Effect.Effect<Downloaded, Attachments.DownloadFailure> =>
  Effect.callback<Downloaded, Attachments.DownloadFailure>((resume, signal) => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return resume(Effect.fail(permanent("not a valid URL")))
    }
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), Attachments.timeoutMillis)
    signal.addEventListener("abort", () => controller.abort())
    get(parsed, sandbox, policy, controller.signal, 3).then(
      (result) => {
        clearTimeout(timer)
        resume(isFailure(result) ? Effect.fail(result) : Effect.succeed(result))
      },
      (error) => {
        clearTimeout(timer)
        resume(Effect.fail(transient(String(error))))
      },
    )
  })

/** One poll: register new attachments, try each due download once and record the outcome; the downloads tried. */
export const step = (options: Options) => {
  let lastDiscovery = Number.NEGATIVE_INFINITY
  return Effect.gen(function* () {
    const store = yield* Attachments.PaymentAttachments
    // The service's address policy (WebhookTarget.ts); production refuses non-public addresses whatever it says.
    const configured = yield* WebhookTargetPolicy
    const policy = options.sandbox ? configured : { ...configured, refusePrivateAddresses: true }
    const now = yield* Clock.currentTimeMillis
    if (now - lastDiscovery >= (options.discoverEveryMillis ?? 10_000)) {
      lastDiscovery = now
      yield* store.discover(100)
    }
    const due = yield* store.claimDue(now, options.batchSize ?? 4, 2 * Attachments.timeoutMillis)
    for (const attachment of due) {
      const attempts = attachment.attempts + 1
      yield* download(attachment.url, options.sandbox, policy).pipe(
        Effect.matchEffect({
          onSuccess: Traced.fn("AttachmentFetcher.onStored")(function* (downloaded) {
            const notification = Attachments.statusNotification(
              attachment,
              { status: "Stored", contentType: downloaded.contentType, sizeBytes: downloaded.bytes.byteLength },
              yield* DateTime.now,
            )
            yield* store.recordStored(attachment.id, downloaded, notification)
          }),
          onFailure: Traced.fn("AttachmentFetcher.onFailure")(function* (failure) {
            const outcome = Attachments.afterFailure(failure, attempts, yield* Clock.currentTimeMillis)
            yield* Effect.logInfo("attachment download failed", {
              attachmentId: attachment.id,
              attempts,
              reason: failure.reason,
              outcome: outcome._tag,
            })
            const notification =
              outcome._tag === "Failed"
                ? Attachments.statusNotification(
                    attachment,
                    { status: "Failed", reason: failure.reason },
                    yield* DateTime.now,
                  )
                : undefined
            yield* store.recordFailure(attachment.id, { reason: failure.reason, attempts, outcome }, notification)
          }),
        }),
      )
    }
    return due.length
  })
}

export const layer = (options: Options) => worker(name, options.idleMillis ?? 1000, step(options))
