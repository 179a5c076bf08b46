/**
 * The workers' transaction-level advisory locks (`pg_try_advisory_xact_lock(namespace, key)`): each
 * worker that handles one item per transaction locks it first, so that of several instances exactly
 * one handles it. The first key names the worker (one namespace each, so two workers never skip each
 * other's items on a colliding key); the second is derived from the item's id.
 *
 * Since issue 34 no worker takes them (a transaction held around an item's work waited on the
 * other pool): the workers claim items in `work_claims` instead (`ItemClaims.ts`,
 * `PaymentNotifier.ts`). The namespaces stay reserved, so that an older instance running beside a
 * newer one during a rolling deploy never shares a key with anything new.
 */
import { createHash } from "node:crypto"

/** One namespace per worker (arbitrary, fixed, distinct). */
export const namespaces = {
  planScheduler: 74603985,
  paymentNotifier: 74603986,
  recurringCharity: 74603987,
  autoCollection: 74603988,
} as const

/** The second key of an item's lock: the first 32 bits of its id's SHA-256. */
export const keyOf = (id: string): number => createHash("sha256").update(id).digest().readInt32BE(0)
