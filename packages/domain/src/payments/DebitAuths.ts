/**
 * Use cases of debit authorizations (spec v0.2 "check, set, update the
 * authorized debit limit"; 2.10, 2.11).
 *
 * - `set`: the customer (payer) authorizes one company of its partner to debit
 *   up to a limit per debit. One authorization per payer and company, claimed
 *   in the event store (`NaturalKey`): setting again for the same company sets
 *   the new limit on the existing authorization and enables it (the answer
 *   carries the same debitAuthId), even when the two sets race.
 * - `update`: the customer changes the limit and/or enables or disables one of
 *   its authorizations.
 * - `list`: the customer's authorizations, with the company's name.
 * - `forUser`: one payer's authorization as the partner sees it; the company
 *   is chosen with `companyId`, which is required when the payer has several.
 *
 * Companies are read from their own aggregate (`CommandHandler.load`): always
 * current, and a company of another partner is NotFound("Company"), like a
 * missing one. Authorizations are read from the `debit_auths` read model.
 */

import { DateTime, Effect, Option, Schema } from "effect"
import { Company } from "../companies/index.ts"
import { CustomerPreferences } from "../customers/index.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import * as NaturalKey from "../infrastructure/NaturalKey.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import * as Amounts from "../kernel/Amounts.ts"
import { NotFound, ValidationFailed } from "../kernel/DomainError.ts"
import { CompanyId, DebitAuthId, type PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Money from "../kernel/Money.ts"
import * as Traced from "../kernel/Traced.ts"
import * as AuthorizationEvidence from "./AuthorizationEvidence.ts"
import * as DebitAuth from "./DebitAuth.ts"
import * as DebitAuthsProjection from "./DebitAuthsProjection.ts"
import * as RailRules from "./RailRules.ts"

/** A company as these use cases need it. */
export interface CompanySummary {
  readonly companyId: CompanyId
  readonly partnerId: PartnerId
  readonly name: string
}

/** The partner's registered company, or NotFound("Company"). */
export const loadCompany = Traced.fn("DebitAuths.loadCompany")(function* (partnerId: PartnerId, companyId: CompanyId) {
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, companyId))
  if (state._tag === "Initial" || state.partnerId !== partnerId) return yield* new NotFound({ entity: "Company" })
  const summary: CompanySummary = { companyId: state.companyId, partnerId: state.partnerId, name: state.profile.name }
  return summary
})

/** A debit authorization as answered to clients: the one declaration the HTTP response reuses. */
export const DebitAuthView = Schema.Struct({
  debitAuthId: DebitAuthId,
  companyId: CompanyId,
  registrationId: RegistrationId,
  enabled: Schema.Boolean,
  status: DebitAuth.DebitAuthStatus,
  limit: Money.Money,
  authorization: Schema.optionalKey(
    AuthorizationEvidence.AuthorizationEvidence.annotate({
      description:
        "The evidence of the payer's latest authorization (set, limit change, enabling): docs/api/authorization-evidence.md",
    }),
  ),
})
export type DebitAuthView = typeof DebitAuthView.Type

/** The view of a debit authorization in `status`, from its read-model document or its state. */
const viewOf = (
  auth: Pick<DebitAuthView, "debitAuthId" | "companyId" | "registrationId" | "limit" | "authorization">,
  status: DebitAuthView["status"],
): DebitAuthView => ({
  debitAuthId: auth.debitAuthId,
  companyId: auth.companyId,
  registrationId: auth.registrationId,
  enabled: status === "Active",
  status,
  limit: auth.limit,
  ...(auth.authorization === undefined ? {} : { authorization: auth.authorization }),
})

const viewOfState = (state: DebitAuth.State): Option.Option<DebitAuthView> =>
  state._tag === "Initial" ? Option.none() : Option.some(viewOf(state, state._tag))

/** Every authorization of the payer (all pages of the read model), oldest first. */
const authorizationsOf = Traced.fn("DebitAuths.authorizationsOf")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  companyId?: CompanyId,
) {
  const store = yield* ReadModelStore
  const keys = companyId === undefined ? { registrationId } : { registrationId, companyId }
  const docs: Array<DebitAuthsProjection.DebitAuthDocument> = []
  let startingAfter: string | undefined
  while (true) {
    const page = yield* store.find(DebitAuthsProjection.collection, {
      partnerId,
      keys,
      limit: 100,
      order: "asc",
      ...(startingAfter === undefined ? {} : { startingAfter }),
    })
    for (const item of page.items) docs.push(decodeDocument(DebitAuthsProjection.projection, item))
    const last = page.items[page.items.length - 1]
    if (!page.hasMore || last === undefined) return docs
    startingAfter = last.id
  }
})

// ---------------------------------------------------------------------------
// Set and update (the customer)

export interface SetInput {
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  readonly companyId: CompanyId
  readonly limit: Amounts.WireAmount
  /** The request that carried the payer's authorization: its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
}

/** The natural key of an authorization: one per (partner, payer, company). */
export const naturalKeyOf = (partnerId: PartnerId, registrationId: RegistrationId, companyId: CompanyId): string =>
  NaturalKey.idOf("DebitAuth", [partnerId, registrationId, companyId])

/**
 * Authorizes the company up to `limit` per debit; on an existing authorization
 * sets the limit and enables it. One authorization per (partner, payer,
 * company), enforced by the event store: the first set claims the pair's
 * `NaturalKey` stream expecting no stream yet, so of concurrent first sets one
 * creates the authorization and the others (run again after the conflict)
 * update that one.
 */
export const set = UseCase.fn("DebitAuths.set")(function* (input: SetInput) {
  const limit = yield* Amounts.fromWire("limit", input.limit)
  yield* RailRules.checkCurrency(limit.currency, "limit.currencyCode")
  yield* CustomerPreferences.loadCustomer(input.partnerId, input.registrationId)
  yield* loadCompany(input.partnerId, input.companyId)
  return yield* grant({ ...input, limit })
})

/** A grant of a debit authorization: the payer, the company, the limit per debit. */
export interface Grant {
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  readonly companyId: CompanyId
  readonly limit: Money.Money
  /** The request that carried the payer's authorization: its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
}

/**
 * Creates the payer's authorization for the company (limit `limit`, enabled), or sets that limit
 * on the existing one and enables it: what `set` does once its input is checked, and what an
 * acceptance granting the request's debit authorization does (`PaymentRequest.debitAuthGrantOf`).
 * The payer and the company are the partner's (checked by the caller).
 */
export const grant = UseCase.fn("DebitAuths.grant")(function* (input: Grant) {
  const limit = input.limit
  const client = input.client === undefined ? {} : { client: input.client }
  const at = yield* DateTime.now
  // An authorization set before keys were claimed has no key yet: it claims it now.
  const [existing] = yield* authorizationsOf(input.partnerId, input.registrationId, input.companyId)
  const candidate = existing?.debitAuthId ?? ((yield* (yield* IdGenerator).next) as DebitAuthId)
  const claimed = yield* CommandHandler.handle(
    NaturalKey.aggregate,
    naturalKeyOf(input.partnerId, input.registrationId, input.companyId),
    { _tag: "ClaimNaturalKey", scope: "DebitAuth", ownerId: candidate, at },
    { expectNew: existing === undefined },
  )
  const debitAuthId = NaturalKey.ownerOf(claimed.state, candidate) as DebitAuthId
  // A revoked authorization (an unauthorized return) is given anew: a new SetDebitAuth on its stream.
  const revoked =
    existing !== undefined &&
    (yield* UseCase.dieOnCorruptEvent(CommandHandler.load(DebitAuth.aggregate, debitAuthId))).state._tag === "Revoked"
  if (revoked || (claimed.events.length > 0 && existing === undefined)) {
    const handled = yield* CommandHandler.handle(
      DebitAuth.aggregate,
      debitAuthId,
      {
        _tag: "SetDebitAuth",
        debitAuthId,
        partnerId: input.partnerId,
        companyId: input.companyId,
        registrationId: input.registrationId,
        limit,
        ...client,
        at,
      },
      revoked ? {} : { expectNew: true },
    )
    return Option.getOrThrow(viewOfState(handled.state))
  }
  yield* CommandHandler.handle(DebitAuth.aggregate, debitAuthId, {
    _tag: "UpdateDebitAuthLimit",
    limit,
    ...client,
    at,
  })
  const handled = yield* CommandHandler.handle(DebitAuth.aggregate, debitAuthId, {
    _tag: "EnableDebitAuth",
    ...client,
    at,
  })
  return Option.getOrThrow(viewOfState(handled.state))
})

export interface UpdateInput {
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  readonly debitAuthId: DebitAuthId
  readonly limit?: Amounts.WireAmount | undefined
  readonly enabled?: boolean | undefined
  /** The request that carried the payer's authorization: its evidence. */
  readonly client?: AuthorizationEvidence.ClientContext
}

/** Changes the limit and/or enables or disables one of the customer's authorizations. */
export const update = UseCase.fn("DebitAuths.update")(function* (input: UpdateInput) {
  if (input.limit === undefined && input.enabled === undefined) {
    return yield* new ValidationFailed({
      issues: [
        { field: "limit", message: "give limit, enabled or both" },
        { field: "enabled", message: "give limit, enabled or both" },
      ],
    })
  }
  const limit = input.limit === undefined ? undefined : yield* Amounts.fromWire("limit", input.limit)
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(DebitAuth.aggregate, input.debitAuthId))
  if (
    state._tag === "Initial" ||
    state.partnerId !== input.partnerId ||
    state.registrationId !== input.registrationId
  ) {
    return yield* new NotFound({ entity: "DebitAuth" })
  }
  const at = yield* DateTime.now
  const client = input.client === undefined ? {} : { client: input.client }
  let current: DebitAuth.State = state
  if (limit !== undefined) {
    current = (yield* CommandHandler.handle(DebitAuth.aggregate, input.debitAuthId, {
      _tag: "UpdateDebitAuthLimit",
      limit,
      ...client,
      at,
    })).state
  }
  if (input.enabled !== undefined) {
    current = (yield* CommandHandler.handle(
      DebitAuth.aggregate,
      input.debitAuthId,
      input.enabled ? { _tag: "EnableDebitAuth", ...client, at } : { _tag: "DisableDebitAuth", at },
    )).state
  }
  return Option.getOrThrow(viewOfState(current))
})

// ---------------------------------------------------------------------------
// Reads

/** A list item of GET /DebitAuth/List: the authorization with its company's current name. */
export interface DebitAuthListItem extends DebitAuthView {
  readonly companyName: string
}

/** The customer's authorizations (Active and Disabled), oldest first, each with its company's name. */
export const list = Traced.fn("DebitAuths.list")(function* (partnerId: PartnerId, registrationId: RegistrationId) {
  yield* CustomerPreferences.loadCustomer(partnerId, registrationId)
  const docs = yield* authorizationsOf(partnerId, registrationId)
  return yield* Effect.forEach(docs, (doc) =>
    Effect.map(
      UseCase.dieOnCorruptEvent(CommandHandler.load(Company.aggregate, doc.companyId)),
      ({ state }): DebitAuthListItem => ({
        ...viewOf(doc, doc.status),
        companyName: state._tag === "Initial" ? "" : state.profile.name,
      }),
    ),
  )
})

/**
 * The payer's authorization (GET /User/{registrationId}/DebitAuth). With
 * `companyId`: the one for that company. Without: the only one; when the payer
 * has several, `companyId` is required (ValidationFailed on `companyId`).
 * NotFound("DebitAuth") when there is none.
 */
export const forUser = Traced.fn("DebitAuths.forUser")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  companyId?: CompanyId,
) {
  yield* CustomerPreferences.loadCustomer(partnerId, registrationId)
  if (companyId !== undefined) yield* loadCompany(partnerId, companyId)
  const docs = yield* authorizationsOf(partnerId, registrationId, companyId)
  const [first] = docs
  if (first === undefined) return yield* new NotFound({ entity: "DebitAuth" })
  if (docs.length > 1) {
    return yield* ValidationFailed.of(
      "companyId",
      `is required: the customer has ${docs.length} debit authorizations, one per company`,
    )
  }
  return viewOf(first, first.status)
})
