/**
 * `partnerpay ledger check [--as-of <date-time>] [--json]`: prints the trial
 * balance of the platform's books per account (LedgerCheck.ts) and exits 1
 * with a clear message when they do not balance or, for the books of now, when
 * a company's payable disagrees with its balance. Read-only; runs beside the
 * service on PostgreSQL (on the embedded database, use the operator API while
 * the service runs: `GET /admin/ledger/trial-balance`).
 */
import { PgLedger } from "@partnerpay/adapters-pg"
import { Traced, TrialBalance } from "@partnerpay/domain"
import { Console, type Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as LedgerCheck from "../operator/LedgerCheck.ts"
import * as Operations from "../operator/Operations.ts"

/** The `ledger check` command, given how the CLI reaches the database and prints. */
export const ledgerCommand = (
  onDatabase: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, unknown, never>,
  json: Flag.Flag<boolean>,
) => {
  const check = Traced.fn("LedgerCommands.check")(function* (asOf: Option.Option<string>, json: boolean) {
    const instant = Option.isSome(asOf) ? LedgerCheck.parseAsOf(asOf.value) : undefined
    if (Option.isSome(asOf) && instant === undefined)
      return yield* new Operations.InvalidInput({
        issues: [
          { field: "--as-of", message: "must be an ISO 8601 date-time with an offset, e.g. 2026-03-31T23:59:59Z" },
        ],
      })
    const result = yield* onDatabase(PgLedger.check(instant))
    yield* Console.log(json ? JSON.stringify(LedgerCheck.encode(result), null, 2) : LedgerCheck.text(result))
    if (!LedgerCheck.isRight(result))
      return yield* new LedgerCheck.LedgerDoesNotBalance({ problems: result.discrepancies.map(TrialBalance.describe) })
  })
  const command = Command.make(
    "check",
    {
      asOf: Flag.String("as-of").pipe(
        Flag.withDescription(
          "The books as of this instant (ISO 8601 date-time, e.g. 2026-03-31T23:59:59Z); default now",
        ),
        Flag.optional,
      ),
      json,
    },
    ({ asOf, json }) => check(asOf, json),
  ).pipe(
    Command.withDescription(
      "Print the trial balance of the platform's books per account and currency; exit 1 when they do not balance or a company's payable disagrees with its balance",
    ),
  )
  return Command.make("ledger").pipe(
    Command.withDescription('The platform\'s double-entry books (docs/operations.md, "The ledger check")'),
    Command.withSubcommands([command]),
  )
}
