/**
 * Operator erasure of personal data (crypto-shredding, docs/personal-data.md),
 * shared by the operator API (`Admin.ts`) and the CLI: the domain's
 * `CustomerErasure.erase` (which also revokes the customer's tokens) and
 * `CompanyErasure.eraseOwner`, with their errors
 * as operation errors (unknown id -> NotFound, 404).
 */
import {
  CompanyErasure,
  CustomerErasure,
  type PersonalData,
  type ReadModel,
  type TokenGenerations,
} from "@partnerpay/domain"
import { Effect } from "effect"
import * as Operations from "./Operations.ts"

/** What the erasure operations use. */
export type ErasureRequirements =
  | ReadModel.ReadModelStore
  | PersonalData.PersonalDataVault
  | TokenGenerations.TokenGenerations

const notFound = (entity: string) => () => Effect.fail(new Operations.NotFound({ entity }))

/** Erases a customer's personal data and revokes their tokens; answers the wire form. */
export const eraseCustomer = (registrationId: string) =>
  CustomerErasure.erase(registrationId).pipe(
    Effect.catchTag("NotFound", notFound("Customer")),
    Effect.map((erased) => ({
      registrationId: erased.registrationId,
      erased: true,
      keysDeleted: erased.subjects.length,
      tokensRevoked: true,
    })),
  )

/** Erases a company owner's personal data; answers the wire form. */
export const eraseCompanyOwner = (companyId: string) =>
  CompanyErasure.eraseOwner(companyId).pipe(
    Effect.catchTag("NotFound", notFound("Company")),
    Effect.map((erased) => ({ companyId: erased.companyId, ownerErased: true, keysDeleted: erased.erasedNow ? 1 : 0 })),
  )
