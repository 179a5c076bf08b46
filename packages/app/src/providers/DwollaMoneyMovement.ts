/**
 * `MoneyMovement` on Dwolla (`PARTNERPAY_PROVIDER_MONEY_MOVEMENT=dwolla`):
 * every movement is a Dwolla transfer (`POST /transfers`) with an
 * `Idempotency-Key` header, our id of the movement (the transfer, refund or
 * payout id): Dwolla answers a repeated key with the first transfer, so a
 * worker asking again after a crash never moves money twice. The platform's
 * own funding source (`PARTNERPAY_DWOLLA_MASTER_FUNDING_SOURCE`, its
 * settlement account) is the other side of every movement:
 *
 * - debit: the payer's funding source -> the master funding source
 *   (`sameDay`: `clearing.source: next-available`, Same Day ACH);
 * - credit (a refund): the master funding source -> the payer's funding source;
 * - payout: the master funding source -> the company's payout account, a bank
 *   funding source of the company's Dwolla customer (its KYB submission),
 *   made on the first payout from the account's details
 *   (`POST /customers/{id}/funding-sources`) and kept (`provider_funding_sources`).
 *
 * A payer's funding source is the one made when the account was linked through
 * Plaid (`DwollaFundingSources.ts`: from a Plaid processor token, on the
 * payer's Dwolla customer), found by the linked account (`DwollaStore`); none
 * is refused (`NO_FUNDING_SOURCE`: the movement fails, no return code).
 *
 * Refusals (issue 35): Dwolla's 400 and 403 (its `ValidationError`: a payer over
 * the weekly limit, a currency it does not move, a suspended customer, a
 * removed funding source) are `MovementRefused` with Dwolla's code and its
 * words (`reasonOf`: the fields and messages it named), so the movement fails
 * at once with that reason; on a payout, a refusal naming the destination (or
 * of the payout account's funding source) is `DESTINATION_REFUSED`, which
 * errors the company's payout account. A 429, a 5xx, a timeout are
 * `ProviderUnavailable`: retried with backoff (`MovementAttempts.ts`). The
 * rail's capabilities: USD only (`RailCapabilities.dwolla`).
 *
 * `status`: `GET /transfers/{id}`; pending
 * -> Pending, processed -> Settled, failed -> Failed with the ACH return code
 * of `GET /transfers/{id}/failure` (the domain makes it Returned when the
 * transfer had settled), cancelled -> Failed `R06` (withdrawn by the
 * originator). Amounts go as Dwolla's decimal strings (`1234` minor units ->
 * `"12.34"`).
 */
import { CompanyPayoutAccount, MoneyMovement, Providers, RailCapabilities, Traced } from "@partnerpay/domain"
import type { Dwolla } from "dwolla"
import { Effect, Layer } from "effect"
import * as DwollaClient from "./DwollaClient.ts"
import * as DwollaStore from "./DwollaStore.ts"

/** `1234` minor units -> `"12.34"` (Dwolla's amounts; USD has two decimals). */
export const decimalOf = (minorUnits: number): string => {
  const sign = minorUnits < 0 ? "-" : ""
  const units = Math.abs(minorUnits)
  return `${sign}${Math.floor(units / 100)}.${String(units % 100).padStart(2, "0")}`
}

/** Dwolla's transfer status (and failure code) as a movement outcome. */
export const outcomeOf = (status: string, failureCode: string | undefined): MoneyMovement.MovementOutcome => {
  switch (status) {
    case "processed":
      return { status: "Settled" }
    case "failed":
      return { status: "Failed", returnCode: failureCode ?? "R06" }
    case "cancelled":
      return { status: "Failed", returnCode: "R06" }
    default:
      return { status: "Pending" }
  }
}

/** The ACH return code of a failed transfer (`GET /transfers/{id}/failure`). */
export const failureCode = (dwolla: Dwolla, transferId: string) =>
  DwollaClient.call("transfer failure", () => dwolla.transfers.failure.get({ id: transferId })).pipe(
    Effect.map((failure) => String((failure as { code?: unknown }).code ?? "R06")),
  )

/** The `correlationId` of a transfer (our movement id: every transfer we make carries it). */
export const correlationOf = (dwolla: Dwolla, transferId: string) =>
  DwollaClient.call("transfer", () => dwolla.transfers.get({ id: transferId })).pipe(
    Effect.map((found) => {
      const correlationId = (found as { correlationId?: unknown }).correlationId
      return typeof correlationId === "string" ? correlationId : undefined
    }),
  )

const unavailable = (reason: string) => new Providers.ProviderUnavailable({ provider: DwollaClient.provider, reason })

/**
 * A refusal's reason, in Dwolla's words: what was refused, its code, the fields it named and its
 * messages (e.g. "Dwolla refused the transfer: ValidationError (/amount/value): Receiver exceeds weekly
 * limit."). The partner reads it as the movement's `failureReason`.
 */
export const reasonOf = (what: string, refusal: DwollaClient.DwollaRefusal): string =>
  `${what}: ${refusal.code}${refusal.paths.length === 0 ? "" : ` (${refusal.paths.join(", ")})`}${
    refusal.messages.length === 0 ? "" : `: ${refusal.messages.join(" ")}`
  }`

export const make = (config: DwollaClient.DwollaConfig, store: DwollaStore.Store) => {
  const dwolla = DwollaClient.client(config)
  const base = DwollaClient.baseUrlOf(config).replace(/\/+$/, "")
  const fundingSourceUrl = (id: string) => (id.startsWith("http") ? id : `${base}/funding-sources/${id}`)
  const master = fundingSourceUrl(config.masterFundingSource ?? "")
  const refused = (kind: MoneyMovement.MovementKind) => (refusal: DwollaClient.DwollaRefusal) =>
    refusal.status === 400 || refusal.status === 403
      ? new MoneyMovement.MovementRefused({
          code:
            kind === "Payout" && refusal.paths.some((path) => path.startsWith("/_links/destination"))
              ? CompanyPayoutAccount.destinationRefusedCode
              : refusal.code,
          reason: reasonOf("Dwolla refused the transfer", refusal),
        })
      : unavailable("refused")

  const transfer = (
    kind: MoneyMovement.MovementKind,
    idempotencyKey: string,
    source: string,
    destination: string,
    minorUnits: number,
    currency: string,
    clearing?: { readonly source: string },
  ) =>
    DwollaClient.call(
      "create transfer",
      () =>
        dwolla.transfers.create({
          idempotencyKey,
          requestBody: {
            links: { source: { href: source }, destination: { href: destination } },
            amount: { value: decimalOf(minorUnits), currency },
            correlationId: idempotencyKey,
            ...(clearing === undefined ? {} : { clearing }),
          },
        }),
      refused(kind),
    ).pipe(
      Effect.flatMap((answer) => {
        const location = DwollaClient.locationOf(answer)
        return location === undefined
          ? Effect.fail(unavailable("create transfer: no Location header"))
          : Effect.succeed<MoneyMovement.MovementReference>({
              kind,
              id: idempotencyKey,
              providerReference: DwollaClient.idOf(location),
            })
      }),
    )

  const payerSource = (fundingSource: string, payer: string) =>
    Effect.flatMap(DwollaStore.payerFundingSource(store, payer, fundingSource), (found) =>
      found === undefined
        ? Effect.fail(
            new MoneyMovement.MovementRefused({
              code: "NO_FUNDING_SOURCE",
              reason: "the payer's bank account has no Dwolla funding source",
            }),
          )
        : Effect.succeed(fundingSourceUrl(found)),
    )

  const payoutDestination = Traced.fn("DwollaMoneyMovement.payoutDestination")(function* (
    request: MoneyMovement.PayoutRequest,
  ) {
    const kept = yield* store.find(request.payoutAccount)
    if (kept !== undefined) return fundingSourceUrl(kept)
    const customerId = yield* store.customerOf(request.companyId)
    if (customerId === undefined) {
      return yield* new MoneyMovement.MovementRefused({
        code: "NO_CUSTOMER",
        reason: "the company has no Dwolla customer (not submitted to KYB on Dwolla)",
      })
    }
    const created = yield* DwollaClient.call(
      "create funding source",
      () =>
        dwolla.customers.fundingSources.create({
          id: customerId,
          createCustomerFundingSource: {
            routingNumber: request.destination.routingNumber,
            accountNumber: request.destination.accountNumber,
            bankAccountType: request.destination.accountType === "Savings" ? "savings" : "checking",
            name: `Payout account ${request.payoutAccount.slice(0, 8)}`,
          },
        }),
      // The bank account itself refused (its routing or account number): the account is Errored.
      (refusal) =>
        refusal.status === 400 || refusal.status === 403
          ? new MoneyMovement.MovementRefused({
              code: CompanyPayoutAccount.destinationRefusedCode,
              reason: reasonOf("Dwolla refused the payout account", refusal),
            })
          : unavailable("refused"),
    )
    const location = DwollaClient.locationOf(created)
    if (location === undefined) return yield* unavailable("create funding source: no Location header")
    return fundingSourceUrl(yield* store.keep(request.payoutAccount, DwollaClient.idOf(location)))
  })

  return MoneyMovement.MoneyMovement.of({
    // Dwolla moves USD only: another currency is refused when it is asked for (RailCapabilities.ts).
    capabilities: RailCapabilities.dwolla,
    originateDebit: Traced.fn("DwollaMoneyMovement.originateDebit")(function* (request) {
      const source = yield* payerSource(request.fundingSource, request.payerRegistrationId)
      return yield* transfer(
        "Debit",
        request.idempotencyKey,
        source,
        master,
        request.amount.minorUnits,
        request.amount.currency,
        request.sameDay === true ? { source: "next-available" } : undefined,
      )
    }),
    originateCredit: Traced.fn("DwollaMoneyMovement.originateCredit")(function* (request) {
      const destination = yield* payerSource(request.fundingSource, request.payerRegistrationId)
      return yield* transfer(
        "Credit",
        request.idempotencyKey,
        master,
        destination,
        request.amount.minorUnits,
        request.amount.currency,
      )
    }),
    originatePayout: Traced.fn("DwollaMoneyMovement.originatePayout")(function* (request) {
      const destination = yield* payoutDestination(request)
      // A Debit payout recovers a deficit: the money moves from the company's account to the master account.
      const [source, target] = request.direction === "Debit" ? [destination, master] : [master, destination]
      return yield* transfer(
        "Payout",
        request.idempotencyKey,
        source,
        target,
        request.amount.minorUnits,
        request.amount.currency,
      )
    }),
    status: Traced.fn("DwollaMoneyMovement.status")(function* (reference) {
      const found = yield* DwollaClient.call("transfer", () =>
        dwolla.transfers.get({ id: reference.providerReference }),
      )
      const status = String((found as { status?: unknown }).status ?? "pending")
      if (status !== "failed") return outcomeOf(status, undefined)
      return outcomeOf(status, yield* failureCode(dwolla, reference.providerReference))
    }),
  })
}

export const layer = (config: DwollaClient.DwollaConfig): Layer.Layer<MoneyMovement.MoneyMovement> =>
  Layer.effect(
    MoneyMovement.MoneyMovement,
    Effect.map(DwollaStore.current, (store) => make(config, store)),
  )
