/**
 * The production KYB worker (`kyb`), when a KYB provider is configured
 * (`PARTNERPAY_PROVIDER_KYB`, e.g. `dwolla`):
 *
 * - **submissions**: Unverified companies without a submission are submitted
 *   (`Companies.submitKyb`: the provider gets the sealed KYB data, the
 *   reference is recorded, the data shredded);
 * - **polls**: Unverified companies with a submission are asked about every
 *   `pollMillis` (`Companies.pollKyb`: a final verdict is recorded by
 *   `completeKyb`, which sends COMPANY_VERIFICATION_STATUS_CHANGED). The
 *   provider's notifications (Dwolla's webhooks, `DwollaWebhooks.ts`) record
 *   verdicts through the same `completeKyb`: whichever comes first decides,
 *   the other changes nothing.
 *
 * Each company is claimed in the database (`PgWorkClaims`, migration 37)
 * before the provider is called: of several instances exactly one works on it,
 * and a failure's backoff (exponential from `backoffMillis`, at most
 * `maxBackoffMillis`) is kept there, so a restart neither forgets it nor
 * hammers the provider. A claim is a lease: an instance that dies while
 * holding one leaves it to another after `leaseMillis`. A submission the
 * provider refuses (or whose data is gone) is tried again only after the
 * longest backoff, logged as a warning for the operator.
 */
import { PgWorkClaims } from "@partnerpay/adapters-pg"
import { Companies, Ids, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { worker } from "./Polling.ts"

export const name = "kyb"

/** The claim kinds of `work_claims`. */
export const submitKind = "kyb-submit"
export const pollKind = "kyb-poll"

/** Companies taken per kind and step. */
export const batchSize = 50

export interface Options {
  /** How often a submitted company's verdict is asked for (and how long the worker idles). */
  readonly pollMillis: number
  /** How long a claim holds a company (an instance that dies frees it after this). */
  readonly leaseMillis: number
  readonly backoffMillis: number
  readonly maxBackoffMillis: number
}

export const defaults = (pollMillis: number): Options => ({
  pollMillis,
  leaseMillis: 60_000,
  backoffMillis: 5_000,
  maxBackoffMillis: 3_600_000,
})

const errorOf = (error: { readonly _tag: string; readonly code?: string }) =>
  error.code === undefined ? error._tag : `${error._tag} ${error.code}`

/** Submits one claimed company; true when submitted (or nothing left to submit). */
const submitOne = Traced.fn("KybWorker.submitOne")(function* (options: Options, id: string, attempts: number) {
  const submitted = yield* Effect.result(Companies.submitKyb(Ids.CompanyId.make(id)))
  if (submitted._tag === "Success") {
    yield* PgWorkClaims.finish(submitKind, id)
    if (submitted.success.submittedNow) yield* Effect.logInfo("KYB submitted", { companyId: id })
    return true
  }
  const error = submitted.failure as { readonly _tag: string; readonly code?: string }
  const final = error._tag === "RuleViolated" || error._tag === "NotFound"
  const wait = final
    ? options.maxBackoffMillis
    : PgWorkClaims.backoffMillis(attempts, options.backoffMillis, options.maxBackoffMillis)
  yield* PgWorkClaims.deferUntil(submitKind, id, wait, errorOf(error))
  yield* Effect.logWarning(final ? "KYB submission refused" : "KYB submission failed, retried later", {
    companyId: id,
    error: errorOf(error),
    attempts,
    retryInMillis: wait,
  })
  return false
})

/** Polls one claimed company; true when its verdict was recorded. */
const pollOne = Traced.fn("KybWorker.pollOne")(function* (options: Options, id: string, attempts: number) {
  const polled = yield* Effect.result(Companies.pollKyb(Ids.CompanyId.make(id)))
  if (polled._tag === "Success" && polled.success !== "Unverified") {
    yield* PgWorkClaims.finish(pollKind, id)
    yield* Effect.logInfo("KYB verdict recorded", { companyId: id, status: polled.success })
    return true
  }
  if (polled._tag === "Success") {
    yield* PgWorkClaims.resetAttempts(pollKind, id)
    yield* PgWorkClaims.deferUntil(pollKind, id, options.pollMillis)
    return false
  }
  const error = polled.failure as { readonly _tag: string; readonly code?: string }
  const wait = Math.max(
    options.pollMillis,
    PgWorkClaims.backoffMillis(attempts, options.backoffMillis, options.maxBackoffMillis),
  )
  yield* PgWorkClaims.deferUntil(pollKind, id, wait, errorOf(error))
  yield* Effect.logWarning("KYB poll failed, retried later", { companyId: id, error: errorOf(error), attempts })
  return false
})

/** One step: the companies submitted and the verdicts recorded. */
export const step = Traced.fn("KybWorker.step")(function* (options: Options) {
  let done = 0
  for (const company of yield* PgWorkClaims.dueKybCompanies(submitKind, false, batchSize)) {
    const attempts = yield* PgWorkClaims.claim(submitKind, company.id, options.leaseMillis)
    if (attempts !== undefined && (yield* submitOne(options, company.id, attempts))) done++
  }
  for (const company of yield* PgWorkClaims.dueKybCompanies(pollKind, true, batchSize)) {
    const attempts = yield* PgWorkClaims.claim(pollKind, company.id, options.leaseMillis)
    if (attempts !== undefined && (yield* pollOne(options, company.id, attempts))) done++
  }
  return done
})

export const layer = (options: Options) =>
  worker(
    name,
    Math.min(options.pollMillis, 1000),
    Effect.suspend(() => step(options)),
  )
