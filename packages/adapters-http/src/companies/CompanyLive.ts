/**
 * Handlers of the `companies` group: they take the partner from the token,
 * call the Companies use cases and map domain errors to problems. A
 * companyReferenceId the partner already used is 409 with the code
 * DUPLICATE_COMPANY_REFERENCE; the status query must name the company by
 * exactly one of companyId or companyReferenceId (422 otherwise).
 */
import {
  Companies,
  DomainError,
  EventStore,
  IdGenerator,
  Metadata,
  Policy,
  ReadModel,
  Traced,
  UnitOfWork,
} from "@partnerpay/domain"
import { Effect, Result, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Authentication, requirePartner } from "../cross-cutting/Authentication.ts"
import * as GroupContext from "../cross-cutting/GroupContext.ts"
import * as Problem from "../cross-cutting/Problem.ts"
import { ProblemHandling } from "../cross-cutting/ProblemHandling.ts"
import * as UnknownFields from "../cross-cutting/UnknownFields.ts"
import { unknownCreateFields, unknownLocationFields } from "./CompanyApi.ts"

/** Domain errors to problems; a second use of a reference gets its own code. */
const toProblem = (
  error: DomainError.DomainError | EventStore.VersionConflict | EventStore.EventStoreUnavailable,
): Problem.DomainProblem =>
  error._tag === "AlreadyExists" && error.entity === "CompanyReference"
    ? new Problem.AlreadyExistsProblem({
        detail: "This partner already registered a company with this companyReferenceId.",
        code: "DUPLICATE_COMPANY_REFERENCE",
      })
    : Problem.fromDomain(error)

const refuseUnknown = (fields: ReadonlyArray<string>): Effect.Effect<void, Problem.BadRequest> =>
  fields.length === 0 ? Effect.void : Effect.fail(UnknownFields.refusal(fields))

const decodeMetadata = Schema.decodeUnknownResult(Metadata.Metadata)

/**
 * The body's `metadata` against its shape (`Metadata`): a bad key or value is a 400 naming `metadata.<key>`,
 * as on every other operation that takes metadata (their bodies are decoded strictly).
 */
const checkMetadata = (body: Record<string, unknown>): Effect.Effect<void, Problem.BadRequest> => {
  const metadata = body.metadata
  if (metadata === undefined) return Effect.void
  const result = decodeMetadata(metadata)
  if (Result.isSuccess(result)) return Effect.void
  const refusal = Problem.badRequest("Payload", result.failure.issue)
  return Effect.fail(
    new Problem.BadRequest({
      ...refusal,
      errors: refusal.errors.map((error) => ({
        ...error,
        field: error.field === "body" ? "metadata" : `metadata.${error.field}`,
      })),
    }),
  )
}

const exactlyOne = (query: {
  readonly companyId?: string
  readonly companyReferenceId?: string
}): Effect.Effect<Companies.CompanyLookup, DomainError.ValidationFailed> => {
  if (query.companyId !== undefined && query.companyReferenceId !== undefined) {
    return Effect.fail(
      new DomainError.ValidationFailed({
        issues: [
          { field: "query.companyId", message: "give either companyId or companyReferenceId, not both" },
          { field: "query.companyReferenceId", message: "give either companyId or companyReferenceId, not both" },
        ],
      }),
    )
  }
  if (query.companyId !== undefined) return Effect.succeed({ companyId: query.companyId })
  if (query.companyReferenceId !== undefined) return Effect.succeed({ companyReferenceId: query.companyReferenceId })
  return Effect.fail(
    DomainError.ValidationFailed.of(
      "query",
      "give exactly one of the query parameters companyId or companyReferenceId",
    ),
  )
}

/** Built with only the services its handlers use (`GroupContext`): a smaller copy per request. */
export const CompanyLive = GroupContext.only(
  HttpApiBuilder.group(Api, "companies", (handlers) =>
    Effect.succeed(
      handlers
        .handle(
          "create",
          Traced.fn("CompanyLive.create")(function* ({ payload }) {
            const { partnerId } = yield* requirePartner
            yield* refuseUnknown(unknownCreateFields(payload))
            yield* checkMetadata(payload)
            const registered = yield* Companies.register(partnerId, payload).pipe(Effect.mapError(toProblem))
            // The KYB submission (registered.kybSubmission) is handed to the KYB provider by the
            // application's KYB integration; the HTTP answer carries only the new ids (and the metadata).
            return {
              companyId: registered.companyId,
              locationIds: registered.locationIds,
              metadata: (payload.metadata as Metadata.Metadata | undefined) ?? {},
            }
          }),
        )
        .handle(
          "setMetadata",
          Traced.fn("CompanyLive.setMetadata")(function* ({ params, payload }) {
            const { partnerId } = yield* requirePartner
            return yield* Companies.setMetadata(partnerId, params.companyId, payload.metadata).pipe(
              Effect.mapError(toProblem),
            )
          }),
        )
        .handle(
          "addLocation",
          Traced.fn("CompanyLive.addLocation")(function* ({ params, payload }) {
            const { partnerId } = yield* requirePartner
            yield* refuseUnknown(unknownLocationFields(payload))
            return yield* Companies.addLocation(partnerId, params.companyReferenceId, payload).pipe(
              Effect.mapError(toProblem),
            )
          }),
        )
        .handle(
          "setPayoutAccount",
          Traced.fn("CompanyLive.setPayoutAccount")(function* ({ params, payload }) {
            const { partnerId } = yield* requirePartner
            return yield* Companies.setPayoutAccount(partnerId, params.companyId, payload).pipe(
              Effect.mapError(toProblem),
            )
          }),
        )
        .handle(
          "payoutAccount",
          Traced.fn("CompanyLive.payoutAccount")(function* ({ params }) {
            const { partnerId } = yield* requirePartner
            return yield* Companies.payoutAccount(partnerId, params.companyId).pipe(Effect.mapError(toProblem))
          }),
        )
        .handle(
          "status",
          Traced.fn("CompanyLive.status")(function* ({ query }) {
            const { partnerId } = yield* requirePartner
            const lookup = yield* exactlyOne(query).pipe(Effect.mapError(toProblem))
            return yield* Companies.status(partnerId, lookup).pipe(Effect.mapError(toProblem))
          }),
        ),
    ),
  ),
  [
    ReadModel.ReadModelStore,
    EventStore.EventStore,
    IdGenerator.IdGenerator,
    Policy.Policies,
    UnitOfWork.UnitOfWork,
    Authentication,
    ProblemHandling,
  ],
)
