/**
 * A company's metadata: the partner's own key-value pairs (`kernel/Metadata.ts`), set on registration and
 * replaced whole with `PUT /Company/{companyId}/Metadata`. A command of the Company aggregate, in a module of
 * its own like the payout account. Rules: any status (the partner's data, not the company's business); the
 * metadata keeps the `Metadata` rules; the same metadata again changes nothing; another partner's company
 * is NotFound.
 */
import type { DateTime } from "effect"
import { accept, type Decision, nothing, refuse } from "../kernel/Decider.ts"
import { NotFound, ValidationFailed } from "../kernel/DomainError.ts"
import type * as Ids from "../kernel/Ids.ts"
import * as Metadata from "../kernel/Metadata.ts"
import type { CompanyEvent } from "./CompanyEvents.ts"

export interface SetCompanyMetadata {
  readonly _tag: "SetCompanyMetadata"
  readonly partnerId: Ids.PartnerId
  readonly companyId: Ids.CompanyId
  readonly metadata: Metadata.Metadata
  readonly at: DateTime.Utc
}

/** What the rule reads of the company: whose it is and its current metadata. */
export interface CompanyFacts {
  readonly _tag: "Initial" | "Unverified" | "Verified" | "Rejected" | "Suspended"
  readonly partnerId?: Ids.PartnerId
  readonly metadata?: Metadata.Metadata | undefined
}

export const setCompanyMetadata = (command: SetCompanyMetadata, company: CompanyFacts): Decision<CompanyEvent> => {
  if (company._tag === "Initial" || company.partnerId !== command.partnerId)
    return refuse(new NotFound({ entity: "Company" }))
  const issues = Metadata.issues("metadata", command.metadata)
  if (issues.length > 0) return refuse(new ValidationFailed({ issues: [...issues] }))
  if (Metadata.equals(company.metadata ?? Metadata.empty, command.metadata)) return nothing
  return accept<CompanyEvent>({
    _tag: "CompanyMetadataSet",
    companyId: command.companyId,
    partnerId: command.partnerId,
    metadata: command.metadata,
    at: command.at,
  })
}
