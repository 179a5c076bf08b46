/** Handlers of the `account` group: link, list and delete bank accounts (customer tokens only). */
import { BankAccounts, type CustomerProviders, Traced } from "@partnerpay/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { presentedToken, requireCustomer } from "../cross-cutting/Authentication.ts"
import * as AuthorizationClient from "../cross-cutting/AuthorizationClient.ts"
import { Tokens } from "../cross-cutting/Tokens.ts"
import { toProblem } from "./IdentityProblems.ts"

/** Provider ports these handlers need (named so the layer's type can be emitted). */
export type Requires = CustomerProviders.BankLinker

export const AccountLive = HttpApiBuilder.group(
  Api,
  "account",
  Effect.fn(function* (handlers) {
    const tokens = yield* Tokens
    return handlers
      .handle(
        "link",
        Traced.fn("AccountLive.link")(function* ({ payload }) {
          const caller = yield* requireCustomer
          const result = yield* BankAccounts.link(caller.partnerId, caller.registrationId, {
            tokenId: payload.tokenId,
            publicToken: payload.publicToken,
            linkSessionId: payload.linkAccountsMetadata.linkSessionId,
            institutionId: payload.linkAccountsMetadata.institutionId,
            accountIds: payload.linkAccountsMetadata.accountIds,
          }).pipe(Effect.mapError(toProblem))
          if (!result.isOk) {
            return {
              refreshToken: "",
              isOk: false,
              errors: result.errors,
              screenerErrors: [],
              linkError: result.linkError,
            }
          }
          // A renewal of the presented token (same login time, so never past 24 h after the login);
          // a token revoked meanwhile gets no refresh token.
          const refreshed = yield* tokens.renew(yield* presentedToken).pipe(
            Effect.map((issued) => issued.accessToken),
            Effect.orElseSucceed(() => ""),
          )
          return { refreshToken: refreshed, isOk: true, errors: [], screenerErrors: [], linkError: null }
        }),
      )
      .handle(
        "list",
        Traced.fn("AccountLive.list")(function* () {
          const { partnerId, registrationId } = yield* requireCustomer
          const accounts = yield* BankAccounts.list(partnerId, registrationId).pipe(Effect.mapError(toProblem))
          return {
            accounts: accounts.map((a) => ({
              accountId: a.bankAccountId,
              institutionId: a.institutionId,
              name: a.name,
              mask: a.mask,
              type: a.type,
              status: a.status ?? "Active",
              ...(a.returnCode === undefined ? {} : { returnCode: a.returnCode }),
            })),
          }
        }),
      )
      .handle(
        "setDefault",
        Traced.fn("AccountLive.setDefault")(function* ({ payload }) {
          const { partnerId, registrationId } = yield* requireCustomer
          const client = yield* AuthorizationClient.current
          yield* BankAccounts.setDefault(partnerId, registrationId, payload.bankAccountId, client).pipe(
            Effect.mapError(toProblem),
          )
        }),
      )
      .handle(
        "getDefault",
        Traced.fn("AccountLive.getDefault")(function* () {
          const { partnerId, registrationId } = yield* requireCustomer
          const { account, authorization } = yield* BankAccounts.getDefault(partnerId, registrationId).pipe(
            Effect.mapError(toProblem),
          )
          return {
            ...(authorization === undefined ? {} : { authorization }),
            account:
              account === undefined
                ? null
                : {
                    accountId: account.bankAccountId,
                    institutionId: account.institutionId,
                    name: account.name,
                    mask: account.mask,
                    type: account.type,
                    // An unusable account is never the autopay account (its designation is cleared).
                    status: "Active" as const,
                  },
          }
        }),
      )
      .handle(
        "delete",
        Traced.fn("AccountLive.delete")(function* ({ payload }) {
          const { partnerId, registrationId } = yield* requireCustomer
          yield* BankAccounts.remove(partnerId, registrationId, payload.accountId).pipe(Effect.mapError(toProblem))
        }),
      )
  }),
)
