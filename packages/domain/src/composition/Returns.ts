/**
 * Fan-out policy: a failed or returned debit acts beyond its transfer (the rules:
 * `payments/ReturnConsequences.ts`, table in packages/domain/docs/ReturnConsequences.md). When a
 * Transfer records TransferFailed or TransferReturned, the payer's authorizations for the company
 * (debit authorization, Accepted consents) are found in the read models and the commands
 * `ReturnConsequences.reactionsTo` decides are issued, each handled by the command handler with
 * its own policies (a revoked consent cancels its plan) and webhooks, in the outcome's unit of
 * work. A repeat changes nothing (every command on an already revoked authorization is a no-op).
 *
 * It lives in the composition root because it commands aggregates of four areas; the read model
 * store it reads is captured when the registry is built (`Policies.layer`), like the event
 * pipeline's.
 */
import { CharityTransaction } from "../cards-and-charity/index.ts"
import { Customer } from "../customers/index.ts"
import * as Policy from "../infrastructure/Policy.ts"
import { decodeDocument, type ReadModelStore } from "../infrastructure/ReadModel.ts"
import type { ConsentId, DebitAuthId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import { DebitAuth, DebitAuthsProjection, ReturnConsequences, Transfer } from "../payments/index.ts"
import { Consent, ConsentsProjection } from "../plans/index.ts"

/** The returned debit a transfer event describes (a failure or a return of its debit), if any. */
export const returnedDebitOf = (
  event: Transfer.Event,
  state: Transfer.State,
): ReturnConsequences.ReturnedDebit | undefined => {
  if (state._tag === "Initial") return undefined
  if (event._tag !== "TransferFailed" && event._tag !== "TransferReturned") return undefined
  // A movement the rail refused carries no return code: the bank said nothing of the account or authorization.
  if (event.returnCode === undefined) return undefined
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
  store: ReadModelStore["Service"],
  partnerId: PartnerId,
  debit: ReturnConsequences.ReturnedDebit,
  payer: RegistrationId,
) {
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

/** The aggregate a reaction commands. */
const targetOf = (reaction: ReturnConsequences.Reaction): Policy.Directed["target"] => {
  switch (reaction._tag) {
    case "DebitAuth":
      return DebitAuth.aggregate
    case "Consent":
      return Consent.aggregate
    case "CharityTransaction":
      return CharityTransaction.aggregate
    case "Customer":
      return Customer.aggregate
  }
}

/** The commands one failure or return of a debit issues, reading the payer's authorizations from `store`. */
const commandsFor = Traced.fn("Returns.commandsFor")(function* (
  store: ReadModelStore["Service"],
  event: Transfer.Event,
  state: Transfer.State,
) {
  const debit = returnedDebitOf(event, state)
  if (debit === undefined || state._tag === "Initial" || !("at" in event)) return []
  const group = ReturnConsequences.groupOf(debit.returnCode)
  const payer = debit.payerRegistrationId
  if (group === "DebitOnly" || payer === undefined) return []
  const found =
    group === "Unauthorized"
      ? yield* authorizationsOf(store, state.details.partnerId, debit, payer)
      : { acceptedConsentIds: [] }
  return ReturnConsequences.reactionsTo(debit, found, event.at).map(
    (consequence): Policy.Directed => ({
      target: targetOf(consequence),
      id: consequence.id,
      command: consequence.command,
    }),
  )
})

/** The policy, reading the payer's authorizations from `store`. */
export const policy = (store: ReadModelStore["Service"]) =>
  Policy.fanOut({
    name: "a returned debit acts on the payer's authorizations and account",
    source: Transfer.aggregate,
    reactsTo: ["TransferFailed", "TransferReturned"],
    react: (event: Transfer.Event, state: Transfer.State) => commandsFor(store, event, state),
  })
