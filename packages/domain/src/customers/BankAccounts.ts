/**
 * Use cases of a customer's bank accounts: link accounts chosen in a bank-link
 * session (PUT /Account/Link), list them (GET /Account/List) and remove one
 * (DELETE /Account/Delete).
 *
 * Linking reports failure as data (`LinkResult` with `isOk: false`), because
 * the interface answers the account link with a 200 whose body carries the
 * failure (section 7): a link error of the provider, the provider being
 * unavailable, a session not issued to this customer, or accounts the
 * Customer aggregate refuses. Malformed input is still a ValidationFailed.
 *
 * Our bank account id: an account already known to the customer (same
 * institution, name, mask and type) keeps its id when linked again; any other
 * gets a new id from `IdGenerator`.
 */

import { Effect, Option } from "effect"
import * as CommandHandler from "../infrastructure/CommandHandler.ts"
import { IdGenerator } from "../infrastructure/IdGenerator.ts"
import { partnerDocument } from "../infrastructure/ReadModel.ts"
import * as UseCase from "../infrastructure/UseCase.ts"
import type * as AuthorizationEvidence from "../kernel/AuthorizationEvidence.ts"
import { type FieldIssue, NotFound, ValidationFailed } from "../kernel/DomainError.ts"
import type { BankAccountId, PartnerId, RegistrationId } from "../kernel/Ids.ts"
import * as Traced from "../kernel/Traced.ts"
import type * as BankLinkItem from "./BankLinkItem.ts"
import * as BankLinkUpdates from "./BankLinkUpdates.ts"
import * as Customer from "./Customer.ts"
import { kycRejected } from "./CustomerBankAccounts.ts"
import type { LinkedBankAccount } from "./CustomerEvents.ts"
import { BankLinker, type LinkError } from "./CustomerProviders.ts"
import * as CustomersProjection from "./CustomersProjection.ts"

const customerNotFound = new NotFound({ entity: "Customer" })

/** The registered customer of the partner, from its aggregate (always current); NotFound otherwise. */
export const loadCustomer = Traced.fn("BankAccounts.loadCustomer")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
) {
  const { state } = yield* UseCase.dieOnCorruptEvent(CommandHandler.load(Customer.aggregate, registrationId))
  if (state._tag !== "Registered" || state.partnerId !== partnerId) return yield* customerNotFound
  return state
})

/** The customer's read-model document; NotFound when missing or another partner's. */
export const customerDocument = Traced.fn("BankAccounts.customerDocument")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
) {
  const customer = yield* partnerDocument(CustomersProjection.projection, partnerId, registrationId)
  return Option.isSome(customer) ? customer.value : yield* customerNotFound
})

export interface LinkRequest {
  readonly tokenId: string
  readonly publicToken: string
  readonly linkSessionId: string
  readonly institutionId: string
  readonly accountIds: ReadonlyArray<string>
}

export { LinkError } from "./CustomerProviders.ts"

export type LinkResult =
  | { readonly isOk: true; readonly accounts: ReadonlyArray<LinkedBankAccount> }
  | { readonly isOk: false; readonly errors: ReadonlyArray<string>; readonly linkError: LinkError | null }

const maxAccountsPerLink = 50

const validateLink = (request: LinkRequest): ValidationFailed | undefined => {
  const issues: Array<FieldIssue> = []
  const nonEmpty = (field: string, value: string) => {
    if (value.trim().length === 0) issues.push({ field, message: "must not be empty" })
    else if (value.length > Customer.maxTextLength) {
      issues.push({ field, message: `must be at most ${Customer.maxTextLength} characters` })
    }
  }
  nonEmpty("publicToken", request.publicToken)
  nonEmpty("linkAccountsMetadata.linkSessionId", request.linkSessionId)
  nonEmpty("linkAccountsMetadata.institutionId", request.institutionId)
  if (request.accountIds.length === 0) {
    issues.push({ field: "linkAccountsMetadata.accountIds", message: "must list at least one account" })
  } else if (request.accountIds.length > maxAccountsPerLink) {
    issues.push({ field: "linkAccountsMetadata.accountIds", message: `must list at most ${maxAccountsPerLink}` })
  }
  request.accountIds.slice(0, maxAccountsPerLink).forEach((id, index) => {
    nonEmpty(`linkAccountsMetadata.accountIds[${index}]`, id)
  })
  return issues.length > 0 ? new ValidationFailed({ issues }) : undefined
}

const failed = (errors: ReadonlyArray<string>, linkError: LinkError | null = null): LinkResult => ({
  isOk: false,
  errors,
  linkError,
})

/** Records the accounts the provider linked (its own unit, after the provider answered). */
const recordLink = UseCase.fn("BankAccounts.recordLink")(function* (
  registrationId: RegistrationId,
  tokenId: string,
  accounts: ReadonlyArray<LinkedBankAccount>,
) {
  return yield* CommandHandler.handleNow(Customer.aggregate, registrationId, {
    _tag: "LinkBankAccounts",
    tokenId,
    accounts,
  })
})

/** Links the accounts the customer chose in the bank-link session `tokenId`. */
export const link = Traced.fn("BankAccounts.link")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  request: LinkRequest,
) {
  const invalid = validateLink(request)
  if (invalid) return yield* invalid
  const customer = yield* loadCustomer(partnerId, registrationId)
  if (!customer.linkSessions.includes(request.tokenId)) {
    return failed(["LINK_SESSION_UNKNOWN: the bank-link session was not issued to this customer"])
  }
  // The decider's rule, checked before the provider is asked: a Rejected customer links nothing.
  if (customer.kycStatus === "Rejected") return failed([`${kycRejected.code}: ${kycRejected.reason}`])
  const linker = yield* BankLinker
  const identity = customer.kycStatus === "Verified" ? customer.personalData : null
  const exchanged = yield* linker
    .exchangePublicToken({
      registrationId,
      tokenId: request.tokenId,
      publicToken: request.publicToken,
      linkSessionId: request.linkSessionId,
      institutionId: request.institutionId,
      accountIds: request.accountIds,
      ...(identity === null
        ? {}
        : {
            holder: {
              firstName: identity.firstName,
              lastName: identity.lastName,
              emailAddress: identity.emailAddress,
            },
          }),
    })
    .pipe(Effect.result)
  if (exchanged._tag === "Failure") {
    const error = exchanged.failure
    if (error._tag === "BankLinkFailed") {
      const { errorType, errorCode, errorMessage, displayMessage } = error
      return failed([`${errorCode}: ${errorMessage}`], { errorType, errorCode, errorMessage, displayMessage })
    }
    return failed(["PROVIDER_UNAVAILABLE: the bank-link provider is unavailable; retry later"], {
      errorType: "API_ERROR",
      errorCode: "PROVIDER_UNAVAILABLE",
      errorMessage: error.reason,
      displayMessage: "Your bank could not be reached. Please try again in a few minutes.",
    })
  }
  const ids = yield* IdGenerator
  const accounts: Array<LinkedBankAccount> = []
  for (const account of exchanged.success.accounts) {
    const known = customer.bankAccounts.find(
      (a) =>
        a.institutionId === account.institutionId &&
        a.name === account.name &&
        a.mask === account.mask &&
        a.type === account.type,
    )
    accounts.push({
      bankAccountId: known?.bankAccountId ?? ((yield* ids.next) as BankAccountId),
      institutionId: account.institutionId,
      name: account.name,
      mask: account.mask,
      type: account.type,
    })
  }
  const handled = yield* recordLink(registrationId, request.tokenId, accounts).pipe(Effect.result)
  if (handled._tag === "Failure") {
    const error = handled.failure
    switch (error._tag) {
      case "ValidationFailed":
        return failed(error.issues.map((issue) => `${issue.field}: ${issue.message}`))
      case "RuleViolated":
        return failed([`${error.code}: ${error.reason}`])
      case "IllegalTransition":
      case "NotFound":
      case "AlreadyExists":
        return failed([error.message])
      default:
        return yield* error
    }
  }
  // The provider's connections (items) the accounts came through, so its notifications find them.
  const items = new Map<string, Array<BankLinkItem.ItemAccount>>()
  exchanged.success.accounts.forEach((account, index) => {
    const bankAccountId = accounts[index]?.bankAccountId
    if (account.itemId === undefined || bankAccountId === undefined) return
    items.set(account.itemId, [
      ...(items.get(account.itemId) ?? []),
      { providerAccountId: account.providerAccountId, bankAccountId },
    ])
  })
  for (const [itemId, itemAccounts] of items) {
    yield* BankLinkUpdates.connect(partnerId, registrationId, itemId, itemAccounts).pipe(
      Effect.catchTag("RuleViolated", (refused) =>
        Effect.logWarning("bank-link item not recorded", { reason: refused.reason }),
      ),
    )
  }
  const result: LinkResult = { isOk: true, accounts }
  return result
})

/** The customer's currently linked bank accounts (masked), in order of first link. */
export const list = Traced.fn("BankAccounts.list")(function* (partnerId: PartnerId, registrationId: RegistrationId) {
  const document = yield* customerDocument(partnerId, registrationId)
  return document.bankAccounts
})

/** Removes a linked account; NotFound (BankAccount) when the customer never had it. Removing twice is fine. */
export const remove = UseCase.fn("BankAccounts.remove")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  bankAccountId: BankAccountId,
) {
  yield* loadCustomer(partnerId, registrationId)
  return yield* CommandHandler.handleNow(Customer.aggregate, registrationId, {
    _tag: "UnlinkBankAccount",
    bankAccountId,
  })
})

/**
 * The customer designates one of their linked accounts for autopay and
 * debit-authorization collections (PUT /Account/Default); NotFound
 * (BankAccount) when it is not linked. Setting the same account again changes
 * nothing. Unlinking the account clears the choice.
 */
export const setDefault = UseCase.fn("BankAccounts.setDefault")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
  bankAccountId: BankAccountId,
  /** The request that carried the payer's autopay authorization, recorded as its evidence. */
  client?: AuthorizationEvidence.ClientContext,
) {
  yield* loadCustomer(partnerId, registrationId)
  return yield* CommandHandler.handleNow(Customer.aggregate, registrationId, {
    _tag: "SetDefaultBankAccount",
    bankAccountId,
    ...(client === undefined ? {} : { client }),
  })
})

/** The linked account the customer designated for autopay, if any (GET /Account/Default). */
export const getDefault = Traced.fn("BankAccounts.getDefault")(function* (
  partnerId: PartnerId,
  registrationId: RegistrationId,
) {
  const customer = yield* loadCustomer(partnerId, registrationId)
  const account = Customer.defaultBankAccount(customer)
  const authorization = customer._tag === "Registered" ? customer.autopayAuthorization : undefined
  return { account, ...(account === undefined || authorization === undefined ? {} : { authorization }) }
})
