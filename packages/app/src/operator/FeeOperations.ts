/**
 * The operator's fee operations, shared by the admin API
 * (`GET /admin/partners/{partnerId}/fees`, `PUT /admin/partners/{partnerId}/fees/{rail}`) and the CLI
 * (`partnerpay fees show|set`): a partner's fee terms per rail (`FeeSchedule.ts` in the domain).
 *
 * The wire form of one rail's terms (request and answer):
 * `{ "percentageBasisPoints": 150, "fixed": { "value": 0.30, "currencyCode": "USD" } | null,
 *    "providerCost": {...} | null, "returnFee": {...} | null, "returnFeePassedOn": false }`.
 * Every field but `percentageBasisPoints` may be omitted (none, false). An unknown field, a wrong
 * type, a negative or too precise amount or a percentage outside 0..10000 is refused naming the
 * field (`InvalidInput`; the admin API answers 400), and nothing changes.
 */
import { PgPartnerCredentials } from "@partnerpay/adapters-pg"
import { FeeSchedule, Ids, Money, PlatformFees, Traced } from "@partnerpay/domain"
import { Effect, Result } from "effect"
import { InvalidInput, NotFound } from "./Operations.ts"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** An existing partner's id, else NotFound("Partner"). */
const partnerIdOf = Traced.fn("FeeOperations.partnerIdOf")(function* (raw: string) {
  if (!uuid.test(raw)) return yield* new NotFound({ entity: "Partner" })
  const partnerId = Ids.PartnerId.make(raw.toLowerCase())
  if (!(yield* (yield* PgPartnerCredentials.Partners).exists(partnerId)))
    return yield* new NotFound({ entity: "Partner" })
  return partnerId
})

/** The rails as the operator names them (the domain's names). */
export const rails = FeeSchedule.rails

const amountFields = ["fixed", "providerCost", "returnFee"] as const
const knownFields = new Set<string>(["percentageBasisPoints", "returnFeePassedOn", ...amountFields])

type Issues = Array<{ readonly field: string; readonly message: string }>

const moneyOf = (issues: Issues, field: string, raw: unknown): Money.Money | undefined => {
  if (raw === undefined || raw === null) return undefined
  const wire = raw as { readonly value?: unknown; readonly currencyCode?: unknown }
  if (
    typeof raw !== "object" ||
    Array.isArray(raw) ||
    Object.keys(raw).some((k) => k !== "value" && k !== "currencyCode")
  ) {
    issues.push({ field, message: 'must be an amount { "value": 0.30, "currencyCode": "USD" } or null' })
    return undefined
  }
  if (typeof wire.currencyCode !== "string" || !(wire.currencyCode in Money.currencies)) {
    issues.push({
      field: `${field}.currencyCode`,
      message: `must be one of ${Object.keys(Money.currencies).join(", ")}`,
    })
    return undefined
  }
  if (typeof wire.value !== "number") {
    issues.push({ field: `${field}.value`, message: "must be a number" })
    return undefined
  }
  const money = Money.fromDecimal(wire.value, wire.currencyCode as Money.CurrencyCode)
  if (Result.isFailure(money)) {
    issues.push({ field: `${field}.value`, message: Money.describeProblem(money.failure) })
    return undefined
  }
  return money.success
}

/** The terms of a request body, or every issue naming its field. */
export const termsOf = (body: Readonly<Record<string, unknown>>): Result.Result<FeeSchedule.FeeTerms, InvalidInput> => {
  const issues: Issues = []
  for (const key of Object.keys(body))
    if (!knownFields.has(key)) issues.push({ field: key, message: "is not a field of a fee schedule" })
  const bps = body.percentageBasisPoints
  if (typeof bps !== "number") issues.push({ field: "percentageBasisPoints", message: "must be a whole number" })
  const passedOn = body.returnFeePassedOn
  if (passedOn !== undefined && typeof passedOn !== "boolean")
    issues.push({ field: "returnFeePassedOn", message: "must be true or false" })
  const amounts = Object.fromEntries(amountFields.map((field) => [field, moneyOf(issues, field, body[field])]))
  const terms: FeeSchedule.FeeTerms = {
    percentageBasisPoints: typeof bps === "number" ? bps : 0,
    ...(amounts.fixed === undefined ? {} : { fixed: amounts.fixed }),
    ...(amounts.providerCost === undefined ? {} : { providerCost: amounts.providerCost }),
    ...(amounts.returnFee === undefined ? {} : { returnFee: amounts.returnFee }),
    returnFeePassedOn: passedOn === true,
  }
  issues.push(...FeeSchedule.issuesOf(terms))
  return issues.length > 0 ? Result.fail(new InvalidInput({ issues })) : Result.succeed(terms)
}

const wireOf = (money: Money.Money | undefined) =>
  money === undefined ? null : { value: Money.toDecimal(money), currencyCode: money.currency }

/** The wire form of a partner's terms, one per rail. */
export const encode = (partnerId: string, all: ReadonlyArray<PlatformFees.RailTerms>) => ({
  partnerId,
  rails: all.map(({ rail, terms }) => ({
    rail,
    percentageBasisPoints: terms.percentageBasisPoints,
    fixed: wireOf(terms.fixed),
    providerCost: wireOf(terms.providerCost),
    returnFee: wireOf(terms.returnFee),
    returnFeePassedOn: terms.returnFeePassedOn,
  })),
})

const railOf = (raw: string): Effect.Effect<FeeSchedule.Rail, InvalidInput> =>
  (rails as ReadonlyArray<string>).includes(raw)
    ? Effect.succeed(raw as FeeSchedule.Rail)
    : Effect.fail(new InvalidInput({ issues: [{ field: "rail", message: `must be one of ${rails.join(", ")}` }] }))

/** A partner's terms for every rail (unset: none). */
export const show = Traced.fn("FeeOperations.show")(function* (rawPartnerId: string) {
  const partnerId = yield* partnerIdOf(rawPartnerId)
  return encode(partnerId, yield* PlatformFees.show(partnerId))
})

/** Sets a partner's terms for one rail from a request body; answers its terms for every rail. */
export const set = Traced.fn("FeeOperations.set")(function* (
  rawPartnerId: string,
  rawRail: string,
  body: Readonly<Record<string, unknown>>,
) {
  const partnerId = yield* partnerIdOf(rawPartnerId)
  const rail = yield* railOf(rawRail)
  const terms = termsOf(body)
  if (Result.isFailure(terms)) return yield* terms.failure
  const all = yield* PlatformFees.set(partnerId, rail, terms.success).pipe(
    Effect.catchTag("ValidationFailed", (failed) => Effect.fail(new InvalidInput({ issues: failed.issues }))),
    // Setting terms refuses nothing else: any other refusal would be a bug (a 500, logged).
    Effect.catchTags({ IllegalTransition: Effect.die, RuleViolated: Effect.die, NotFound: Effect.die }),
    Effect.catchTags({ AlreadyExists: Effect.die, VersionConflict: Effect.die }),
  )
  return encode(partnerId, all)
})

/** What the fee operations need (the domain's ports, the partner table). */
export type FeeRequirements = Effect.Services<ReturnType<typeof set>> | Effect.Services<ReturnType<typeof show>>
