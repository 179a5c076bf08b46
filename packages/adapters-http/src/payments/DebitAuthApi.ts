/**
 * Debit authorizations (spec 2.10, 2.11, changelog v0.2): a customer's
 * standing permission for one company of its partner to debit up to a limit
 * per debit.
 *
 * The customer sets (POST /DebitAuth/Set), updates
 * (PUT /DebitAuth/{debitAuthId}/Update) and lists (GET /DebitAuth/List) its
 * own authorizations; the partner reads one payer's authorization
 * (GET /User/{registrationId}/DebitAuth, optional query `companyId`, required
 * when the payer has several).
 */
import { AuthorizationEvidence, DebitAuth, DebitAuths, Ids, Money } from "@partnerpay/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication } from "../cross-cutting/Authentication.ts"
import { AmountResponse } from "../cross-cutting/MoneyResponse.ts"
import * as Problem from "../cross-cutting/Problem.ts"

const Status = DebitAuth.DebitAuthStatus

export const SetRequest = Schema.Struct({
  companyId: Ids.CompanyId,
  limit: Money.WireAmount.annotate({ description: "The most one debit may be; greater than zero" }),
})

export const UpdateRequest = Schema.Struct({
  limit: Schema.optionalKey(Money.WireAmount),
  enabled: Schema.optionalKey(Schema.Boolean),
})

/** Answer of Set and Update. */
const { registrationId: _registrationId, ...debitAuthFields } = DebitAuths.DebitAuthView.fields

/** The domain's debit authorization view without the customer's id (the caller), the limit in its wire form. */
export const DebitAuthResponse = Schema.Struct({ ...debitAuthFields, limit: AmountResponse }).annotate({
  identifier: "DebitAuth",
})

const IdObject = <S extends Schema.Top>(id: S) => Schema.Struct({ value: id })

/** Spec 2.10. */
export const DebitAuthListResponse = Schema.Struct({
  debitAuths: Schema.Array(
    Schema.Struct({
      debitAuthId: IdObject(Ids.DebitAuthId),
      companyId: IdObject(Ids.CompanyId),
      enabled: Schema.Boolean,
      preAuthLimit: Schema.Finite.annotate({ description: "The limit per debit, decimal, in the limit's currency" }),
      companyName: Schema.String,
      status: Status,
      authorization: Schema.optionalKey(
        AuthorizationEvidence.AuthorizationEvidence.annotate({
          description: "The evidence of the payer's latest authorization (docs/api/authorization-evidence.md)",
        }),
      ),
    }),
  ),
})

/** Spec 2.11. */
export const UserDebitAuthResponse = Schema.Struct({
  enabled: Schema.Boolean,
  limit: Schema.Finite,
  status: Status,
  authorization: DebitAuths.DebitAuthView.fields.authorization,
})

export class DebitAuthApi extends HttpApiGroup.make("debitAuth")
  .add(
    HttpApiEndpoint.post("set", "/DebitAuth/Set", {
      payload: SetRequest,
      success: DebitAuthResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Authorize a company to debit",
        description:
          "For customers. One authorization per company: setting again sets the new limit on the existing authorization and enables it. A company of another partner is 404; a limit not greater than zero is 422. The answer leaves out the authorization evidence (it is stored for Idempotency-Key retries); read it on GET /DebitAuth/List.",
      }),
    ),
    HttpApiEndpoint.put("update", "/DebitAuth/:debitAuthId/Update", {
      params: { debitAuthId: Ids.DebitAuthId },
      payload: UpdateRequest,
      success: DebitAuthResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Change the limit or enable/disable",
        description:
          "For customers, on their own authorization (another's is 404). Give limit, enabled or both (neither is 422).",
      }),
    ),
    HttpApiEndpoint.get("list", "/DebitAuth/List", {
      success: DebitAuthListResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "List the customer's debit authorizations",
        description: "For customers: every authorization (Active and Disabled), oldest first.",
      }),
    ),
    HttpApiEndpoint.get("forUser", "/User/:registrationId/DebitAuth", {
      params: { registrationId: Ids.RegistrationId },
      query: {
        companyId: Schema.optionalKey(
          Ids.CompanyId.annotate({
            description: "The company of the authorization; required when the customer has several",
          }),
        ),
      },
      success: UserDebitAuthResponse,
      error: Problem.DomainProblems,
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Read a customer's debit authorization",
        description:
          "For the partner (any of its customers) or the customer itself. 404 when there is none; 422 on companyId when the customer has several and none is named.",
      }),
    ),
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({ title: "Debit authorizations", description: "Debit limits given to companies" }),
  ) {}
