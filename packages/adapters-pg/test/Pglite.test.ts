/**
 * PGlite through the @effect/sql-pg client: the EventStore contract on an
 * in-memory instance, and the bridge's guarantees on a persisted one
 * (transactions of concurrent fibers never interleave; data survives a reopen);
 * new clusters from the cached data-directory image (PgliteImage), and the
 * fallbacks to initdb.
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { PGlite } from "@electric-sql/pglite"
import { EventStore } from "@partnerpay/domain"
import { EventStoreContract } from "@partnerpay/domain/testing"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as PgDatabase from "../src/PgDatabase.ts"
import * as PgliteImage from "../src/PgliteImage.ts"
import { pgliteStore, storeOn } from "./support.ts"

EventStoreContract.eventStoreContract(
  "PGlite (in memory)",
  pgliteStore(),
  { describe, it, beforeAll, afterAll },
  { timeout: 60_000 },
)

describe("PGlite persisted in a data directory", () => {
  let dataDir = ""
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "partnerpay-pglite-"))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it.live(
    "concurrent fibers each running a multi-statement transaction never interleave",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        yield* sql`CREATE TABLE tx_log (fiber int NOT NULL, step int NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY)`
        // Each transaction writes 5 rows with yields between statements; if another
        // fiber's statements ran inside it, the rows would interleave by seq.
        // Odd fibers roll back, so a leak of a rolled-back statement would show too.
        yield* Effect.forEach(
          Array.from({ length: 16 }, (_, fiber) => fiber),
          (fiber) =>
            sql
              .withTransaction(
                Effect.gen(function* () {
                  for (let step = 0; step < 5; step++) {
                    yield* sql`INSERT INTO tx_log (fiber, step) VALUES (${fiber}, ${step})`
                    yield* Effect.yieldNow
                  }
                  if (fiber % 2 === 1) return yield* Effect.fail("rollback")
                }),
              )
              .pipe(Effect.ignore),
          { concurrency: "unbounded" },
        )
        const rows = yield* sql<{ fiber: number; step: number }>`SELECT fiber, step FROM tx_log ORDER BY seq`
        assert.strictEqual(rows.length, 8 * 5)
        for (let i = 0; i < rows.length; i += 5) {
          const block = rows.slice(i, i + 5)
          assert.deepStrictEqual(
            block.map((row) => row.step),
            [0, 1, 2, 3, 4],
          )
          assert.isTrue(block.every((row) => row.fiber === block[0]?.fiber && row.fiber % 2 === 0))
        }
      }).pipe(Effect.provide(PgDatabase.layerPglite({ dataDir }))),
    60_000,
  )

  it.live(
    "keeps appended events across a close and reopen",
    () =>
      Effect.gen(function* () {
        const streamId = `Persisted-${crypto.randomUUID()}`
        const event = {
          eventId: crypto.randomUUID(),
          eventType: "Noted",
          schemaVersion: 1,
          data: { n: 1 },
          metadata: {},
        }
        yield* Effect.flatMap(EventStore.EventStore, (store) =>
          store.append(streamId, "Persisted", EventStore.ExpectedVersion.noStream, [event]),
        ).pipe(Effect.provide(Layer.fresh(storeOn(PgDatabase.layerPglite({ dataDir })))))
        const read = yield* Effect.flatMap(EventStore.EventStore, (store) => store.readStream(streamId)).pipe(
          Effect.provide(Layer.fresh(storeOn(PgDatabase.layerPglite({ dataDir })))),
        )
        assert.deepStrictEqual(
          read.map((e) => e.eventId),
          [event.eventId],
        )
      }),
    60_000,
  )
})

describe("PGlite new clusters from the cached data-directory image", () => {
  let root = ""
  let cacheDir = ""
  const dir = (name: string) => join(root, name)
  const countRows = async (db: PGlite) =>
    (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM notes")).rows[0]?.n
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "partnerpay-pglite-image-"))
    cacheDir = join(root, "cache")
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it("the first new cluster runs initdb and leaves a valid image in the cache", { timeout: 120_000 }, async () => {
    const { db, origin } = await PgDatabase.openPglite({ dataDir: dir("first"), imageCacheDir: cacheDir })
    await db.exec("CREATE TABLE made_after_open (id int)") // must not reach the image (see below)
    await db.close()
    assert.strictEqual(origin, "initdb")
    const path = PgliteImage.imagePath(cacheDir)
    assert.isDefined(path)
    assert.isDefined(PgliteImage.read(path!))
    assert.isFalse(existsSync(join(dir("first"), PgDatabase.initialisingMarker)))
  })

  it("a fresh data directory opened from the image is a working database that survives a reopen", {
    timeout: 120_000,
  }, async () => {
    const fresh = await PgDatabase.openPglite({ dataDir: dir("fresh"), imageCacheDir: cacheDir })
    assert.strictEqual(fresh.origin, "image")
    await fresh.db.exec("CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)")
    await fresh.db.query("INSERT INTO notes VALUES ($1, $2)", [1, "kept"])
    await fresh.db.close()
    const again = await PgDatabase.openPglite({ dataDir: dir("fresh"), imageCacheDir: cacheDir })
    try {
      assert.strictEqual(again.origin, "existing")
      assert.strictEqual(await countRows(again.db), 1)
    } finally {
      await again.db.close()
    }
  })

  it("the image is a bare cluster: tables of an earlier database are not in it", { timeout: 120_000 }, async () => {
    const { db, origin } = await PgDatabase.openPglite({ dataDir: dir("bare"), imageCacheDir: cacheDir })
    try {
      assert.strictEqual(origin, "image")
      const tables = await db.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
      assert.strictEqual(tables.rows.length, 0)
    } finally {
      await db.close()
    }
  })

  it("an in-memory database is loaded from the image too", { timeout: 120_000 }, async () => {
    const { db, origin } = await PgDatabase.openPglite({ imageCacheDir: cacheDir })
    try {
      assert.strictEqual(origin, "image")
      assert.deepStrictEqual((await db.query("SELECT 1 AS one")).rows, [{ one: 1 }])
    } finally {
      await db.close()
    }
  })

  it.live(
    "the layer works on a fresh data directory opened from the image",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient
        yield* sql`CREATE TABLE notes (id int PRIMARY KEY)`
        yield* sql`INSERT INTO notes VALUES (1), (2)`
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM notes`
        assert.strictEqual(rows[0]?.n, 2)
      }).pipe(Effect.provide(PgDatabase.layerPglite({ dataDir: dir("layer"), imageCacheDir: cacheDir }))),
    120_000,
  )

  it("a corrupt cached image is discarded, initdb makes the cluster and a valid image replaces it", {
    timeout: 120_000,
  }, async () => {
    const path = PgliteImage.imagePath(cacheDir)!
    const valid = readFileSync(path)
    writeFileSync(path, valid.subarray(0, valid.length - 1000)) // truncated: fails its checksum
    const { db, origin } = await PgDatabase.openPglite({ dataDir: dir("corrupt"), imageCacheDir: cacheDir })
    try {
      assert.strictEqual(origin, "initdb")
      assert.deepStrictEqual((await db.query("SELECT 1 AS one")).rows, [{ one: 1 }])
    } finally {
      await db.close()
    }
    assert.isDefined(PgliteImage.read(path))
  })

  it("an image that passes its checksum but PGlite cannot load falls back to initdb", {
    timeout: 120_000,
  }, async () => {
    const path = PgliteImage.imagePath(cacheDir)!
    writeFileSync(path, PgliteImage.encode(gzipSync(Buffer.from("not a tar archive of a cluster".repeat(100)))))
    const { db, origin } = await PgDatabase.openPglite({ dataDir: dir("unloadable"), imageCacheDir: cacheDir })
    try {
      assert.strictEqual(origin, "initdb")
      await db.exec("CREATE TABLE notes (id int)")
      await db.exec("INSERT INTO notes VALUES (1)")
      assert.strictEqual(await countRows(db), 1)
    } finally {
      await db.close()
    }
    assert.isFalse(existsSync(join(dir("unloadable"), PgDatabase.initialisingMarker)))
    const again = await PgDatabase.openPglite({ dataDir: dir("after-unloadable"), imageCacheDir: cacheDir })
    await again.db.close()
    assert.strictEqual(again.origin, "image")
  })

  it("a directory whose initialisation was interrupted is emptied and initialised again", {
    timeout: 120_000,
  }, async () => {
    const interrupted = dir("interrupted")
    mkdirSync(join(interrupted, "base"), { recursive: true })
    writeFileSync(join(interrupted, "PG_VERSION"), "18\n")
    writeFileSync(join(interrupted, "base", "half-written"), "x")
    writeFileSync(join(interrupted, PgDatabase.initialisingMarker), "1\n")
    const { db, origin } = await PgDatabase.openPglite({ dataDir: interrupted, imageCacheDir: cacheDir })
    try {
      assert.strictEqual(origin, "image")
      assert.deepStrictEqual((await db.query("SELECT 1 AS one")).rows, [{ one: 1 }])
    } finally {
      await db.close()
    }
    assert.isFalse(existsSync(join(interrupted, "base", "half-written")))
    assert.isFalse(existsSync(join(interrupted, PgDatabase.initialisingMarker)))
  })

  const tarEntry = (name: string, body: string, type = "0") => {
    const header = Buffer.alloc(512)
    header.write(name, 0, "utf8")
    header.write("0000600", 100)
    header.write(body.length.toString(8).padStart(11, "0"), 124)
    header.write(type, 156)
    header.write("ustar", 257)
    const data = Buffer.alloc(Math.ceil(body.length / 512) * 512)
    data.write(body)
    return Buffer.concat([header, data])
  }
  const tarGzOf = (...entries: Array<Buffer>) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]))

  it("extract writes the image's directories and files into the data directory", async () => {
    const target = dir("extracted")
    await PgliteImage.extract(
      tarGzOf(tarEntry("/PG_VERSION", "17\n"), tarEntry("/base", "", "5"), tarEntry("/base/1/112", "page")),
      target,
    )
    assert.strictEqual(readFileSync(join(target, "PG_VERSION"), "utf8"), "17\n")
    assert.strictEqual(readFileSync(join(target, "base", "1", "112"), "utf8"), "page")
  })

  it("extract refuses entries outside the data directory and links", async () => {
    const outside = tarGzOf(tarEntry("/PG_VERSION", "17\n"), tarEntry("/../escaped", "x"))
    const failed = await PgliteImage.extract(outside, dir("escape-target")).then(
      () => false,
      () => true,
    )
    assert.isTrue(failed)
    assert.isFalse(existsSync(join(root, "escaped")))
    const link = tarGzOf(tarEntry("/PG_VERSION", "17\n"), tarEntry("/base", "", "2"))
    const linkFailed = await PgliteImage.extract(link, dir("link-target")).then(
      () => false,
      () => true,
    )
    assert.isTrue(linkFailed)
  })

  it("a cached image file is accepted only with its header and checksum", () => {
    const tarGz = gzipSync(Buffer.from("payload"))
    const file = PgliteImage.encode(tarGz)
    assert.deepStrictEqual(PgliteImage.decode(file), tarGz)
    const flipped = Buffer.from(file)
    flipped[flipped.length - 1]! ^= 1
    assert.isUndefined(PgliteImage.decode(flipped))
    assert.isUndefined(PgliteImage.decode(file.subarray(0, file.length - 1)))
    assert.isUndefined(PgliteImage.decode(tarGz))
  })
})
