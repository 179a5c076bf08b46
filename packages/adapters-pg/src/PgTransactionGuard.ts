/**
 * The guard against a provider called inside an open database transaction
 * (issue 34: a message sender that waited on a slow provider inside the
 * payment notifier's transaction held its locks, and every request statement
 * pipelined behind one that waited on them, for good).
 *
 * Every client the connection layers make (`PgDatabase.layerPostgres`,
 * `layerPglite`) is registered here; `isInTransaction` tells whether the
 * current fiber runs inside a transaction of any of them (`sql.withTransaction`
 * puts the client's transaction connection in the fiber's context).
 * `guardService(port, service)` wraps every method of a provider port so that a
 * call made while a transaction is open is a defect naming the port
 * (`ProviderCalledInTransaction`) under the tests (vitest sets `VITEST`) and
 * when PARTNERPAY_TRANSACTION_GUARD=die, else an error log line (the call goes
 * on). The app wraps every provider port with it (`ProviderGuard.ts`).
 *
 * The unit of work (`PgUnitOfWork`) opens no transaction (one `commit_unit`
 * statement at the end), so a provider called by a use case outside
 * `sql.withTransaction` is never flagged.
 */
import { Context, Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"

const transactionServices = new Set<SqlClient["transactionService"]>()

/** Remembers `sql`'s transaction service (each client has its own). */
export const register = (sql: SqlClient): void => {
  transactionServices.add(sql.transactionService)
}

/** Whether `context` holds an open transaction of any registered client. */
export const inTransaction = (context: Context.Context<never>): boolean => {
  for (const service of transactionServices) {
    if (Context.getOrUndefined(context, service) !== undefined) return true
  }
  return false
}

/** Whether the current fiber runs inside a database transaction. */
export const isInTransaction: Effect.Effect<boolean> = Effect.map(Effect.context<never>(), inTransaction)

/** A provider port was called while a database transaction was open (a defect: see the module doc). */
export class ProviderCalledInTransaction extends Error {
  readonly _tag = "ProviderCalledInTransaction"
  readonly port: string
  constructor(port: string) {
    super(`provider port ${port} called inside an open database transaction`)
    this.name = "ProviderCalledInTransaction"
    this.port = port
  }
}

/** Whether a call inside a transaction dies (tests, PARTNERPAY_TRANSACTION_GUARD=die) or is logged. */
export const dies = (): boolean =>
  process.env.PARTNERPAY_TRANSACTION_GUARD === "die" ||
  (process.env.VITEST !== undefined && process.env.PARTNERPAY_TRANSACTION_GUARD !== "log")

/** Fails (defect) or logs when the current fiber is inside a transaction; nothing otherwise. */
export const check = (port: string): Effect.Effect<void> =>
  Effect.flatMap(isInTransaction, (inside) => {
    if (!inside) return Effect.void
    const defect = new ProviderCalledInTransaction(port)
    return dies() ? Effect.die(defect) : Effect.logError(defect.message)
  })

/** `service` with each method returning an effect guarded by `check(port)` first. */
export const guardService = <S extends object>(port: string, service: S): S => {
  const guarded: Record<string, unknown> = {}
  for (const key of Object.keys(service)) {
    const value = (service as Record<string, unknown>)[key]
    guarded[key] =
      typeof value === "function"
        ? (...args: Array<unknown>) => {
            const result = (value as (...args: Array<unknown>) => unknown).apply(service, args)
            return Effect.isEffect(result) ? Effect.andThen(check(`${port}.${key}`), result) : result
          }
        : value
  }
  return guarded as S
}
