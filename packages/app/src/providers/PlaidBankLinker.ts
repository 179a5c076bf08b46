/**
 * `BankLinker` on Plaid (`PARTNERPAY_PROVIDER_BANK_LINKING=plaid`), with the
 * official `plaid` SDK:
 *
 * - `createLinkToken` -> `/link/token/create` (product `auth`, country US,
 *   `client_user_id` the customer's registration id, the item webhook
 *   `PARTNERPAY_PLAID_WEBHOOK_URL` when set): the `linkToken` the customer's
 *   app opens Plaid Link with;
 * - `exchangePublicToken` -> `/item/public_token/exchange` (the access token
 *   stays in this adapter), then `/accounts/get`: the accounts the customer
 *   chose (`accountIds`; all of the item's when none is named), each with its
 *   mask. An account Plaid gives no mask for is left out (the payer could not
 *   tell it from another).
 * - `processorToken` -> `/processor/token/create`: the token the
 *   money-movement provider (Dwolla) makes its funding source from; with
 *   money movement on Dwolla (`layerWithFundingSources`) each account linked
 *   by a customer with a verified identity gets its processor token and
 *   Dwolla funding source during the exchange (the access token is not kept),
 *   a failure of either failing the link (503: the customer links again).
 *
 * Plaid's error answers (`error_type`, `error_code`, `error_message`,
 * `display_message`) with a 4xx status are the spec's `linkError`
 * (`BankLinkFailed`) on the exchange; any other failure (5xx, timeout,
 * connection, a 4xx on the link token: credentials or configuration) is
 * `ProviderUnavailable` naming the operation and Plaid's error code.
 */
import { CustomerProviders, Providers, Traced } from "@partnerpay/domain"
import { DateTime, Effect, Layer, Redacted } from "effect"
import {
  Configuration,
  CountryCode,
  PlaidApi,
  PlaidEnvironments,
  ProcessorTokenCreateRequestProcessorEnum,
  Products,
} from "plaid"
import * as Metrics from "../observability/Metrics.ts"

export interface PlaidConfig {
  readonly clientId: string
  readonly secret: Redacted.Redacted<string>
  /** Plaid's environment: `sandbox` (test institutions) or `production`. */
  readonly environment: "sandbox" | "production"
  /** Every call to this base URL instead of Plaid's (tests, proxies). */
  readonly baseUrl?: string | undefined
  /** Where Plaid sends item webhooks (`<public URL>/BankLinkWebhook/UpdateItem`). */
  readonly webhookUrl?: string | undefined
  /** The Identity Verification template KYC on Plaid runs (`PlaidKyc.ts`). */
  readonly identityVerificationTemplateId?: string | undefined
  /** The name Plaid Link shows the customer. */
  readonly clientName: string
  readonly timeoutMillis: number
}

const provider = "Plaid"

/** Plaid's error body. */
interface PlaidError {
  readonly error_type: string
  readonly error_code: string
  readonly error_message: string
  readonly display_message: string | null
}

interface Failure {
  readonly status: number | undefined
  readonly error: PlaidError | undefined
}

const failureOf = (thrown: unknown): Failure => {
  const response = (thrown as { response?: { status?: number; data?: unknown } } | null)?.response
  const data = response?.data as Partial<PlaidError> | undefined
  return {
    status: response?.status,
    error: typeof data?.error_code === "string" ? (data as PlaidError) : undefined,
  }
}

const unavailable = (operation: string, failure: Failure) =>
  new Providers.ProviderUnavailable({
    provider,
    reason: `${operation}: ${
      failure.status === undefined
        ? "no answer (timeout or connection error)"
        : `Plaid answered ${failure.status} (${failure.error?.error_code ?? "no error code"})`
    }`,
  })

/** The Plaid API client for `config`. */
export const client = (config: PlaidConfig): PlaidApi =>
  new PlaidApi(
    new Configuration({
      basePath: config.baseUrl ?? PlaidEnvironments[config.environment],
      baseOptions: {
        timeout: config.timeoutMillis,
        headers: { "PLAID-CLIENT-ID": config.clientId, "PLAID-SECRET": Redacted.value(config.secret) },
      },
    }),
  )

/** One Plaid call: its body, or its failure given to `failed`. */
const call = <A, E = Providers.ProviderUnavailable>(
  operation: string,
  run: () => Promise<{ readonly data: A }>,
  failed: (failure: Failure) => E = (failure) => unavailable(operation, failure) as E,
): Effect.Effect<A, E> =>
  Effect.tryPromise({ try: run, catch: (thrown) => failed(failureOf(thrown)) }).pipe(
    Effect.map((response) => response.data),
    Metrics.countProviderCall(provider, operation),
    Traced.withSpan(`Plaid.${operation}`),
  )

/**
 * Makes the money-movement provider's funding source of a linked account from its processor token
 * (Dwolla's: `DwollaFundingSources`), when money moves on such a provider.
 */
export type FundingSourceMaker = (account: {
  readonly registrationId: string
  readonly holder: CustomerProviders.AccountHolder
  readonly processorToken: string
  readonly account: {
    readonly institutionId: string
    readonly mask: string
    readonly type: string
    readonly name: string
  }
}) => Effect.Effect<string, Providers.ProviderUnavailable>

export const make = (config: PlaidConfig, fundingSources?: FundingSourceMaker) => {
  const plaid = client(config)
  return CustomerProviders.BankLinker.of({
    createLinkToken: ({ registrationId }) =>
      call("link token", () =>
        plaid.linkTokenCreate({
          client_name: config.clientName,
          language: "en",
          country_codes: [CountryCode.Us],
          user: { client_user_id: registrationId },
          products: [Products.Auth],
          ...(config.webhookUrl === undefined ? {} : { webhook: config.webhookUrl }),
        }),
      ).pipe(
        Effect.flatMap((answer) =>
          Effect.try({
            try: () => ({
              linkToken: answer.link_token,
              expiration: DateTime.toUtc(DateTime.makeUnsafe(answer.expiration)),
            }),
            catch: () => unavailable("link token", { status: 200, error: undefined }),
          }),
        ),
      ),
    exchangePublicToken: Traced.fn("PlaidBankLinker.exchangePublicToken")(function* ({
      registrationId,
      publicToken,
      institutionId,
      accountIds,
      holder,
    }) {
      const linkFailed = (operation: string) => (failure: Failure) =>
        failure.status !== undefined && failure.status < 500 && failure.error !== undefined
          ? new CustomerProviders.BankLinkFailed({
              errorType: failure.error.error_type,
              errorCode: failure.error.error_code,
              errorMessage: failure.error.error_message,
              displayMessage: failure.error.display_message ?? "",
            })
          : unavailable(operation, failure)
      const exchanged = yield* call(
        "public token exchange",
        () => plaid.itemPublicTokenExchange({ public_token: publicToken }),
        linkFailed("public token exchange"),
      )
      const item = yield* call(
        "accounts",
        () => plaid.accountsGet({ access_token: exchanged.access_token }),
        linkFailed("accounts"),
      )
      const chosen = item.accounts.filter(
        (account) => accountIds.length === 0 || accountIds.includes(account.account_id),
      )
      const accounts = chosen.flatMap((account) =>
        typeof account.mask === "string" && /^\d{4}$/.test(account.mask)
          ? [
              {
                providerAccountId: account.account_id,
                institutionId: item.item.institution_id ?? institutionId,
                name: account.name,
                mask: account.mask,
                type: account.subtype ?? account.type,
                itemId: item.item.item_id,
              },
            ]
          : [],
      )
      // Money moves on a provider that debits through Plaid's processor tokens: each account's funding
      // source is made now, while the access token is at hand (it is not kept).
      if (fundingSources !== undefined && holder !== undefined) {
        for (const account of accounts) {
          const processorToken = yield* call("processor token", () =>
            plaid.processorTokenCreate({
              access_token: exchanged.access_token,
              account_id: account.providerAccountId,
              processor: ProcessorTokenCreateRequestProcessorEnum.Dwolla,
            }),
          )
          yield* fundingSources({
            registrationId,
            holder,
            processorToken: processorToken.processor_token,
            account,
          })
        }
      }
      return { accounts }
    }),
  })
}

/** A processor token for `accountId` of the item of `accessToken`, for Dwolla's funding sources. */
export const processorToken = (config: PlaidConfig, accessToken: string, accountId: string) =>
  call("processor token", () =>
    client(config).processorTokenCreate({
      access_token: accessToken,
      account_id: accountId,
      processor: ProcessorTokenCreateRequestProcessorEnum.Dwolla,
    }),
  ).pipe(Effect.map((answer) => answer.processor_token))

export const layer = (config: PlaidConfig): Layer.Layer<CustomerProviders.BankLinker> =>
  Layer.sync(CustomerProviders.BankLinker, () => make(config))

/** The bank linker that also makes each linked account's funding source (money movement on Dwolla). */
export const layerWithFundingSources = (
  config: PlaidConfig,
  fundingSources: Effect.Effect<FundingSourceMaker>,
): Layer.Layer<CustomerProviders.BankLinker> =>
  Layer.effect(
    CustomerProviders.BankLinker,
    Effect.map(fundingSources, (maker) => make(config, maker)),
  )
