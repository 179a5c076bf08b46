/**
 * A customer's bank accounts (section 4, 2.15): link accounts chosen in a
 * bank-link session, list them, delete one. Customer tokens only (a partner
 * token gets 403).
 *
 * PUT /Account/Link always answers 200 with the account link result; failure
 * is inside the body (`isOk: false`, `errors`, `linkError`), as section 7
 * says. `linkError` is null when the provider reported no link error;
 * `refreshToken` is a fresh customer token on success and "" on failure;
 * `screenerErrors` is always empty (no screening yet). Malformed input is
 * still 400/422.
 *
 * GET /Account/List is an addition: the linked accounts, masked.
 *
 * PUT /Account/Default and GET /Account/Default are additions: the linked
 * account the service debits when it collects an autopay or
 * debit-authorization payment request by itself on its due date.
 */
import { AuthorizationEvidence, BankAccounts, Ids } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import * as Problem from "../cross-cutting/Problem.ts"

export const AccountLinkRequest = Schema.Struct({
  tokenId: Ids.Uuid.annotate({ description: "The session from POST /Verification/StartKyc" }),
  publicToken: Schema.String,
  linkAccountsMetadata: Schema.Struct({
    linkSessionId: Schema.String,
    institutionId: Schema.String,
    accountIds: Schema.Array(Schema.String),
  }),
})

export const LinkError = BankAccounts.LinkError

export const AccountLinkResult = Schema.Struct({
  refreshToken: Schema.String,
  isOk: Schema.Boolean,
  errors: Schema.Array(Schema.String),
  screenerErrors: Schema.Array(Schema.String),
  linkError: Schema.NullOr(LinkError),
})

export const BankAccount = Schema.Struct({
  accountId: Ids.BankAccountId,
  institutionId: Schema.String,
  name: Schema.String,
  mask: Schema.String.annotate({ description: "Last 4 digits of the account number" }),
  type: Schema.String,
  status: Schema.Literals(["Active", "Unusable"]).annotate({
    description:
      "Unusable: the account's bank returned a debit with an account-level code (R02, R03, R04, R12-R17, R20); it cannot be named by a payment, consent or debit authorization (422 BANK_ACCOUNT_UNUSABLE) and is no longer the autopay account until linked again",
  }),
  returnCode: Schema.optionalKey(
    Schema.String.annotate({ description: "Unusable only: the ACH return code that made the account unusable" }),
  ),
})

export const AccountListResponse = Schema.Struct({ accounts: Schema.Array(BankAccount) })

export const AccountDeleteRequest = Schema.Struct({ accountId: Ids.BankAccountId })

export const DefaultAccountRequest = Schema.Struct({
  bankAccountId: Ids.BankAccountId.annotate({ description: "One of the customer's linked accounts" }),
})

export const DefaultAccountResponse = Schema.Struct({
  account: Schema.NullOr(BankAccount).annotate({
    description:
      "The account autopay debits, or null when none is set (autopay then uses the account of the customer's most recent acceptance, if still linked)",
  }),
  authorization: Schema.optionalKey(
    AuthorizationEvidence.AuthorizationEvidence.annotate({
      description:
        "The evidence of the payer's autopay authorization given by this designation (PUT /Account/Default), kept two years: docs/api/authorization-evidence.md. Partners read it on GET /Payment/{id} of each request collected by autopay.",
    }),
  ),
})

export class AccountApi extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.put("link", "/Account/Link", {
      payload: AccountLinkRequest,
      success: AccountLinkResult,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Link bank accounts",
        description:
          "Links the accounts chosen in the bank-link session `tokenId`. Always 200: a failure (provider link error, unknown session) is reported with isOk false.",
      }),
    ),
    HttpApiEndpoint.get("list", "/Account/List", {
      success: AccountListResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List linked bank accounts",
        description: "Addition to the interface: the customer's linked accounts, masked.",
      }),
    ),
    HttpApiEndpoint.delete("delete", "/Account/Delete", {
      payload: AccountDeleteRequest,
      success: HttpApiSchema.Empty(200),
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Delete a linked bank account",
        description: "Removes the account (idempotent). An account the customer never had: 404.",
      }),
    ),
    HttpApiEndpoint.put("setDefault", "/Account/Default", {
      payload: DefaultAccountRequest,
      success: HttpApiSchema.Empty(200),
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Designate the account autopay debits",
        description:
          "Addition to the interface, for the customer: the linked account the service debits when it collects an autopay or debit-authorization payment request by itself on its due date. 200, no body; setting it again is fine. An account not linked to the customer: 404. Unlinking the account clears the choice.",
      }),
    ),
    HttpApiEndpoint.get("getDefault", "/Account/Default", {
      success: DefaultAccountResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read the account autopay debits",
        description: "Addition to the interface: the customer's designated account (masked), or null.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Account", description: "Customer bank accounts (customer token)" })) {}
