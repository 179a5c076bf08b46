/**
 * The payers' Dwolla funding sources, made when a bank account is linked
 * through Plaid (`PlaidBankLinker`, with money movement on Dwolla): the Plaid
 * processor token of the account (`/processor/token/create`, processor
 * `dwolla`) becomes a funding source of the payer's Dwolla customer
 * (`POST /customers/{id}/funding-sources` with `plaidToken`), kept by the
 * linked account's identity (`DwollaStore.payerAccountKey`) for the debits and
 * refunds.
 *
 * The payer's customer is an **unverified customer** (`type: unverified`: its
 * first and last name and e-mail from the payer's KYC, `correlationId` our
 * registration id), made once and kept; an earlier one (an attempt that
 * crashed) is found by the e-mail and the correlation id. Unverified customers
 * may send to and receive from the platform's master funding source, which is
 * all a debit or a refund needs (Dwolla's weekly limits apply). A bank account
 * Dwolla already has for the customer (`DuplicateResource`) is the existing
 * funding source. Without a verified identity (no KYC yet) nothing is made:
 * the debit is refused until the payer links again after KYC.
 */
import { type CustomerProviders, Providers, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import * as DwollaClient from "./DwollaClient.ts"
import * as DwollaStore from "./DwollaStore.ts"

/** A linked account and its processor token. */
export interface PayerAccount {
  readonly registrationId: string
  readonly holder: CustomerProviders.AccountHolder
  readonly processorToken: string
  readonly account: DwollaStore.LinkedAccount & { readonly name: string }
}

/** Makes (or finds) the funding source of a linked account: its Dwolla id. */
export type Maker = (account: PayerAccount) => Effect.Effect<string, Providers.ProviderUnavailable>

const unavailable = (reason: string) => new Providers.ProviderUnavailable({ provider: DwollaClient.provider, reason })

export const make = (config: DwollaClient.DwollaConfig, store: DwollaStore.Store): Maker => {
  const dwolla = DwollaClient.client(config)
  const duplicate = (refusal: DwollaClient.DwollaRefusal) =>
    refusal.code === "DuplicateResource" && refusal.about !== undefined
      ? { _tag: "Existing" as const, id: DwollaClient.idOf(refusal.about) }
      : unavailable("refused")

  const payerCustomer = Traced.fn("DwollaFundingSources.payerCustomer")(function* (
    registrationId: string,
    holder: CustomerProviders.AccountHolder,
  ) {
    const kept = yield* store.find(DwollaStore.payerKey(registrationId))
    if (kept !== undefined) return kept
    const found = yield* DwollaClient.call("customers", () =>
      dwolla.customers.list({ search: holder.emailAddress, limit: 200 }),
    )
    const existing = (found.embedded?.customers ?? []).find((candidate) => candidate.correlationId === registrationId)
    const customerId =
      existing?.id ??
      (yield* DwollaClient.call("create customer", () =>
        dwolla.customers.create({
          type: "unverified",
          firstName: holder.firstName,
          lastName: holder.lastName,
          email: holder.emailAddress,
          correlationId: registrationId,
        }),
      ).pipe(
        Effect.flatMap((created) => {
          const location = DwollaClient.locationOf(created)
          return location === undefined
            ? Effect.fail(unavailable("create customer: no Location header"))
            : Effect.succeed(DwollaClient.idOf(location))
        }),
      ))
    return yield* store.keep(DwollaStore.payerKey(registrationId), customerId)
  })

  return Traced.fn("DwollaFundingSources.make")(function* ({ registrationId, holder, processorToken, account }) {
    const key = DwollaStore.payerAccountKey(registrationId, account)
    const kept = yield* store.find(key)
    if (kept !== undefined) return kept
    const customerId = yield* payerCustomer(registrationId, holder)
    const made = yield* DwollaClient.call(
      "create funding source",
      () =>
        dwolla.customers.fundingSources.create({
          id: customerId,
          createCustomerFundingSource: {
            plaidToken: processorToken,
            name: `${account.name} ${account.mask}`.slice(0, 50),
            bankAccountType: account.type === "savings" ? "savings" : "checking",
          },
        }),
      duplicate,
    ).pipe(
      Effect.map((created) => DwollaClient.locationOf(created)),
      Effect.flatMap((location) =>
        location === undefined
          ? Effect.fail(unavailable("create funding source: no Location header"))
          : Effect.succeed(DwollaClient.idOf(location)),
      ),
      Effect.catchTag("Existing", (existing: { readonly id: string }) => Effect.succeed(existing.id)),
    )
    return yield* store.keep(key, made)
  })
}

/** The maker on the service's database. */
export const current = (config: DwollaClient.DwollaConfig): Effect.Effect<Maker> =>
  Effect.map(DwollaStore.current, (store) => make(config, store))
