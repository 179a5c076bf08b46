/**
 * Logs of database failures carry the operation, the error's kind and its
 * SQLSTATE code, never the SQL error's message or detail (they quote data).
 */
import { assert, describe, it } from "@effect/vitest"
import { PgDatabase, SqlErrors } from "@partnerpay/adapters-pg"
import { Cause, Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { SqlError, UniqueViolation } from "effect/sql/SqlError"
import * as Logging from "../src/observability/Logging.ts"

const secretValue = "ada.lovelace@example.com"

/** A SQL error as the pg driver reports a duplicate key: message and detail quote the value. */
const duplicateKey = () =>
  new SqlError({
    reason: new UniqueViolation({
      cause: Object.assign(new Error(`duplicate key value violates unique constraint "customers_email_key"`), {
        code: "23505",
        detail: `Key (email)=(${secretValue}) already exists.`,
      }),
      message: `duplicate key value: (email)=(${secretValue})`,
      operation: "execute",
      constraint: "customers_email_key",
    }),
  })

/** Runs `effect` with the service's logger and returns the lines it wrote. */
const logsOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    yield* effect.pipe(Effect.ignore, Effect.provide(Logging.layer("Warn", (line) => lines.push(line))))
    return lines
  })

const assertRedacted = (lines: ReadonlyArray<string>, operation: string) => {
  assert.strictEqual(lines.length, 1, lines.join("\n"))
  const line = lines[0] as string
  assert.notInclude(line, secretValue)
  assert.notInclude(line, "Key (email)")
  assert.include(line, "23505")
  assert.include(line, "UniqueViolation")
  assert.include(line, operation)
}

describe("a database failure logged by an adapter", () => {
  it.effect("names the operation, kind and code, not the values the error quotes", () =>
    Effect.gen(function* () {
      const lines = yield* logsOf(SqlErrors.unavailable("read model query")(Effect.fail(duplicateKey())))
      assertRedacted(lines, "read model query")
      const entry = JSON.parse(lines[0] as string)
      assert.deepStrictEqual(entry.details, {
        operation: "read model query",
        reason: "UniqueViolation",
        code: "23505",
      })
    }),
  )

  it.effect(
    "from a real database: the SQLSTATE of a duplicate key, without the key",
    () =>
      Effect.gen(function* () {
        const failure = Effect.gen(function* () {
          const sql = yield* SqlClient
          yield* sql`CREATE TABLE log_probe (email text PRIMARY KEY)`
          yield* sql`INSERT INTO log_probe (email) VALUES (${secretValue})`
          yield* sql`INSERT INTO log_probe (email) VALUES (${secretValue})`
        }).pipe(SqlErrors.unavailable("probe insert"), Effect.provide(PgDatabase.layerPglite()))
        const lines = yield* logsOf(failure)
        assertRedacted(lines, "probe insert")
      }),
    // An embedded database starts in about a second, several on a busy machine.
    60_000,
  )
})

describe("a SQL error that reaches a log line some other way", () => {
  it.effect("logged as a value, it is replaced by its operation, kind and code", () =>
    Effect.gen(function* () {
      assertRedacted(yield* logsOf(Effect.logWarning("something failed", duplicateKey())), "execute")
    }),
  )

  it.effect("in the cause of an unexpected failure (as a failure or a defect), it is redacted too", () =>
    Effect.gen(function* () {
      const failed = yield* logsOf(Effect.logError("unexpected failure", Cause.fail(duplicateKey())))
      assertRedacted(failed, "execute")
      const died = yield* logsOf(Effect.logError("unexpected failure", Cause.die(duplicateKey())))
      assertRedacted(died, "execute")
    }),
  )

  it.effect("other values and causes are logged as they are", () =>
    Effect.gen(function* () {
      const lines = yield* logsOf(Effect.logError("boom", { count: 3 }, Cause.fail(new Error("plain failure"))))
      assert.include(lines[0], '"count":3')
      assert.include(lines[0], "plain failure")
    }),
  )
})
