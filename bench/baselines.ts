/**
 * The hand-written ceiling servers of bench/run.ts (child processes, never run by hand).
 * Each is a plain `node:http` server on 127.0.0.1 (a free port), driven by the same
 * autocannon load process and the same requests (method, path, headers, body) as the
 * service scenarios it bounds. It prints `{"port":N}` once listening and runs until
 * SIGTERM, on which it stops accepting, closes its database (PGlite: cleanly, so the
 * service can reopen the directory) and exits 0.
 *
 *   node bench/baselines.ts bare
 *     (a) Answers every request with a fixed small JSON body; reads nothing, checks nothing.
 *
 *   node bench/baselines.ts read      (database in BENCH_DATABASE, token secret in BENCH_TOKEN_SECRET)
 *     (b) The read ceiling. Per request: the bearer token is checked by hand as an HS256
 *     JWT (node:crypto `createHmac("sha256")` over `header.payload`, `timingSafeEqual`
 *     against the signature, `alg`, `iss`/`aud` and `exp` checked, the partner id taken
 *     from `sub`), then ONE statement, the indexed SELECT the service runs for a read
 *     model document (PgReadModelStore `get`):
 *       SELECT id, partner_id, keys, sort_key, data FROM read_models WHERE collection = $1 AND id = $2
 *     `GET /company/status?companyId=X` reads ("companies", X), `GET /Transaction/{id}`
 *     reads ("transfers", id); a row of another partner is a 404 like in the service.
 *     Answers the row's `data` as JSON.
 *
 *   node bench/baselines.ts write     (database in BENCH_DATABASE)
 *     (c) The write ceiling. Per request: reads and parses the JSON body (when there is
 *     one), then ONE single-row INSERT into `bench_ceiling_events`, a table shaped like
 *     the event store's `events` (identity position, stream id/type/version, unique
 *     event id, type, schema version, jsonb data and metadata, timestamp; the same
 *     unique indexes), with the body (or the id from the path) as `data`.
 *     The INSERT runs in autocommit: a single statement outside BEGIN/COMMIT IS one
 *     transaction, with its own commit (and WAL flush); an explicit BEGIN/INSERT/COMMIT
 *     would only add two round trips, so autocommit is the higher, stricter ceiling.
 *     Answers `{"eventId": ...}`. No token check (the issue's ceiling is "one INSERT
 *     transaction per request").
 *
 *   node bench/baselines.ts token     (database in BENCH_DATABASE, BENCH_TOKEN_SECRET, BENCH_SECRET_PEPPER)
 *     (d) The token-endpoint ceiling (POST /auth/token). Per request: reads and parses the
 *     JSON body `{ ClientId, ClientSecret }`, then ONE statement reading the partner row and
 *     its token generation (the service's `partners` and `token_generations` tables):
 *       SELECT p.partner_id, p.secret_hash, g.generation FROM partners p
 *         LEFT JOIN token_generations g ON g.subject = 'partner:' || p.partner_id WHERE p.client_id = $1
 *     checks the secret as the service stores it (`hmac-sha256$` + base64 of HMAC-SHA-256
 *     under the pepper, `timingSafeEqual`), then signs an HS256 JWT with node:crypto carrying
 *     the service's claims (iss, aud, sub, scope, gen, auth_time, iat, exp, jti) and `kid`,
 *     and answers `{ AccessToken, TokenType, ExpiresInSeconds }`. A wrong pair is 401.
 *
 *   node bench/baselines.ts unit      (database in BENCH_DATABASE)
 *     (e) The unit ceiling (issue 27): what a command's unit of work writes, by hand, in ONE
 *     statement (autocommit, like `commit_unit`): per request, reads and parses the JSON body,
 *     then one statement of four data-modifying CTEs on tables shaped like the service's
 *     (`CREATE TABLE ... (LIKE <table> INCLUDING ALL)`, so the same columns, keys and indexes):
 *     bumps the stream's version (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING version`),
 *     inserts the event at that version, upserts the read-model document (a new revision from
 *     the service's `read_model_revisions` sequence) and inserts the outbox row at the event's
 *     position. `POST /Company/Create` writes a new stream and document, `PUT
 *     /Payment/{id}/Cancel` the stream and document of the id in the path. No token check, no
 *     decision, no projection: the essential writes only. Answers `{"eventId": ...}`.
 *
 * BENCH_DATABASE: `{"kind":"postgres","url":...,"poolSize":10}` or `{"kind":"pglite","dataDir":...}`.
 * Both go through the service's own client, @effect/sql-pg, built by the service's
 * own layers (packages/adapters-pg/src/PgDatabase.ts): `layerPostgres` with the same
 * pool size as the service, `layerPglite` on the service's PGlite data directory (one
 * session, as in the service). PGlite is single-process: the PGlite servers take the
 * same lock file as the service (`<dataDir>.lock`, see packages/app/src/database/Database.ts),
 * so they refuse to open a directory the service holds, and the service refuses theirs.
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PgDatabase from "../packages/adapters-pg/src/PgDatabase.ts"

interface DatabaseSpec {
  readonly kind: "postgres" | "pglite"
  readonly url?: string
  readonly dataDir?: string
  readonly poolSize?: number
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void

const send = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
}
const fail = (response: ServerResponse, status: number, reason: string) =>
  send(response, status, JSON.stringify({ status, detail: reason }))

/** Listens on 127.0.0.1, prints the port, resolves when SIGTERM/SIGINT closed the server. */
const serve = (handler: Handler): Promise<void> =>
  new Promise((resolve) => {
    const server = createServer(handler)
    server.keepAliveTimeout = 30_000
    server.listen(0, "127.0.0.1", () => {
      process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`)
    })
    const stop = () => {
      server.close(() => resolve())
      server.closeAllConnections()
    }
    process.once("SIGTERM", stop)
    process.once("SIGINT", stop)
  })

// ---------------------------------------------------------------------------------------------
// (a) bare

const bare = () => {
  const body = JSON.stringify({ CompanyId: "6f1c1b7e-2a4b-4c7e-9f2a-1b2c3d4e5f60", Status: "Verified" })
  return serve((_request, response) => send(response, 200, body))
}

// ---------------------------------------------------------------------------------------------
// the database, through the service's client

/** The PGlite lock protocol of packages/app/src/database/Database.ts: `<dataDir>.lock` holding the owner's pid. */
const lockPglite = (dataDir: string): (() => void) => {
  const path = `${dataDir.replace(/\/+$/, "")}.lock`
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx", mode: 0o600 })
      return () => rmSync(path, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    const owner = Number(readFileSync(path, "utf8").trim())
    let alive = false
    try {
      process.kill(owner, 0)
      alive = true
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === "EPERM"
    }
    if (Number.isSafeInteger(owner) && owner > 0 && alive)
      throw new Error(`${dataDir} is held by process ${owner}: PGlite allows one process at a time`)
    rmSync(path, { force: true })
  }
  throw new Error(`cannot take the lock ${path}`)
}

/** Runs `program` with the service's SqlClient on the database of `spec`, then closes it. */
const withDatabase = async (spec: DatabaseSpec, program: Effect.Effect<void, unknown, SqlClient>) => {
  if (spec.kind === "postgres") {
    if (spec.url === undefined) throw new Error("postgres needs url")
    const host = new URL(spec.url).hostname
    if (host !== "127.0.0.1" && host !== "localhost") throw new Error("the benchmark only uses a local database")
    await Effect.runPromise(
      program.pipe(Effect.provide(PgDatabase.layerPostgres(spec.url, { maxConnections: spec.poolSize ?? 10 }))),
    )
    return
  }
  if (spec.dataDir === undefined) throw new Error("pglite needs dataDir")
  const unlock = lockPglite(spec.dataDir)
  try {
    await Effect.runPromise(program.pipe(Effect.provide(PgDatabase.layerPglite({ dataDir: spec.dataDir }))))
  } finally {
    unlock()
  }
}

// ---------------------------------------------------------------------------------------------
// (b) read: HS256 bearer check by hand + the read model SELECT

const base64url = (text: string) => Buffer.from(text, "base64url")

/**
 * The partner id a valid HS256 token names, or undefined: the checks of Tokens.verify (signature,
 * `alg`, `exp`, issuer and audience "partnerpay", partner scope). A claim the service's tokens
 * may stop carrying (`iss`, `aud`, `scope`) is checked when present, so that the ceiling keeps
 * working when the token format is trimmed.
 */
const verifyBearer = (header: string | undefined, key: Buffer): string | undefined => {
  if (header === undefined || !header.startsWith("Bearer ")) return undefined
  const token = header.slice(7).trim()
  const firstDot = token.indexOf(".")
  const secondDot = token.indexOf(".", firstDot + 1)
  if (firstDot < 1 || secondDot < 0 || token.indexOf(".", secondDot + 1) !== -1) return undefined
  const expected = createHmac("sha256", key).update(token.slice(0, secondDot)).digest()
  const given = base64url(token.slice(secondDot + 1))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const head = JSON.parse(base64url(token.slice(0, firstDot)).toString("utf8")) as { alg?: unknown }
    if (head.alg !== "HS256") return undefined
    const claims = JSON.parse(base64url(token.slice(firstDot + 1, secondDot)).toString("utf8")) as Record<
      string,
      unknown
    >
    const now = Date.now() / 1000
    if (typeof claims.exp !== "number" || claims.exp <= now) return undefined
    const present = (name: string, value: string) => claims[name] === undefined || claims[name] === value
    if (!present("iss", "partnerpay") || !present("aud", "partnerpay") || !present("scope", "partner")) return undefined
    return typeof claims.sub === "string" ? claims.sub : undefined
  } catch {
    return undefined
  }
}

interface ReadModelRow {
  readonly id: string
  readonly partner_id: string
  readonly keys: unknown
  readonly sort_key: string
  readonly data: unknown
}

/**
 * The read-model collection each route reads (packages/domain/src/projections: Companies,
 * Transfers). Should a projection move to another collection, a miss looks the id up once
 * (`SELECT collection ... WHERE id = $1`) and the route follows it: one statement per request.
 */
const collections = { status: "companies", transfer: "transfers" }

/** The read model document a path names: [route, id], or undefined. */
const documentOf = (url: string): readonly [keyof typeof collections, string] | undefined => {
  const question = url.indexOf("?")
  const path = question === -1 ? url : url.slice(0, question)
  if (path === "/company/status") {
    const companyId = new URLSearchParams(url.slice(question + 1)).get("companyId")
    return question === -1 || companyId === null ? undefined : ["status", companyId]
  }
  const transfer = /^\/Transaction\/([^/]+)$/.exec(path)
  return transfer === null ? undefined : ["transfer", decodeURIComponent(transfer[1]!)]
}

const read = (spec: DatabaseSpec) => {
  const secret = process.env.BENCH_TOKEN_SECRET
  if (secret === undefined || secret === "") throw new Error("BENCH_TOKEN_SECRET is not set")
  const key = Buffer.from(secret, "utf8")
  return withDatabase(
    spec,
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const select = (collection: string, id: string) =>
        Effect.runPromise(
          sql<ReadModelRow>`SELECT id, partner_id, keys, sort_key, data FROM read_models WHERE collection = ${collection} AND id = ${id}`,
        )
      const selectFollowing = async (route: keyof typeof collections, id: string) => {
        const rows = await select(collections[route], id)
        if (rows.length > 0) return rows
        const moved = await Effect.runPromise(
          sql<{ collection: string }>`SELECT collection FROM read_models WHERE id = ${id} ORDER BY collection LIMIT 1`,
        )
        if (moved[0] === undefined) return rows
        collections[route] = moved[0].collection
        return select(moved[0].collection, id)
      }
      yield* Effect.promise(() =>
        serve((request, response) => {
          const partnerId = verifyBearer(request.headers.authorization, key)
          if (partnerId === undefined) return fail(response, 401, "invalid token")
          const document = request.method === "GET" ? documentOf(request.url ?? "/") : undefined
          if (document === undefined) return fail(response, 404, "no such route")
          selectFollowing(document[0], document[1]).then(
            (rows) => {
              const row = rows[0]
              if (row === undefined || row.partner_id !== partnerId) fail(response, 404, "not found")
              else send(response, 200, JSON.stringify(row.data))
            },
            (error: unknown) => fail(response, 503, String(error)),
          )
        }),
      )
    }),
  )
}

// ---------------------------------------------------------------------------------------------
// (c) write: parse the body + one single-row INSERT (autocommit)

/** The stream type and data of a write request, or undefined for an unknown route. */
const eventOf = (method: string, path: string, body: unknown): readonly [string, string, unknown] | undefined => {
  if (method === "POST" && path === "/Company/Create") return ["Company", "CompanyRegistered", body]
  const cancel = /^\/Payment\/([^/]+)\/Cancel$/.exec(path)
  if (method === "PUT" && cancel !== null)
    return ["PaymentRequest", "PaymentRequestCancelled", body ?? { paymentRequestId: cancel[1] }]
  return undefined
}

const write = (spec: DatabaseSpec) =>
  withDatabase(
    spec,
    Effect.gen(function* () {
      const sql = yield* SqlClient
      yield* sql`
        CREATE TABLE IF NOT EXISTS bench_ceiling_events (
          global_position bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
          stream_id text NOT NULL,
          stream_type text NOT NULL,
          stream_version integer NOT NULL,
          event_id uuid NOT NULL UNIQUE,
          event_type text NOT NULL,
          schema_version integer NOT NULL,
          data jsonb NOT NULL,
          metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
          recorded_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (stream_id, stream_version)
        )`
      const insert = (streamType: string, eventType: string, data: unknown) => {
        const eventId = randomUUID()
        return Effect.runPromise(
          sql`INSERT INTO bench_ceiling_events (stream_id, stream_type, stream_version, event_id, event_type, schema_version, data, metadata)
              VALUES (${`${streamType}-${randomUUID()}`}, ${streamType}, 1, ${eventId}, ${eventType}, 1,
                      ${JSON.stringify(data)}::jsonb, ${JSON.stringify({ partnerId: "bench", correlationId: eventId })}::jsonb)`,
        ).then(() => eventId)
      }
      yield* Effect.promise(() =>
        serve((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            let body: unknown
            try {
              body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"))
            } catch {
              return fail(response, 400, "malformed JSON body")
            }
            const event = eventOf(request.method ?? "GET", request.url ?? "/", body)
            if (event === undefined) return fail(response, 404, "no such route")
            insert(...event).then(
              (eventId) => send(response, 200, JSON.stringify({ eventId })),
              (error: unknown) => fail(response, 503, String(error)),
            )
          })
        }),
      )
    }),
  )

// ---------------------------------------------------------------------------------------------
// (e) unit: parse the body + one statement bumping the stream, inserting the event, upserting the
// read-model document and inserting the outbox row

const unit = (spec: DatabaseSpec) =>
  withDatabase(
    spec,
    Effect.gen(function* () {
      const sql = yield* SqlClient
      for (const table of ["streams", "events", "read_models", "outbox"]) {
        yield* sql`CREATE TABLE IF NOT EXISTS ${sql(`bench_unit_${table}`)} (LIKE ${sql(table)} INCLUDING ALL)`
      }
      const partnerId = "00000000-0000-4000-8000-00000000beac"
      const commit = (streamType: string, streamId: string, eventType: string, data: unknown) => {
        const eventId = randomUUID()
        const json = JSON.stringify(data)
        return Effect.runPromise(
          sql`
            WITH stream AS (
              INSERT INTO bench_unit_streams (stream_id, stream_type, version, partner_id)
              VALUES (${`${streamType}-${streamId}`}, ${streamType}, 1, ${partnerId})
              ON CONFLICT (stream_id) DO UPDATE SET version = bench_unit_streams.version + 1, updated_at = now()
              RETURNING version
            ), event AS (
              INSERT INTO bench_unit_events (stream_id, stream_type, stream_version, event_id, event_type,
                                             schema_version, data, metadata, partner_id)
              SELECT ${`${streamType}-${streamId}`}, ${streamType}, stream.version, ${eventId}, ${eventType}, 1,
                     ${json}::jsonb, ${JSON.stringify({ partnerId, correlationId: eventId })}::jsonb, ${partnerId}
              FROM stream
              RETURNING global_position
            ), document AS (
              INSERT INTO bench_unit_read_models (collection, id, partner_id, keys, sort_key, data, revision)
              VALUES (${streamType}, ${streamId}, ${partnerId}, ${JSON.stringify({ status: eventType })}::jsonb,
                      ${new Date().toISOString()}, ${json}::jsonb, nextval('read_model_revisions'))
              ON CONFLICT (collection, id) DO UPDATE SET keys = EXCLUDED.keys, data = EXCLUDED.data,
                revision = EXCLUDED.revision
            )
            INSERT INTO bench_unit_outbox (id, partner_id, event_type, data, position)
            SELECT ${eventId}, ${partnerId}, ${eventType}, ${json}::jsonb, event.global_position FROM event`,
        ).then(() => eventId)
      }
      yield* Effect.promise(() =>
        serve((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            let body: unknown
            try {
              body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"))
            } catch {
              return fail(response, 400, "malformed JSON body")
            }
            const path = request.url ?? "/"
            const cancel = /^\/Payment\/([^/]+)\/Cancel$/.exec(path)
            const written =
              request.method === "POST" && path === "/Company/Create"
                ? commit("Company", randomUUID(), "CompanyRegistered", body)
                : request.method === "PUT" && cancel !== null
                  ? commit("PaymentRequest", cancel[1]!, "PaymentRequestCancelled", { paymentRequestId: cancel[1] })
                  : undefined
            if (written === undefined) return fail(response, 404, "no such route")
            written.then(
              (eventId) => send(response, 200, JSON.stringify({ eventId })),
              (error: unknown) => fail(response, 503, String(error)),
            )
          })
        }),
      )
    }),
  )

// ---------------------------------------------------------------------------------------------
// (d) token: parse the body + one SELECT + HMAC secret check + HS256 signature

const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url")

const token = (spec: DatabaseSpec) => {
  const secret = process.env.BENCH_TOKEN_SECRET
  const pepper = process.env.BENCH_SECRET_PEPPER
  if (secret === undefined || secret === "" || pepper === undefined || pepper === "")
    throw new Error("BENCH_TOKEN_SECRET and BENCH_SECRET_PEPPER must be set")
  const key = Buffer.from(secret, "utf8")
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: "bench" }))
  const unmatchable = Buffer.alloc(32)
  return withDatabase(
    spec,
    Effect.gen(function* () {
      const sql = yield* SqlClient
      const find = (clientId: string) =>
        Effect.runPromise(
          sql<{ partner_id: string; secret_hash: string; generation: string | null }>`
            SELECT p.partner_id, p.secret_hash, g.generation FROM partners p
            LEFT JOIN token_generations g ON g.subject = 'partner:' || p.partner_id::text
            WHERE p.client_id = ${clientId}`,
        )
      yield* Effect.promise(() =>
        serve((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            let body: { ClientId?: unknown; ClientSecret?: unknown }
            try {
              body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
            } catch {
              return fail(response, 400, "malformed JSON body")
            }
            if (typeof body.ClientId !== "string" || typeof body.ClientSecret !== "string")
              return fail(response, 400, "ClientId and ClientSecret are required")
            const clientSecret = body.ClientSecret
            find(body.ClientId).then(
              (rows) => {
                const row = rows[0]
                const stored = row?.secret_hash.startsWith("hmac-sha256$")
                  ? Buffer.from(row.secret_hash.slice("hmac-sha256$".length), "base64")
                  : unmatchable
                const given = createHmac("sha256", pepper).update(clientSecret, "utf8").digest()
                if (row === undefined || stored.length !== given.length || !timingSafeEqual(stored, given))
                  return fail(response, 401, "invalid credentials")
                const now = Math.floor(Date.now() / 1000)
                const payload = b64url(
                  JSON.stringify({
                    scope: "partner",
                    gen: Number(row.generation ?? 0),
                    auth_time: now,
                    iss: "partnerpay",
                    aud: "partnerpay",
                    sub: row.partner_id,
                    iat: now,
                    exp: now + 3600,
                    jti: randomUUID(),
                  }),
                )
                const signature = createHmac("sha256", key).update(`${header}.${payload}`).digest("base64url")
                send(
                  response,
                  200,
                  JSON.stringify({
                    AccessToken: `${header}.${payload}.${signature}`,
                    TokenType: "Bearer",
                    ExpiresInSeconds: 3600,
                  }),
                )
              },
              (error: unknown) => fail(response, 503, String(error)),
            )
          })
        }),
      )
    }),
  )
}

// ---------------------------------------------------------------------------------------------

const mode = process.argv[2]
// From the environment, not argv: a database URL may hold a password.
const database = () => JSON.parse(process.env.BENCH_DATABASE ?? "{}") as DatabaseSpec
if (mode === "bare") await bare()
else if (mode === "read") await read(database())
else if (mode === "write") await write(database())
else if (mode === "token") await token(database())
else if (mode === "unit") await unit(database())
else throw new Error("usage: node bench/baselines.ts bare | read | write | token | unit (database in BENCH_DATABASE)")
process.exit(0)
