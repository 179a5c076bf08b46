/**
 * The use case that makes an ACH return act beyond its transfer (the rules: `ReturnConsequences`,
 * table in packages/domain/docs/ReturnConsequences.md). Run by `MoneyMovements` right after a
 * transfer records a failure or return, inside the same unit of work: the payer's authorizations
 * for the company (debit authorization, Accepted consents) are found in the read models, and the
 * reactions are handled in order, each with its own policies (a revoked consent cancels its plan)
 * and webhooks. A repeat changes nothing (every reaction of an already revoked authorization is a
 * no-op).
 */
import { Effect } from "effect"
import * as CharityTransaction from "../cards-and-charity/CharityTransaction.ts"
import type { CharityTransactionId } from "../cards-and-charity/CharityTransactionEvents.ts"
import * as Customer from "../customers/Customer.ts"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import type { ConsentId, DebitAuthId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import * as Consent from "../plans/Consent.ts"
import * as ConsentsProjection from "../plans/ConsentsProjection.ts"
import * as DebitAuth from "./DebitAuth.ts"
import * as DebitAuthsProjection from "./DebitAuthsProjection.ts"
import * as ReturnConsequences from "./ReturnConsequences.ts"
import type * as Transfer from "./Transfer.ts"

/** The returned debit a transfer's just-recorded events describe, if any (a failure or a return of its debit). */
export const returnedDebitOf = (
  events: ReadonlyArray<Transfer.Event>,
  state: Transfer.State,
): ReturnConsequences.ReturnedDebit | undefined => {
  const event = events.find((e) => e._tag === "TransferFailed" || e._tag === "TransferReturned")
  if (event === undefined || state._tag === "Initial") return undefined
  if (event._tag !== "TransferFailed" && event._tag !== "TransferReturned") return undefined
  const details = state.details
  return {
    returnCode: event.returnCode,
    companyId: details.companyId,
    ...(details.payerRegistrationId === undefined ? {} : { payerRegistrationId: details.payerRegistrationId }),
    ...(details.bankAccountId === undefined ? {} : { bankAccountId: details.bankAccountId }),
    ...(details.charityTransactionId === undefined ? {} : { charityTransactionId: details.charityTransactionId }),
  }
}

/** The payer's debit authorization for the company and their Accepted consents to its plans. */
const authorizationsOf = Traced.fn("Returns.authorizationsOf")(function* (
  partnerId: PartnerId,
  debit: ReturnConsequences.ReturnedDebit,
  payer: RegistrationId,
) {
  const store = yield* ReadModelStore
  const auths = yield* store.find(DebitAuthsProjection.collection, {
    partnerId,
    keys: { registrationId: payer, companyId: debit.companyId },
    limit: 1,
  })
  const debitAuthId = auths.items[0]?.id as DebitAuthId | undefined
  const acceptedConsentIds: Array<ConsentId> = []
  let startingAfter: string | undefined
  while (true) {
    const page = yield* store.find(ConsentsProjection.consents.collection, {
      partnerId,
      keys: { payerRegistrationId: payer, listable: "true" },
      limit: 100,
      order: "asc",
      ...(startingAfter === undefined ? {} : { startingAfter }),
    })
    for (const item of page.items) {
      const doc = decodeDocument(ConsentsProjection.consents, item)
      if (doc.companyId === debit.companyId && doc.status === "Accepted") acceptedConsentIds.push(doc.consentId)
    }
    const last = page.items[page.items.length - 1]
    if (!page.hasMore || last === undefined) break
    startingAfter = last.id
  }
  return {
    ...(debitAuthId === undefined ? {} : { debitAuthId }),
    acceptedConsentIds,
  } satisfies ReturnConsequences.PayerAuthorizations
})

/** Handles one reaction on its stream (its policies and webhooks follow). */
const handle = Effect.fnUntraced(function* (reaction: ReturnConsequences.Reaction, partnerId: PartnerId) {
  const metadata = { metadata: { partnerId } }
  switch (reaction._tag) {
    case "DebitAuth":
      yield* CommandHandler.handle(DebitAuth.aggregate, reaction.id, reaction.command, metadata)
      return
    case "Consent":
      yield* CommandHandler.handle(Consent.aggregate, reaction.id, reaction.command, metadata)
      return
    case "CharityTransaction":
      yield* CommandHandler.handle(
        CharityTransaction.aggregate,
        reaction.id,
        { ...reaction.command, charityTransactionId: reaction.command.charityTransactionId as CharityTransactionId },
        metadata,
      )
      return
    case "Customer":
      yield* CommandHandler.handle(Customer.aggregate, reaction.id, reaction.command, metadata)
      return
  }
})

/**
 * Applies what a transfer's failure or return does to the payer's authorizations and account
 * (nothing for a debit-only code, a settlement, or a transfer naming no payer).
 */
export const actOn = Traced.fn("Returns.actOn")(function* (
  handled: { readonly events: ReadonlyArray<Transfer.Event>; readonly state: Transfer.State },
) {
  const debit = returnedDebitOf(handled.events, handled.state)
  if (debit === undefined || handled.state._tag === "Initial") return
  const group = ReturnConsequences.groupOf(debit.returnCode)
  const payer = debit.payerRegistrationId
  if (group === "DebitOnly" || payer === undefined) return
  const partnerId = handled.state.details.partnerId
  const found =
    group === "Unauthorized" ? yield* authorizationsOf(partnerId, debit, payer) : { acceptedConsentIds: [] }
  const event = handled.events.find((e) => e._tag === "TransferFailed" || e._tag === "TransferReturned")
  if (event === undefined) return
  const at = event.at
  for (const reaction of ReturnConsequences.reactionsTo(debit, found, at)) {
    yield* handle(reaction, partnerId).pipe(
      // A payer or account the customer stream no longer knows (erased, never linked) has nothing to revoke.
      Effect.catchTag("NotFound", () => Effect.void),
    )
  }
})
