/**
 * The workers' transaction-level advisory locks (`pg_try_advisory_xact_lock(namespace, key)`): each
 * worker that handles one item per transaction locks it first, so that of several instances exactly
 * one handles it. The first key names the worker (one namespace each, so two workers never skip each
 * other's items on a colliding key); the second is derived from the item's id.
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
