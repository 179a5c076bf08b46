/**
 * What the Dwolla adapters keep and find in the service's database: the
 * funding sources made for our bank accounts and the Dwolla customers made for
 * our payers (`provider_funding_sources`, migration 39), a company's customer
 * (its KYB submission) and a payer's linked account (the customers read
 * model). A payer's funding source is keyed by the linked account as the
 * bank-link provider describes it (`payerAccountKey`: the payer, the
 * institution, the last four digits, the type), the identity by which the
 * domain knows a linked account again, so the funding source made at link
 * time is found from our bank account id at the first debit.
 *
 * The adapters' layers take the database when the service has one
 * (`current`); without one (never in the service) every lookup is
 * `ProviderUnavailable`.
 */
import { PgFundingSources } from "@partnerpay/adapters-pg"
import { Providers } from "@partnerpay/domain"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as DwollaClient from "./DwollaClient.ts"

/** A payer's linked account as the domain records it (no name: it is sealed). */
export interface LinkedAccount {
  readonly institutionId: string
  readonly mask: string
  readonly type: string
}

export interface Store {
  readonly find: (ownerId: string) => Effect.Effect<string | undefined, Providers.ProviderUnavailable>
  readonly keep: (ownerId: string, fundingSource: string) => Effect.Effect<string, Providers.ProviderUnavailable>
  readonly customerOf: (companyId: string) => Effect.Effect<string | undefined, Providers.ProviderUnavailable>
  readonly accountOf: (
    registrationId: string,
    bankAccountId: string,
  ) => Effect.Effect<LinkedAccount | undefined, Providers.ProviderUnavailable>
}

/** The key of a payer's funding source: the linked account's identity. */
export const payerAccountKey = (registrationId: string, account: LinkedAccount): string =>
  `payer-account:${registrationId}:${account.institutionId}:${account.mask}:${account.type}`

/** The key of a payer's Dwolla customer. */
export const payerKey = (registrationId: string): string => `payer:${registrationId}`

/** A payer's funding source for our bank account `bankAccountId`: kept for it, or made at link time. */
export const payerFundingSource = (store: Store, registrationId: string, bankAccountId: string) =>
  Effect.flatMap(store.find(bankAccountId), (kept) =>
    kept !== undefined
      ? Effect.succeed<string | undefined>(kept)
      : Effect.flatMap(store.accountOf(registrationId, bankAccountId), (account) =>
          account === undefined ? Effect.succeed(undefined) : store.find(payerAccountKey(registrationId, account)),
        ),
  )

const unavailable = (reason: string) => new Providers.ProviderUnavailable({ provider: DwollaClient.provider, reason })

const storeOn = (sql: SqlClient, provider: string = DwollaClient.provider): Store => {
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient>) =>
    effect.pipe(
      Effect.provideService(SqlClient, sql),
      Effect.mapError(() => unavailable("the funding sources cannot be read (database)")),
    )
  return {
    find: (ownerId) => run(PgFundingSources.find(provider, ownerId)),
    keep: (ownerId, fundingSource) => run(PgFundingSources.keep(provider, ownerId, fundingSource)),
    customerOf: (companyId) => run(PgFundingSources.kybSubmissionOf(companyId)),
    accountOf: (registrationId, bankAccountId) => run(PgFundingSources.linkedAccountOf(registrationId, bankAccountId)),
  }
}

const none = () => Effect.fail(unavailable("no database for the funding sources"))
const unstored: Store = { find: none, keep: none, customerOf: none, accountOf: none }

/** The store on the service's database, when there is one. */
export const current: Effect.Effect<Store> = Effect.map(Effect.serviceOption(SqlClient), (sql) =>
  Option.match(sql, { onNone: () => unstored, onSome: storeOn }),
)

/**
 * The same store for another provider's references (`provider_funding_sources` rows of `provider`): the
 * Stripe customers of our payers (`StripeCardProcessor.ts`).
 */
export const currentFor = (provider: string): Effect.Effect<Store> =>
  Effect.map(Effect.serviceOption(SqlClient), (sql) =>
    Option.match(sql, { onNone: () => unstored, onSome: (client) => storeOn(client, provider) }),
  )
