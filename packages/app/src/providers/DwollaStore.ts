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
 *
 * A payer's references (its customer, Dwolla's or Stripe's, and its funding
 * sources keyed `payer-account:`) are kept sealed for the payer
 * (`customer:<registrationId>`, the personal-data vault), as `sealed:<value>`:
 * the payer's erasure makes them unreadable (found as none; a new one kept
 * then replaces the unreadable row), and the table
 * holds none in clear. A row kept in clear before is read as is and sealed
 * at that read (`PgFundingSources.reseal`). Without a vault in context (never
 * in the service) they are kept in clear.
 */
import { PgFundingSources } from "@partnerpay/adapters-pg"
import { CustomerPersonalData, PersonalData, Providers } from "@partnerpay/domain"
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

/** The prefix of a sealed reference in `provider_funding_sources`. */
export const sealedPrefix = "sealed:"

/** The data subject of a payer's reference (`payer:`, `payer-account:` keys), if it is one. */
export const subjectOf = (ownerId: string): string | undefined => {
  const match = /^payer(?:-account)?:([^:]+)/.exec(ownerId)
  return match?.[1] === undefined ? undefined : CustomerPersonalData.customerSubject(match[1])
}

const storeOn = (
  sql: SqlClient,
  provider: string = DwollaClient.provider,
  vault?: PersonalData.PersonalDataVault["Service"],
): Store => {
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient>) =>
    effect.pipe(
      Effect.provideService(SqlClient, sql),
      Effect.mapError(() => unavailable("the funding sources cannot be read (database)")),
    )
  const vaultError = Effect.mapError(() => unavailable("the payer's references cannot be sealed (personal data)"))
  const seal = (subject: string, value: string) =>
    Effect.map(vault === undefined ? Effect.succeed(value) : vault.seal(subject, value), (sealed) =>
      vault === undefined ? sealed : `${sealedPrefix}${sealed}`,
    ).pipe(vaultError)
  /** The reference in a kept value: opened (none once the payer is erased), or a clear one sealed now. */
  const reveal = (ownerId: string, kept: string | undefined) => {
    const subject = subjectOf(ownerId)
    if (kept === undefined || subject === undefined || vault === undefined) return Effect.succeed(kept)
    if (kept.startsWith(sealedPrefix))
      return vault.open(subject, kept.slice(sealedPrefix.length)).pipe(Effect.map(Option.getOrUndefined), vaultError)
    return Effect.flatMap(seal(subject, kept), (sealed) =>
      run(PgFundingSources.reseal(provider, ownerId, kept, sealed)),
    ).pipe(Effect.ignore, Effect.as(kept))
  }
  return {
    find: (ownerId) => Effect.flatMap(run(PgFundingSources.find(provider, ownerId)), (kept) => reveal(ownerId, kept)),
    keep: (ownerId, fundingSource) => {
      const subject = subjectOf(ownerId)
      return Effect.flatMap(
        subject === undefined ? Effect.succeed(fundingSource) : seal(subject, fundingSource),
        (value) =>
          Effect.flatMap(run(PgFundingSources.keep(provider, ownerId, value)), (kept) =>
            Effect.flatMap(reveal(ownerId, kept), (revealed) =>
              // kept for the payer before an erasure (unreadable now): replaced by the new one
              revealed === undefined && kept !== value
                ? Effect.as(run(PgFundingSources.reseal(provider, ownerId, kept, value)), fundingSource)
                : Effect.succeed(revealed ?? fundingSource),
            ),
          ),
      )
    },
    customerOf: (companyId) => run(PgFundingSources.kybSubmissionOf(companyId)),
    accountOf: (registrationId, bankAccountId) => run(PgFundingSources.linkedAccountOf(registrationId, bankAccountId)),
  }
}

const none = () => Effect.fail(unavailable("no database for the funding sources"))
const unstored: Store = { find: none, keep: none, customerOf: none, accountOf: none }

/** The store on the service's database, when there is one (payers' references sealed with the vault in context). */
export const current: Effect.Effect<Store> = Effect.suspend(() => currentFor(DwollaClient.provider))

/**
 * The same store for another provider's references (`provider_funding_sources` rows of `provider`): the
 * Stripe customers of our payers (`StripeCardProcessor.ts`).
 */
export const currentFor = (provider: string): Effect.Effect<Store> =>
  Effect.map(
    Effect.all([Effect.serviceOption(SqlClient), Effect.serviceOption(PersonalData.PersonalDataVault)]),
    ([sql, vault]) =>
      Option.match(sql, {
        onNone: () => unstored,
        onSome: (client) => storeOn(client, provider, Option.getOrUndefined(vault)),
      }),
  )
