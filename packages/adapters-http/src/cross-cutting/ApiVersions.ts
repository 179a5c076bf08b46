/**
 * Dated API versions, as Stripe's: a request names the version it was written
 * for in the `Partnerpay-Version` header (`2026-11-25`); without the header, the
 * partner's own version applies, pinned to the latest at its first call. Every
 * answer says which version it was given in (`Partnerpay-Version` response
 * header). The service always works in the latest version; a change that
 * would break an older client comes with a `downgrade` that gives the answer
 * back in the shape of the version before it, so a client pinned to an older
 * version keeps reading what it was written for. Additions (new operations,
 * new optional fields, new webhook types) need no version.
 *
 * To make a breaking change: add a version to `versions` (the date it ships)
 * with the change's description, the operations it concerns and its
 * `downgrade` (or, for a change of every problem answer, its `problem`), and
 * a line in docs/api/versions.md.
 */
import { Context, Effect } from "effect"
import * as Problem from "./Problem.ts"

/** The request and response header naming the version. */
export const header = "Partnerpay-Version"

type Json = { [key: string]: unknown }
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** One breaking change and how an answer is given back as it was before it. */
export interface Change {
  readonly description: string
  /** The operations whose answers it changes: method and path (the path's ids as `[^/]+`). */
  readonly operations: ReadonlyArray<{ readonly method: string; readonly path: RegExp }>
  /** The answer's JSON body as the version before the change gave it. */
  readonly downgrade: (body: unknown) => unknown
  /** A problem answer (`application/problem+json`, of any operation) as the version before gave it. */
  readonly problem?: ((body: unknown) => unknown) | undefined
}

export interface Version {
  /** The date the version shipped (YYYY-MM-DD): its name. */
  readonly version: string
  /** What it changed since the version before (none for the first). */
  readonly changes: ReadonlyArray<Change>
}

/** A status as it was before returns had their own: `Failed`. */
const statusBeforeReturns = (status: unknown): unknown => (status === "Returned" ? "Failed" : status)

/** A payment request or transfer document in the shape before returns had their own status and code. */
const withoutReturns = (document: unknown): unknown => {
  if (!isObject(document)) return document
  const { returnCode: _code, returnReason: _reason, ...rest } = document
  return {
    ...rest,
    ...(rest.status === undefined ? {} : { status: statusBeforeReturns(rest.status) }),
    ...(Array.isArray(rest.statusHistory)
      ? {
          statusHistory: rest.statusHistory.map((change) =>
            isObject(change) ? { ...change, status: statusBeforeReturns(change.status) } : change,
          ),
        }
      : {}),
  }
}

/** What `recipientAccount` said before companies had payout accounts: a placeholder mask. */
const placeholderRecipientAccount = "****0000"

/** A transfer whose company had no payout account, as before payout accounts: the placeholder mask. */
const withPlaceholderRecipient = (document: unknown): unknown =>
  isObject(document) && document.recipientAccount === "pending payout account"
    ? { ...document, recipientAccount: placeholderRecipientAccount }
    : document

/** A list answer `{ data: [...] }` with each document downgraded. */
const eachOf =
  (downgrade: (document: unknown) => unknown) =>
  (body: unknown): unknown =>
    isObject(body) && Array.isArray(body.data) ? { ...body, data: body.data.map(downgrade) } : body

/** A problem whose `type` is a page's path (`/docs/problems/not-found`), with the identifier it had before. */
const withLegacyProblemType = (body: unknown): unknown =>
  isObject(body) && typeof body.type === "string" && body.type.startsWith(Problem.typeBase)
    ? { ...body, type: `${Problem.legacyTypeBase}${body.type.slice(Problem.typeBase.length)}` }
    : body

/**
 * The business-rule codes that reached the wire in the domain's PascalCase before every code was
 * UPPER_SNAKE_CASE (2026-11-29), by their code now. `CONSENT_NOT_ACCEPTED` is not here: the plans'
 * handlers always answered it in UPPER_SNAKE_CASE.
 */
export const pascalCaseRuleCodes: Readonly<Record<string, string>> = {
  CONSENT_MISMATCH: "ConsentMismatch",
  INSTALMENT_ALREADY_COLLECTED: "InstalmentAlreadyCollected",
  INSTALMENT_NOT_DUE: "InstalmentNotDue",
  NOT_AUTOMATIC: "NotAutomatic",
  NOT_DUE: "NotDue",
  NOT_NEXT_INSTALMENT: "NotNextInstalment",
  NOT_THE_PARTNER: "NotThePartner",
  NOT_THE_PAYER: "NotThePayer",
  ORIGINATED_ELSEWHERE: "OriginatedElsewhere",
  OTHER_MOVEMENT: "OtherMovement",
  REFUND_EXCEEDS_PAYMENT: "RefundExceedsPayment",
  REFUND_EXCEEDS_TRANSFER: "RefundExceedsTransfer",
  REFUND_ID_REUSED: "RefundIdReused",
  TRANSFER_MISMATCH: "TransferMismatch",
  UNKNOWN_INSTALMENT_TRANSFER: "UnknownInstalmentTransfer",
}

/** A problem whose rule code is one of `pascalCaseRuleCodes`, with the PascalCase code it had before. */
const withPascalCaseRuleCode = (body: unknown): unknown => {
  if (!isObject(body) || typeof body.code !== "string") return body
  const before = pascalCaseRuleCodes[body.code]
  return before === undefined ? body : { ...body, code: before }
}

/** Every version, oldest first. */
export const versions: ReadonlyArray<Version> = [
  { version: "2026-11-25", changes: [] },
  {
    version: "2026-11-26",
    changes: [
      {
        description:
          "A payment (or transfer) whose bank debit came back after it settled is `Returned` (it was `Failed`), and failed or returned ones carry `returnCode` and `returnReason` (the ACH return code and its description).",
        operations: [
          { method: "GET", path: /^\/Payment\/[^/]+$/ },
          { method: "GET", path: /^\/Transaction\/[^/]+$/ },
        ],
        downgrade: withoutReturns,
      },
      {
        description: "The same on every payment request of `GET /Payment/History`.",
        operations: [{ method: "GET", path: /^\/Payment\/History$/ }],
        downgrade: eachOf(withoutReturns),
      },
      {
        description:
          'A transfer names the company\'s payout account by its mask as `recipientAccount`; one started while the company had none says `"pending payout account"` (it was the placeholder `****0000`).',
        operations: [{ method: "GET", path: /^\/Transaction\/[^/]+$/ }],
        downgrade: withPlaceholderRecipient,
      },
    ],
  },
  {
    version: "2026-11-28",
    changes: [
      {
        description:
          "A problem's `type` is the path of the page documenting it, `/docs/problems/{slug}` (a relative reference, resolved against the request's URI: it dereferences to the page); it was the identifier `https://partnerpay.dev/problems/{slug}`, which does not resolve.",
        operations: [],
        downgrade: (body) => body,
        problem: withLegacyProblemType,
      },
    ],
  },
  {
    version: "2026-11-29",
    changes: [
      {
        description:
          "Every problem `code` is UPPER_SNAKE_CASE: the business-rule codes that were PascalCase (`RefundExceedsTransfer`, `RefundExceedsPayment`, `RefundIdReused`, `NotThePayer`, ...) are `REFUND_EXCEEDS_TRANSFER`, `REFUND_EXCEEDS_PAYMENT`, `REFUND_ID_REUSED`, `NOT_THE_PAYER`, ...",
        operations: [],
        downgrade: (body) => body,
        problem: withPascalCaseRuleCode,
      },
    ],
  },
]

/** The latest version: what the service speaks, and what a new partner is pinned to. */
export const latest: string = versions[versions.length - 1]!.version

const known = new Set(versions.map((v) => v.version))

/** Whether `version` is one of `versions`. */
export const isKnown = (version: string): boolean => known.has(version)

/** The changes made after `version`, newest first: undone in that order to give an answer in `version`. */
const changesAfter = (version: string): ReadonlyArray<Change> =>
  versions
    .filter((v) => v.version > version)
    .flatMap((v) => v.changes)
    .reverse()

/**
 * The answer body `body` (latest shape) of `method path` as version `version` gives it; the same body
 * when no change after `version` concerns the operation.
 */
export const downgrade = (version: string, method: string, path: string, body: unknown): unknown => {
  let shaped = body
  for (const change of changesAfter(version))
    if (change.operations.some((operation) => operation.method === method && operation.path.test(path)))
      shaped = change.downgrade(shaped)
  return shaped
}

/** Whether an answer of `method path` in `version` may differ from the latest (its body must be read). */
export const concerns = (version: string, method: string, path: string): boolean =>
  changesAfter(version).some((change) =>
    change.operations.some((operation) => operation.method === method && operation.path.test(path)),
  )

/** Whether a problem answer in `version` may differ from the latest (its body must be read). */
export const concernsProblems = (version: string): boolean =>
  changesAfter(version).some((change) => change.problem !== undefined)

/** The problem answer `body` (latest shape, of any operation) as version `version` gives it. */
export const downgradeProblem = (version: string, body: unknown): unknown => {
  let shaped = body
  for (const change of changesAfter(version)) if (change.problem !== undefined) shaped = change.problem(shaped)
  return shaped
}

/** Each partner's own version: the one pinned at its first call (the latest then). */
export interface VersionPins {
  /** The partner's version, pinning `latest` when it has none yet. */
  readonly versionOf: (partnerId: string, latest: string) => Effect.Effect<string>
}

/** Pins kept in memory, for the process's life (tests; the service keeps them with the partner). */
export const memoryPins = (): VersionPins => {
  const pinned = new Map<string, string>()
  return {
    versionOf: (partnerId, newest) =>
      Effect.sync(() => {
        const found = pinned.get(partnerId)
        if (found !== undefined) return found
        pinned.set(partnerId, newest)
        return newest
      }),
  }
}

/**
 * Where partners' versions are pinned: in memory unless the application provides its store
 * (`PgPartnerCredentials`' `pinApiVersion`, which keeps the pin with the partner in PostgreSQL).
 */
export const PinnedVersions = Context.Reference<VersionPins>("partnerpay/adapters-http/PinnedVersions", {
  defaultValue: memoryPins,
})
