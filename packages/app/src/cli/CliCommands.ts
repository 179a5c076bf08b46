/**
 * The operator command line (`pnpm partnerpay <command>`, entry point
 * `src/cli.ts`), built with Effect's CLI module. It reads the same
 * configuration as the service (DATABASE_URL, or the embedded PGlite database
 * in PARTNERPAY_DATA_DIR) and uses the same layers (`Database`, `Domain`) and
 * the same operations as the operator API (`Operations.ts`).
 *
 * Output is human-readable by default; `--json` prints one JSON document on
 * stdout for scripts. Long commands (migrate, projections rebuild) show their
 * progress on stderr (Progress.ts: a line rewritten in place on a terminal,
 * JSON lines with `--json`). Failures print one line on stderr and exit with
 * code 1.
 * Logs go to stderr at Warn level (never mixed into stdout).
 *
 * PGlite is single-process: on the embedded database, a command fails with a
 * clear message while the service (or another command) holds the data
 * directory (`Database.DatabaseInUse`); use the operator API meanwhile.
 */

import { Migrations, PgDomain, PgMetrics, PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { Traced } from "@partnerpay/domain"
import { Cause, Console, DateTime, Effect, Layer, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { SqlClient } from "effect/sql/SqlClient"
import * as Config from "../config/Config.ts"
import * as DataKey from "../config/DataKey.ts"
import * as TokenSecret from "../config/TokenSecret.ts"
import * as Domain from "../Domain.ts"
import * as Database from "../database/Database.ts"
import * as Logging from "../observability/Logging.ts"
import * as Erasure from "../operator/Erasure.ts"
import * as FeeOperations from "../operator/FeeOperations.ts"
import * as LedgerCheck from "../operator/LedgerCheck.ts"
import * as Operations from "../operator/Operations.ts"
import * as WebhookTarget from "../workers/WebhookTarget.ts"
import * as LedgerCommands from "./LedgerCommands.ts"
import * as Listen from "./Listen.ts"
import * as ListenCommands from "./ListenCommands.ts"
import * as Progress from "./Progress.ts"

const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print one JSON document (for scripts) instead of text"),
  Flag.withDefault(false),
)

const print = (asJson: boolean, value: unknown, text: () => string) =>
  Console.log(asJson ? JSON.stringify(value, null, 2) : text())

/** A human message for a failure (never a secret: errors carry none). */
export const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (error instanceof Config.ConfigInvalid || error instanceof Database.DatabaseInUse) return error.message
  if (error instanceof Operations.InvalidInput) {
    return `invalid input: ${error.issues.map((issue) => `${issue.field} ${issue.message}`).join("; ")}`
  }
  if (error instanceof Operations.UnsafeUrl) return `invalid input: ${error.field} ${error.message}`
  if (error instanceof Listen.ListenFailed) return error.message
  if (error instanceof LedgerCheck.LedgerDoesNotBalance) return `the ledger is wrong: ${error.problems.join("; ")}`
  if (error instanceof Operations.NotFound) return `${error.entity} not found`
  if (error instanceof Operations.DeliveryInProgress) {
    return `the delivery is ${error.status}: it is already queued for delivery`
  }
  if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "EventStoreUnavailable") {
    return `the database is unavailable: ${(error as { reason?: string }).reason ?? ""}`
  }
  return Cause.pretty(cause)
}

/** Runs `effect` on the configured database (connection only: no migration). */
const onDatabase = Traced.fn("CliCommands.onDatabase")(function* <A, E, R>(effect: Effect.Effect<A, E, R>) {
  const config = yield* Config.load
  return yield* Effect.provide(
    effect,
    Database.layerForCommands(config.database) as Layer.Layer<Exclude<R, never>, unknown>,
  )
})

/** Runs `effect` with the service's domain stack (migrations applied first, as at service start). */
const withDomain = Traced.fn("CliCommands.withDomain")(function* <
  A,
  E,
  R extends Domain.DomainPorts | Domain.DomainRequirements,
>(effect: Effect.Effect<A, E, R>) {
  const config = yield* Config.load
  return yield* Effect.provide(
    Effect.provideService(effect, WebhookTarget.WebhookTargetPolicy, WebhookTarget.policyOf(config)),
    Domain.layerWith(config).pipe(
      Layer.provideMerge(Database.layerForCommands(config.database)),
      Layer.provide(TokenSecret.pepperLayer(config)),
    ) as Layer.Layer<Domain.DomainPorts | Domain.DomainRequirements, unknown>,
  )
})

/** One progress line per migration applied (stderr; JSON lines with --json). */
const migrationLine = (asJson: boolean) => (applied: Migrations.Applied) =>
  Effect.sync(() =>
    process.stderr.write(
      asJson
        ? `${JSON.stringify({ progress: { operation: "migrate", applied: applied.migration, elapsedMs: applied.millis } })}\n`
        : `applied ${applied.migration} (${applied.millis} ms)\n`,
    ),
  )

const migrate = Command.make("migrate", { json }, ({ json }) =>
  onDatabase(Migrations.runReporting(migrationLine(json))).pipe(
    Effect.flatMap((applied) =>
      print(json, { applied: applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`) }, () =>
        applied.length === 0
          ? "The database is up to date: no migration applied."
          : `Applied ${applied.length} migration(s): ${applied.map(([id, name]) => `${id} ${name}`).join(", ")}`,
      ),
    ),
  ),
).pipe(Command.withDescription("Apply the pending schema migrations (a no-op when the database is up to date)"))

const rebuild = Command.make("rebuild", { json }, ({ json }) =>
  Effect.suspend(() => {
    const progress = Progress.onStderr("rebuilding read models", "events", json)
    let last = { replayed: 0, total: 0 }
    return withDomain(
      PgDomain.rebuildProjections({
        onProgress: (replayed, total) =>
          Effect.sync(() => {
            last = { replayed, total }
            progress.update(replayed, total)
          }),
      }),
    ).pipe(Effect.tap(() => Effect.sync(() => progress.finish(last.replayed, last.total))))
  }).pipe(
    Effect.flatMap((eventsReplayed) =>
      print(json, { eventsReplayed }, () => `Rebuilt the read models: ${eventsReplayed} event(s) replayed.`),
    ),
  ),
).pipe(
  Command.withDescription(
    "Rebuild every read model from the event log (one transaction; appends wait meanwhile). Shows progress on stderr (events done, events/s, ETA; JSON lines with --json) and prints the number of events replayed",
  ),
)

const projections = Command.make("projections").pipe(
  Command.withDescription("Read-model maintenance"),
  Command.withSubcommands([rebuild]),
)

const create = Command.make(
  "create",
  { name: Flag.String("name").pipe(Flag.withDescription("The partner's name (1 to 200 characters)")), json },
  ({ name, json }) =>
    withDomain(Operations.createPartner({ name })).pipe(
      Effect.flatMap((created) =>
        print(json, Operations.encodeCreated(created), () =>
          [
            "Partner created.",
            `  partnerId:    ${created.partnerId}`,
            `  clientId:     ${created.clientId}`,
            `  clientSecret: ${Operations.encodeCreated(created).clientSecret}`,
            "The client secret is shown only now (only its hash is stored): hand it to the partner securely.",
          ].join("\n"),
        ),
      ),
    ),
).pipe(Command.withDescription("Create a partner with a new ClientId and ClientSecret (the secret is shown once)"))

const partnerIdArgument = Argument.String("partnerId").pipe(Argument.withDescription("The partner's id (a UUID)"))

const rotateSecret = Command.make("rotate-secret", { partnerId: partnerIdArgument, json }, ({ partnerId, json }) =>
  withDomain(Operations.rotateSecret(partnerId)).pipe(
    Effect.flatMap((rotated) =>
      print(json, Operations.encodeCreated(rotated), () =>
        [
          "Client secret rotated; the old secret and every token issued so far no longer work.",
          `  partnerId:    ${rotated.partnerId}`,
          `  clientId:     ${rotated.clientId}`,
          `  clientSecret: ${Operations.encodeCreated(rotated).clientSecret}`,
          "The client secret is shown only now: hand it to the partner securely.",
        ].join("\n"),
      ),
    ),
  ),
).pipe(
  Command.withDescription(
    "Give a partner a new ClientSecret (shown once); the old one and every token issued so far stop working at once",
  ),
)

const revokeTokens = Command.make("revoke-tokens", { partnerId: partnerIdArgument, json }, ({ partnerId, json }) =>
  withDomain(Operations.revokeTokens(partnerId)).pipe(
    Effect.flatMap((revoked) =>
      print(
        json,
        revoked,
        () =>
          `Every token of partner ${revoked.partnerId} is revoked (running instances refuse them within a few seconds); its ClientSecret still works.`,
      ),
    ),
  ),
).pipe(Command.withDescription("Revoke every access token issued to a partner so far (its ClientSecret keeps working)"))

const setWebhook = Command.make(
  "set-webhook",
  {
    partnerId: partnerIdArgument,
    url: Flag.String("url").pipe(Flag.withDescription("The webhook endpoint (absolute http:// or https:// URL)")),
    signingSecret: Flag.Redacted("signing-secret").pipe(
      Flag.withDescription(
        "The HMAC-SHA256 signing secret (X-HMAC-Signature, X-Partnerpay-Signature); never printed. Omitted: one is generated and printed once",
      ),
      Flag.optional,
    ),
    json,
  },
  ({ partnerId, url, signingSecret, json }) =>
    withDomain(Operations.setWebhook({ partnerId, url, signingSecret: Option.getOrUndefined(signingSecret) })).pipe(
      Effect.flatMap((result) =>
        print(json, result, () =>
          "signingSecret" in result
            ? `Webhook of partner ${result.partnerId} set to ${result.url}, signed with the generated secret ${result.signingSecret} (shown only now; the partner can read it with GET /Webhooks/Endpoint).`
            : `Webhook of partner ${result.partnerId} set to ${result.url} (signed).`,
        ),
      ),
    ),
).pipe(Command.withDescription("Set a partner's webhook URL and signing secret"))

const partners = Command.make("partners").pipe(
  Command.withDescription("Partner onboarding"),
  Command.withSubcommands([create, rotateSecret, revokeTokens, setWebhook]),
)

const list = Command.make(
  "list",
  {
    status: Flag.Literals("status", Operations.deliveryStatuses).pipe(
      Flag.withDescription("Only deliveries in this status"),
      Flag.optional,
    ),
    limit: Flag.Int("limit").pipe(
      Flag.withDescription(`How many, newest first (1 to ${Operations.maxDeliveryLimit})`),
      Flag.withDefault(Operations.defaultDeliveryLimit),
    ),
    json,
  },
  Traced.fn("CliCommands.listDeliveries")(function* ({ status, limit, json }) {
    if (!Number.isInteger(limit) || limit < 1 || limit > Operations.maxDeliveryLimit) {
      return yield* new Operations.InvalidInput({
        issues: [{ field: "--limit", message: `must be between 1 and ${Operations.maxDeliveryLimit}` }],
      })
    }
    const deliveries = yield* withDomain(
      Operations.listDeliveries(Option.isSome(status) ? { status: status.value, limit } : { limit }),
    )
    const data = deliveries.map(Operations.encodeDelivery)
    yield* print(json, { data }, () =>
      data.length === 0
        ? "No deliveries."
        : data
            .map(
              (d) =>
                `${d.id}  ${d.status.padEnd(10)} attempts=${d.attempts}  ${d.eventType}  partner=${d.partnerId}  created=${d.createdAt}` +
                (d.nextAttemptAt === null ? "" : `  next=${d.nextAttemptAt}`) +
                (d.lastError === null ? "" : `  lastError=${JSON.stringify(d.lastError)}`),
            )
            .join("\n"),
    )
  }),
).pipe(Command.withDescription("List recent webhook deliveries, newest first (no payloads, no secrets)"))

const redeliver = Command.make(
  "redeliver",
  {
    id: Argument.String("id").pipe(
      Argument.withDescription("The delivery id (the notification's event id); or use --failed --since"),
      Argument.optional,
    ),
    failed: Flag.Boolean("failed").pipe(
      Flag.withDescription("Every failed delivery recorded since --since"),
      Flag.withDefault(false),
    ),
    since: Flag.String("since").pipe(
      Flag.withDescription("With --failed: an ISO 8601 instant, e.g. 2026-11-20T00:00:00Z"),
      Flag.optional,
    ),
    json,
  },
  Traced.fn("CliCommands.redeliver")(function* ({ id, failed, since, json }) {
    if (!failed) {
      if (Option.isNone(id) || Option.isSome(since)) {
        return yield* new Operations.InvalidInput({
          issues: [{ field: "id", message: "give a delivery id, or --failed --since <ISO instant>" }],
        })
      }
      yield* withDomain(Operations.redeliver(id.value))
      return yield* print(json, { id: id.value, status: "pending" }, () => {
        return `Delivery ${id.value} queued again (the service delivers it).`
      })
    }
    const instant = Option.flatMap(since, (raw) =>
      /^\d{4}-\d{2}-\d{2}T/.test(raw) ? DateTime.make(raw) : Option.none(),
    )
    if (Option.isSome(id) || Option.isNone(instant)) {
      return yield* new Operations.InvalidInput({
        issues: [
          Option.isSome(id)
            ? { field: "id", message: "is not used with --failed" }
            : { field: "--since", message: "must be an ISO 8601 instant, e.g. 2026-11-20T00:00:00Z" },
        ],
      })
    }
    const from = DateTime.toUtc(instant.value)
    const progress = (queued: number, total: number) => (json ? Effect.void : Console.log(`queued ${queued}/${total}`))
    const result = yield* withDomain(Operations.redeliverFailed(from, progress))
    return yield* print(json, { since: DateTime.formatIso(from), ...result }, () =>
      result.total === 0
        ? `No failed deliveries since ${DateTime.formatIso(from)}.`
        : `${result.queued} failed deliveries since ${DateTime.formatIso(from)} queued again (the service delivers them).`,
    )
  }),
).pipe(
  Command.withDescription(
    "Queue a failed or delivered webhook delivery again, or every failed one since an instant (--failed --since)",
  ),
)

const webhooks = Command.make("webhooks").pipe(
  Command.withDescription("Webhook deliveries"),
  Command.withSubcommands([list, redeliver]),
)

const eraseCustomer = Command.make(
  "erase",
  {
    registrationId: Argument.String("registrationId").pipe(Argument.withDescription("The customer's registration id")),
    json,
  },
  ({ registrationId, json }) =>
    withDomain(Erasure.eraseCustomer(registrationId)).pipe(
      Effect.flatMap((erased) =>
        print(
          json,
          erased,
          () =>
            `Customer ${registrationId}: personal data erased (${erased.keysDeleted} key(s) deleted), every token revoked (running instances refuse them within their generation refresh, about 2 s).`,
        ),
      ),
    ),
).pipe(
  Command.withDescription(
    "Erase a customer's personal data (deletes their data keys; docs/personal-data.md) and revoke their tokens",
  ),
)

const customers = Command.make("customers").pipe(
  Command.withDescription("Customers' personal data"),
  Command.withSubcommands([eraseCustomer]),
)

const eraseOwner = Command.make(
  "erase-owner",
  { companyId: Argument.String("companyId").pipe(Argument.withDescription("The company's id")), json },
  ({ companyId, json }) =>
    withDomain(Erasure.eraseCompanyOwner(companyId)).pipe(
      Effect.flatMap((erased) =>
        print(
          json,
          erased,
          () => `Company ${companyId}: owner's personal data erased (${erased.keysDeleted} key(s) deleted).`,
        ),
      ),
    ),
).pipe(Command.withDescription("Erase the personal data of a company's owner (deletes the owner's data key)"))

const companies = Command.make("companies").pipe(
  Command.withDescription("Companies' personal data"),
  Command.withSubcommands([eraseOwner]),
)

const rotateMaster = Command.make(
  "rotate-master",
  { json },
  Traced.fn("CliCommands.rotateMaster")(function* ({ json }) {
    const config = yield* Config.load
    const current = yield* DataKey.resolve(config)
    const next = yield* DataKey.resolveNew
    const rewrapped = yield* Effect.provide(
      Effect.andThen(Migrations.run, PgPersonalDataVault.rotateMaster(current, next)),
      Database.layerForCommands(config.database),
    )
    const keyFile = yield* DataKey.replaceSandboxFile(config, next)
    yield* print(
      json,
      { rewrapped, masterKeyId: PgPersonalDataVault.masterKeyId(next), keyFile: Option.getOrNull(keyFile) },
      () =>
        `Re-wrapped ${rewrapped} data key(s) under the new master key (${PgPersonalDataVault.masterKeyId(next)}). ` +
        (Option.isSome(keyFile)
          ? `The sandbox key file ${keyFile.value} now holds the new key.`
          : `Now set ${DataKey.variable} to the new key and restart the service.`),
    )
  }),
).pipe(
  Command.withDescription(
    `Master key rotation: re-wrap every data key from the current master key (${DataKey.variable}) to the new one (${DataKey.newVariable}), in one transaction. Stop the service first`,
  ),
)

const keys = Command.make("keys").pipe(
  Command.withDescription("The data master key (personal data encryption)"),
  Command.withSubcommands([rotateMaster]),
)

const negativeBalances = Command.make(
  "balances",
  {
    negative: Flag.Boolean("negative").pipe(
      Flag.withDescription("List the companies whose available balance is negative (the only listing so far)"),
      Flag.withDefault(true),
    ),
    json,
  },
  ({ json }) =>
    onDatabase(Effect.flatMap(SqlClient, (sql) => PgMetrics.negativeBalancesStatement(sql))).pipe(
      Effect.flatMap((rows) => {
        const now = Date.now()
        const balances = rows.map((row) => ({
          companyId: row.company_id,
          partnerId: row.partner_id,
          negative: row.available.filter((amount) => amount.minorUnits < 0),
          deficitSince: row.deficit_since,
          ageSeconds: row.deficit_since === null ? null : Math.round((now - Date.parse(row.deficit_since)) / 1000),
        }))
        return print(json, { balances }, () =>
          balances.length === 0
            ? "No company has a negative balance."
            : balances
                .map(
                  (b) =>
                    `${b.companyId} (partner ${b.partnerId}): ${b.negative.map((a) => `${a.minorUnits} ${a.currency} minor units`).join(", ")}; ${b.deficitSince === null ? "not seen by a payout run yet" : `deficit since ${b.deficitSince} (${b.ageSeconds} s)`}`,
                )
                .join("\n"),
        )
      }),
    ),
).pipe(
  Command.withDescription(
    "Companies whose available balance is negative (refunds or returns after payout), with the deficit's age: the payout worker debits the payout account once PARTNERPAY_DEFICIT_GRACE_MS has passed",
  ),
)

const amountFlag = (name: string, description: string) =>
  Flag.Finite(name).pipe(Flag.withDescription(`${description} (a decimal in --currency)`), Flag.optional)

/** The wire form of an amount flag, for the shared validation (`FeeOperations.termsOf`). */
const wireAmount = (value: Option.Option<number>, currency: string) =>
  Option.match(value, { onNone: () => null, onSome: (v) => ({ value: v, currencyCode: currency }) })

const feesText = (result: ReturnType<typeof FeeOperations.encode>) =>
  result.rails
    .map((rail) => {
      const money = (amount: { readonly value: number; readonly currencyCode: string } | null) =>
        amount === null ? "none" : `${amount.value} ${amount.currencyCode}`
      return `${rail.rail}: platform fee ${rail.percentageBasisPoints} bps + ${money(rail.fixed)}; provider cost ${money(rail.providerCost)}; return fee ${money(rail.returnFee)}${rail.returnFeePassedOn ? " (passed on to the company)" : ""}`
    })
    .join("\n")

const showFees = Command.make("show", { partnerId: partnerIdArgument, json }, ({ partnerId, json }) =>
  withDomain(FeeOperations.show(partnerId)).pipe(
    Effect.flatMap((result) => print(json, result, () => feesText(result))),
  ),
).pipe(Command.withDescription("Show a partner's fee schedule per rail (AchDebit, Card)"))

const setFees = Command.make(
  "set",
  {
    partnerId: partnerIdArgument,
    rail: Flag.Literals("rail", FeeOperations.rails).pipe(Flag.withDescription("The rail: AchDebit or Card")),
    percentageBps: Flag.Int("percentage-bps").pipe(
      Flag.withDescription("The platform fee's percentage in basis points (150 = 1.50%), 0 to 10000"),
      Flag.withDefault(0),
    ),
    fixed: amountFlag("fixed", "The platform fee's fixed amount per collection"),
    providerCost: amountFlag("provider-cost", "The provider's cost per collection (the platform's expense)"),
    returnFee: amountFlag("return-fee", "The provider's fee per returned debit (the platform's expense)"),
    passReturnFee: Flag.Boolean("pass-return-fee").pipe(
      Flag.withDescription("Pass the return fee on to the company (taken from its balance)"),
      Flag.withDefault(false),
    ),
    currency: Flag.String("currency").pipe(Flag.withDescription("The amounts' currency"), Flag.withDefault("USD")),
    json,
  },
  ({ partnerId, rail, percentageBps, fixed, providerCost, returnFee, passReturnFee, currency, json }) =>
    withDomain(
      FeeOperations.set(partnerId, rail, {
        percentageBasisPoints: percentageBps,
        fixed: wireAmount(fixed, currency),
        providerCost: wireAmount(providerCost, currency),
        returnFee: wireAmount(returnFee, currency),
        returnFeePassedOn: passReturnFee,
      }),
    ).pipe(Effect.flatMap((result) => print(json, result, () => feesText(result)))),
).pipe(
  Command.withDescription(
    "Set a partner's fee schedule for one rail: collections initiated from now on record it (packages/domain/docs/Fees.md)",
  ),
)

const fees = Command.make("fees").pipe(
  Command.withDescription("Platform fees, provider costs and return fees per partner and rail"),
  Command.withSubcommands([showFees, setFees]),
)

/** The root command. */
export const partnerpay = Command.make("partnerpay").pipe(
  Command.withDescription(
    "partnerpay operator commands. Configuration as for the service: DATABASE_URL, or the embedded database in PARTNERPAY_DATA_DIR",
  ),
  Command.withSubcommands([
    migrate,
    projections,
    partners,
    webhooks,
    customers,
    companies,
    keys,
    negativeBalances,
    fees,
    LedgerCommands.ledgerCommand(onDatabase, json),
    ListenCommands.listenCommand,
    ListenCommands.triggerCommand,
  ]),
)

/** Runs the CLI on `process.argv`; logs to stderr (Warn and above). */
export const run = Command.run(partnerpay, { version: "0.1.0" }).pipe(
  Effect.provide(
    Logging.layer("Warn", (line) => {
      process.stderr.write(`${line}\n`)
    }),
  ),
)
