/**
 * The whole-database scan of the personal data tests: every column of every
 * table of the current schema that can hold text (text, varchar, char, json,
 * jsonb, arrays and bytea), searched for plaintext values. Generic: a table or
 * column added by a later migration is scanned without changing the test.
 * Also what the scan covered (rows per read-model collection, outbox rows per
 * webhook type), so a test can show that the data it meant to scan was there.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"

/** Column types whose values can hold a person's text. */
const textTypes = ["text", "character varying", "character", "json", "jsonb", "ARRAY"]

/** Every (table, column) that can hold text, and the values of `needles` found in them ("needle in table.column"). */
export const scan = (needles: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient
    const columns = yield* sql<{ table_name: string; column_name: string; data_type: string }>`
      SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND (c.data_type IN ${sql.in(textTypes)} OR c.data_type = 'bytea')
      ORDER BY c.table_name, c.column_name`
    const found: Array<string> = []
    for (const { table_name, column_name, data_type } of columns) {
      for (const needle of needles) {
        const rows =
          data_type === "bytea"
            ? yield* sql<{ n: number | string }>`
                SELECT count(*) AS n FROM ${sql(table_name)}
                WHERE position(convert_to(${needle}, 'UTF8') IN ${sql(column_name)}) > 0`
            : yield* sql<{ n: number | string }>`
                SELECT count(*) AS n FROM ${sql(table_name)}
                WHERE strpos(${sql(column_name)}::text, ${needle}) > 0`
        if (Number(rows[0]?.n ?? 0) > 0) found.push(`${needle} in ${table_name}.${column_name}`)
      }
    }
    return { columns: columns.map((column) => `${column.table_name}.${column.column_name}`), found }
  })

/** Rows per read-model collection and outbox rows per webhook type: what the scan had to look at. */
export const coverage = Effect.gen(function* () {
  const sql = yield* SqlClient
  const documents = yield* sql<{ collection: string; n: number | string }>`
    SELECT collection, count(*) AS n FROM read_models GROUP BY collection`
  const webhooks = yield* sql<{ event_type: string; n: number | string }>`
    SELECT event_type, count(*) AS n FROM outbox GROUP BY event_type`
  return {
    documents: Object.fromEntries(documents.map((row) => [row.collection, Number(row.n)])),
    webhooks: Object.fromEntries(webhooks.map((row) => [row.event_type, Number(row.n)])),
  }
})
