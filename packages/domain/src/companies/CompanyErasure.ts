/**
 * Erasure of a company's owner (right to erasure, crypto-shredding): the data
 * key of `company-owner:<companyId>` is deleted, so the owner's fields in the
 * company's events (name, e-mail, phone, title, SSN last four, date of birth,
 * address, and a tax id that is an SSN or ITIN) read "[erased]" from now on.
 * The company itself (status, locations, payments) is unaffected; its read
 * model never held the owner.
 */

import { Option } from "effect"
import { PersonalDataVault } from "../infrastructure/PersonalData.ts"
import { ReadModelStore } from "../infrastructure/ReadModel.ts"
import { NotFound } from "../kernel/DomainError.ts"
import * as Traced from "../kernel/Traced.ts"
import * as CompaniesProjection from "./CompaniesProjection.ts"
import { kybSubject, ownerSubject } from "./CompanyPersonalData.ts"

export interface OwnerErased {
  readonly companyId: string
  /** False when the owner was already erased. */
  readonly erasedNow: boolean
}

/** Erases the personal data of the owner of `companyId` (any partner's): NotFound (Company) if unknown. */
export const eraseOwner = Traced.fn("CompanyErasure.eraseOwner")(function* (companyId: string) {
  const store = yield* ReadModelStore
  const stored = yield* store.get(CompaniesProjection.collection, companyId)
  if (Option.isNone(stored)) return yield* new NotFound({ entity: "Company" })
  const vault = yield* PersonalDataVault
  const erasedNow = yield* vault.erase(ownerSubject(companyId))
  // What was kept for the KYB submission goes with the owner (already gone once submitted).
  yield* vault.erase(kybSubject(companyId))
  const result: OwnerErased = { companyId, erasedNow }
  return result
})
