/**
 * Connection layers giving an `SqlClient` (and `PgClient`) from
 * @effect/sql-pg, either to a PostgreSQL server or to an embedded PGlite
 * database driven through the same client (see `PgliteBridge.ts`).
 *
 * New PGlite clusters come from a cached, pre-initialised image instead of
 * initdb (`openPglite`, `PgliteImage.ts`).
 *
 * Types as decoded by the client: bigint columns arrive as JS `bigint`,
 * jsonb as parsed JSON, timestamptz as `Date`. Stores convert at their edge.
 */

import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import type { PGlite, PGliteOptions } from "@electric-sql/pglite"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { connect, makeSession } from "./PgliteBridge.ts"
import * as PgliteImage from "./PgliteImage.ts"
import * as PgTransactionGuard from "./PgTransactionGuard.ts"

/** The default test/development server. */
export const defaultUrl = "postgres://postgres@127.0.0.1:5432/test"

/** `DATABASE_URL` from the environment, or `defaultUrl`. */
export const urlFromEnv = (): string => process.env.DATABASE_URL ?? defaultUrl

export interface PostgresOptions {
  /** Pool size (default 10). */
  readonly maxConnections?: number
  /**
   * Pipeline statements of concurrent fibers on each pooled connection (default true): statements
   * that are not in a transaction share a connection and go out in one write, which saves the
   * per-statement socket cost under load. Transactions still reserve a connection.
   */
  readonly multiplex?: boolean
  /**
   * How many statements share one pooled connection before the pool opens the next (default 32,
   * the client's). A statement outside a transaction is a transaction of its own, and a session
   * commits one at a time, each commit waiting for its WAL flush: with fewer to a session,
   * concurrent commits run on more sessions and share flushes (group commit), at the price of more
   * socket writes and backend wake-ups per statement. Measured on a 2-core machine: event store
   * appends by 32 writers with little else to do, 5,000 events/s at 32, 10,000 at 4; the service
   * under load, which is CPU-bound, registers companies about 20% faster at 32 than at 4-8 (5-7
   * statements per socket write instead of 2-4). Lower it where commits wait on slow storage.
   */
  readonly multiplexConcurrency?: number
  /** Session settings sent at connect, e.g. `{ search_path: "my_schema" }`. */
  readonly startupParameters?: Readonly<Record<string, string>>
  readonly connectTimeoutMillis?: number
  /** Every session's timeouts (default `defaultSessionTimeouts`). */
  readonly timeouts?: SessionTimeouts
}

/**
 * The timeouts every pooled session sets at connect (issue 34: nothing waits for ever). A
 * statement that runs longer than `statementMillis`, waits on a lock longer than `lockMillis`,
 * or a transaction left idle longer than `idleInTransactionMillis` is ended by the server (its
 * session closed for the last one): the statement fails, the request answers 503 with
 * Retry-After, a worker tries again next round. `lockMillis` also bounds how long the statements
 * pipelined behind a waiting one on a shared session are held up (docs/decisions.md). Migrations
 * and projection rebuilds lift them for their own transaction.
 */
export interface SessionTimeouts {
  readonly statementMillis: number
  readonly lockMillis: number
  readonly idleInTransactionMillis: number
  /**
   * How long a statement waits for a session of a busy pool (every session at its pipelining limit, or
   * reserved by a transaction), opening one included; past it the statement fails with a `SqlError`
   * whose reason is a `ConnectionError` of operation `"acquire"` (`isAcquireTimeout`): 503 with
   * Retry-After to a request, counted as `partnerpay_database_timeouts_total{kind="acquire"}`. The
   * pool's own bound (the patched `@effect/sql-pg` PgPool's `acquireTimeout`), not a session setting.
   * Default `defaultSessionTimeouts.acquireMillis`.
   */
  readonly acquireMillis?: number
}

/**
 * The defaults (PARTNERPAY_DB_STATEMENT_TIMEOUT_MS, PARTNERPAY_DB_LOCK_TIMEOUT_MS,
 * PARTNERPAY_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS, PARTNERPAY_DB_ACQUIRE_TIMEOUT_MS).
 */
export const defaultSessionTimeouts: SessionTimeouts & { readonly acquireMillis: number } = {
  statementMillis: 15_000,
  lockMillis: 1_000,
  idleInTransactionMillis: 10_000,
  acquireMillis: 5_000,
}

/** The startup parameters that set `timeouts` on a session. */
export const timeoutParameters = (timeouts: SessionTimeouts): Record<string, string> => ({
  statement_timeout: `${Math.round(timeouts.statementMillis)}`,
  lock_timeout: `${Math.round(timeouts.lockMillis)}`,
  idle_in_transaction_session_timeout: `${Math.round(timeouts.idleInTransactionMillis)}`,
})

/** The client of `layer`, registered with the transaction guard (`PgTransactionGuard`). */
const registered = <E>(
  layer: Layer.Layer<PgClient.PgClient | SqlClient, E>,
): Layer.Layer<PgClient.PgClient | SqlClient, E> =>
  Layer.tap(layer, (context) => Effect.sync(() => PgTransactionGuard.register(Context.get(context, SqlClient))))

/** A pooled client for a PostgreSQL server; every session with its timeouts (`SessionTimeouts`). */
export const layerPostgres = (
  url: string,
  options: PostgresOptions = {},
): Layer.Layer<PgClient.PgClient | SqlClient, SqlError> =>
  registered(
    PgClient.layer({
      url: Redacted.make(url),
      maxConnections: options.maxConnections ?? 10,
      multiplex: options.multiplex ?? true,
      multiplexConcurrency: options.multiplexConcurrency ?? 32,
      connectTimeout: options.connectTimeoutMillis ?? 5000,
      acquireTimeout: options.timeouts?.acquireMillis ?? defaultSessionTimeouts.acquireMillis,
      startupParameters: {
        ...timeoutParameters(options.timeouts ?? defaultSessionTimeouts),
        ...options.startupParameters,
      },
    }),
  )

export interface PgliteOptions {
  /** Directory holding the database files; omitted: in memory, lost at the end of the layer. */
  readonly dataDir?: string
  /**
   * Where pre-initialised cluster images are cached (see `PgliteImage.ts`); default
   * `PgliteImage.defaultCacheDir()`. `false`: no image, every new cluster runs initdb.
   */
  readonly imageCacheDir?: string | false
  /**
   * PostgreSQL's `shared_buffers` (default `16MB`). It lives in PGlite's WebAssembly heap, so
   * PostgreSQL's own default (128MB) grows the heap past its initial 128 MB and costs resident memory.
   */
  readonly sharedBuffers?: string
}

/** How `openPglite` got its cluster: an existing one, loaded from the cached image, or made by initdb. */
export type PgliteOrigin = "existing" | "image" | "initdb"

/**
 * Written into an empty data directory before a cluster is put there and removed once PGlite is
 * ready: found at open, it means that an earlier start was interrupted half-way (PGlite writes the
 * cluster file by file), so the directory is emptied and the cluster made again.
 */
export const initialisingMarker = ".partnerpay-initialising"

const defaultSharedBuffers = "16MB"

type DataDirState = "cluster" | "empty" | "interrupted" | "other"

const inspectDataDir = (dataDir: string): DataDirState => {
  if (existsSync(join(dataDir, initialisingMarker))) return "interrupted"
  if (existsSync(join(dataDir, "PG_VERSION"))) return "cluster"
  try {
    return readdirSync(dataDir).length === 0 ? "empty" : "other"
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "empty"
    throw error
  }
}

/** Empties `dataDir` (keeping the directory itself), then marks it as being initialised. */
const resetDataDir = (dataDir: string): string => {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true })
  const marker = join(dataDir, initialisingMarker)
  writeFileSync(marker, `${process.pid}\n`, { mode: 0o600 })
  return marker
}

/**
 * Opens a PGlite database (see `PgliteOptions`). A new cluster (empty or missing `dataDir`, or in
 * memory) is loaded from the cached image when there is one; otherwise initdb makes it and, if the
 * cache is writable, the fresh cluster is dumped as the image for the next ones. An image PGlite
 * cannot load is discarded and the cluster made by initdb. A directory with other files and no
 * cluster is left to PGlite as before (initdb over it).
 */
export const openPglite = async (options: PgliteOptions = {}): Promise<{ db: PGlite; origin: PgliteOrigin }> => {
  const { dataDir } = options
  // Loaded here, not with this module: a service on a PostgreSQL server never loads PGlite.
  const { PGlite } = await import("@electric-sql/pglite")
  const defaults = (PGlite as unknown as { readonly defaultStartParams?: ReadonlyArray<string> }).defaultStartParams
  const base: PGliteOptions =
    defaults === undefined
      ? {}
      : { startParams: [...defaults, "-c", `shared_buffers=${options.sharedBuffers ?? defaultSharedBuffers}`] }
  const open = async (extra: PGliteOptions): Promise<PGlite> => {
    const db = dataDir === undefined ? new PGlite({ ...base, ...extra }) : new PGlite(dataDir, { ...base, ...extra })
    try {
      await db.waitReady
      return db
    } catch (error) {
      await db.close().catch(() => undefined)
      throw error
    }
  }

  let marker: string | undefined
  if (dataDir !== undefined) {
    const state = inspectDataDir(dataDir)
    if (state === "cluster") return { db: await open({}), origin: "existing" }
    if (state === "other") return { db: await open({}), origin: "initdb" }
    marker = resetDataDir(dataDir)
  }
  const cachePath =
    options.imageCacheDir === false
      ? undefined
      : PgliteImage.imagePath(options.imageCacheDir ?? PgliteImage.defaultCacheDir())
  const image = cachePath === undefined ? undefined : PgliteImage.read(cachePath)
  let opened: { db: PGlite; origin: PgliteOrigin } | undefined
  if (cachePath !== undefined && image !== undefined) {
    try {
      if (dataDir === undefined) {
        opened = { db: await open({ loadDataDir: new Blob([image]) }), origin: "image" }
      } else {
        await PgliteImage.extract(image, dataDir)
        opened = { db: await open({}), origin: "image" }
      }
    } catch {
      PgliteImage.discard(cachePath)
      if (dataDir !== undefined) marker = resetDataDir(dataDir)
    }
  }
  if (opened === undefined) {
    const db = await open({})
    opened = { db, origin: "initdb" }
    // The cluster is whole: unmark it first, so that the image does not carry the marker.
    if (marker !== undefined) rmSync(marker, { force: true })
    if (cachePath !== undefined && PgliteImage.writable(cachePath)) {
      // Best effort: without an image the next new cluster runs initdb again.
      await PgliteImage.dump(db).then(
        (tarGz) => PgliteImage.write(cachePath, tarGz),
        () => false,
      )
    }
  }
  if (marker !== undefined) rmSync(marker, { force: true })
  return opened
}

/**
 * An embedded PGlite database behind the regular @effect/sql-pg client.
 * PGlite has a single backend session, so the pool holds exactly one
 * connection (kept open) and does not multiplex: a transaction reserves the
 * only connection and other fibers wait for it, so statements of concurrent
 * transactions never interleave. Opened by `openPglite` (new clusters come
 * from the cached image).
 */
export const layerPglite = (options: PgliteOptions = {}): Layer.Layer<PgClient.PgClient | SqlClient, SqlError> =>
  registered(
    PgClient.layerFrom(
      Effect.gen(function* () {
        const session = yield* Effect.acquireRelease(
          Effect.gen(function* () {
            const started = Date.now()
            const { db, origin } = yield* Effect.promise(() => openPglite(options))
            yield* Effect.logDebug("PGlite opened").pipe(Effect.annotateLogs({ origin, millis: Date.now() - started }))
            return makeSession(db)
          }),
          (session) =>
            Effect.promise(async () => {
              await session.idle()
              await session.db.close()
            }),
        )
        return yield* PgClient.make({
          stream: () => connect(session),
          ssl: false,
          username: "postgres",
          database: "postgres",
          maxConnections: 1,
          minConnections: 1,
          multiplex: false,
        })
      }),
    ),
  )
