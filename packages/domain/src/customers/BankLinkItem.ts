/**
 * BankLinkItem: one connection to a customer's bank made through the
 * bank-link provider (a Plaid "item"), stream id = the provider's item id. It
 * remembers whose it is and which of the customer's bank accounts came
 * through it, so that the provider's notifications about the connection
 * (which name only the item, never the partner nor the customer) reach the
 * right accounts:
 *
 * - the bank asks the customer to log in again (`ITEM_LOGIN_REQUIRED`, an
 *   expiring consent): a repair is requested once, until the customer links
 *   through the item again;
 * - the customer revoked the access (the whole item, or one account): those
 *   accounts are revoked (the application then unlinks them from the
 *   customer), once.
 *
 * A repeated notification finds the fact already recorded and records
 * nothing. Provider ids are not personal data (no name, number nor address).
 */
import type { DateTime } from "effect"
import { Schema } from "effect"
import { type Aggregate, accept, byCommand, byEvent, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { type DomainError, NotFound, RuleViolated } from "../kernel/DomainError.ts"
import { eventsOf } from "../kernel/EventSchema.ts"
import { BankAccountId, PartnerId, RegistrationId } from "../kernel/Ids.ts"

/** Every event of an item names it, whose it is, and the instant `at`. */
const itemEvent = eventsOf({ itemId: Schema.String, partnerId: PartnerId, registrationId: RegistrationId })

/** One of the customer's accounts, as the provider and partnerpay name it. */
export const ItemAccount = Schema.Struct({ providerAccountId: Schema.String, bankAccountId: BankAccountId })
export type ItemAccount = typeof ItemAccount.Type

/** Accounts were linked through the item (the first time, or again after a repair). */
export const BankLinkItemConnected = itemEvent("BankLinkItemConnected", { accounts: Schema.Array(ItemAccount) })
export type BankLinkItemConnected = typeof BankLinkItemConnected.Type

/**
 * The bank needs the customer to link again (`reason`: the provider's code, e.g. ITEM_LOGIN_REQUIRED);
 * `bankAccountIds`: the item's accounts still linked, which cannot be debited until then.
 */
export const BankLinkRepairRequested = itemEvent("BankLinkRepairRequested", {
  bankAccountIds: Schema.Array(BankAccountId),
  reason: Schema.String,
})
export type BankLinkRepairRequested = typeof BankLinkRepairRequested.Type

/** The customer revoked the provider's access to these accounts: they are to be unlinked. */
export const BankLinkAccountsRevoked = itemEvent("BankLinkAccountsRevoked", {
  bankAccountIds: Schema.Array(BankAccountId),
})
export type BankLinkAccountsRevoked = typeof BankLinkAccountsRevoked.Type

export const BankLinkItemEvent = Schema.Union([BankLinkItemConnected, BankLinkRepairRequested, BankLinkAccountsRevoked])
export type BankLinkItemEvent = typeof BankLinkItemEvent.Type
export type Event = BankLinkItemEvent

export type State =
  | { readonly _tag: "Unknown" }
  | {
      readonly _tag: "Connected"
      readonly itemId: string
      readonly partnerId: PartnerId
      readonly registrationId: RegistrationId
      readonly accounts: ReadonlyArray<ItemAccount>
      readonly repairRequested: boolean
      readonly revoked: ReadonlyArray<BankAccountId>
    }

export const initialState: State = { _tag: "Unknown" }

export interface ConnectItem {
  readonly _tag: "ConnectItem"
  readonly itemId: string
  readonly partnerId: PartnerId
  readonly registrationId: RegistrationId
  readonly accounts: ReadonlyArray<ItemAccount>
  readonly at: DateTime.Utc
}

export interface RequestRepair {
  readonly _tag: "RequestRepair"
  readonly reason: string
  readonly at: DateTime.Utc
}

/** Revoke the whole item (`providerAccountId` absent) or one of its accounts. */
export interface RevokeAccess {
  readonly _tag: "RevokeAccess"
  readonly providerAccountId?: string | undefined
  readonly at: DateTime.Utc
}

export type Command = ConnectItem | RequestRepair | RevokeAccess

const entity = "BankLinkItem"

const connect = (command: ConnectItem, state: State): Decision<Event> => {
  if (
    state._tag === "Connected" &&
    (state.partnerId !== command.partnerId || state.registrationId !== command.registrationId)
  ) {
    return refuse(
      new RuleViolated({ code: "ITEM_OF_ANOTHER_CUSTOMER", reason: "the item belongs to another customer" }),
    )
  }
  return accept(
    BankLinkItemConnected.make({
      itemId: command.itemId,
      partnerId: command.partnerId,
      registrationId: command.registrationId,
      accounts: command.accounts,
      at: command.at,
    }),
  )
}

const requestRepair = (command: RequestRepair, state: State & { _tag: "Connected" }): Decision<Event> =>
  state.repairRequested
    ? nothing
    : accept(
        BankLinkRepairRequested.make({
          itemId: state.itemId,
          partnerId: state.partnerId,
          registrationId: state.registrationId,
          bankAccountIds: state.accounts
            .map((account) => account.bankAccountId)
            .filter((id) => !state.revoked.includes(id)),
          reason: command.reason,
          at: command.at,
        }),
      )

const revoke = (command: RevokeAccess, state: State & { _tag: "Connected" }): Decision<Event> => {
  const targets = state.accounts
    .filter(
      (account) => command.providerAccountId === undefined || account.providerAccountId === command.providerAccountId,
    )
    .map((account) => account.bankAccountId)
    .filter((id) => !state.revoked.includes(id))
  if (targets.length === 0) return nothing
  return accept(
    BankLinkAccountsRevoked.make({
      itemId: state.itemId,
      partnerId: state.partnerId,
      registrationId: state.registrationId,
      bankAccountIds: targets,
      at: command.at,
    }),
  )
}

/** The commands on a connected item, each to its function. */
const decideConnected = byCommand<Exclude<Command, ConnectItem>, State & { _tag: "Connected" }, Event>({
  RequestRepair: requestRepair,
  RevokeAccess: revoke,
})

export const decide = (command: Command, state: State): Decision<Event, DomainError> => {
  if (command._tag === "ConnectItem") return connect(command, state)
  if (state._tag === "Unknown") return refuse(new NotFound({ entity }))
  return decideConnected(command, state)
}

export const evolve: (state: State, event: Event) => State = byEvent<Event, State>({
  BankLinkItemConnected: (state, event) => {
    const known = state._tag === "Connected" ? state.accounts : []
    const fresh = event.accounts.map((account) => account.bankAccountId)
    return {
      _tag: "Connected",
      itemId: event.itemId,
      partnerId: event.partnerId,
      registrationId: event.registrationId,
      accounts: [...known.filter((account) => !fresh.includes(account.bankAccountId)), ...event.accounts],
      repairRequested: false,
      revoked: state._tag === "Connected" ? state.revoked.filter((id) => !fresh.includes(id)) : [],
    }
  },
  BankLinkRepairRequested: (state) => (state._tag === "Connected" ? { ...state, repairRequested: true } : state),
  BankLinkAccountsRevoked: (state, event) =>
    state._tag === "Connected" ? { ...state, revoked: [...state.revoked, ...event.bankAccountIds] } : state,
})

export const aggregate: Aggregate<Command, Event, State, DomainError> = {
  name: "BankLinkItem",
  initialState,
  decide,
  evolve,
  events: BankLinkItemEvent,
  eventVersion: () => 1,
}
