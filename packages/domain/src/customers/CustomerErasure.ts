/**
 * Erasure of a customer (right to erasure, crypto-shredding): the data keys
 * of the customer (`customer:<registrationId>`: phone number and KYC identity
 * data in events, snapshot and read model) and of the login challenge of
 * their phone number (`login:<challenge stream id>`) are deleted, so every
 * read shows those fields as "[erased]". The customer's read-model document
 * is written back at once in its erased form (no ciphertext of the person
 * stays there). Every token issued to the customer so far is revoked (a new
 * token generation, `TokenGenerations`): a session opened before the erasure
 * ends with it, on this process at once and on the others within their
 * generation refresh. Repeating the erasure revokes again.
 *
 * Everything else stays: the registration id, bank accounts (masked), plans,
 * payments. Logging in again with the same phone number reaches the same
 * customer (its challenge id is the phone's keyed hash); what the customer
 * gives from then on is new personal data, sealed under a new key.
 */

import { Option } from "effect"
import { PersonalDataVault, PhoneIndex } from "../infrastructure/PersonalData.ts"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import * as TokenGenerations from "../infrastructure/TokenGenerations.ts"
import { streamId } from "../kernel/Decider.ts"
import { NotFound } from "../kernel/DomainError.ts"
import { isErased } from "../kernel/Personal.ts"
import * as Traced from "../kernel/Traced.ts"
import { customerSubject, loginSubject, messagesSubject } from "./CustomerPersonalData.ts"
import * as CustomersProjection from "./CustomersProjection.ts"
import * as LoginChallenge from "./LoginChallenge.ts"

export interface CustomerErased {
  readonly registrationId: string
  /** The data subjects whose keys were deleted now (none when the customer was already erased). */
  readonly subjects: ReadonlyArray<string>
  /** The customer's token generation from now on: every token issued before is refused. */
  readonly tokenGeneration: number
}

/** Erases the personal data of the customer `registrationId` (any partner's): NotFound (Customer) if unknown. */
export const erase = Traced.fn("CustomerErasure.erase")(function* (registrationId: string) {
  const store = yield* ReadModelStore
  const vault = yield* PersonalDataVault
  const stored = yield* store.get(CustomersProjection.collection, registrationId)
  if (Option.isNone(stored)) return yield* new NotFound({ entity: "Customer" })
  const document = decodeDocument(CustomersProjection.projection, stored.value)
  const subjects: Array<string> = []
  // The login subject first: its name needs the phone number, readable until the customer's key is gone.
  if (!isErased(document.phoneNumber)) {
    const index = yield* (yield* PhoneIndex).of(document.phoneNumber)
    subjects.push(
      loginSubject(streamId(LoginChallenge.aggregate, LoginChallenge.challengeId(document.partnerId, index))),
    )
  }
  subjects.push(customerSubject(registrationId), messagesSubject(registrationId))
  const erased: Array<string> = []
  for (const subject of subjects) if (yield* vault.erase(subject)) erased.push(subject)
  const after = yield* store.get(CustomersProjection.collection, registrationId)
  if (Option.isSome(after)) yield* store.put(after.value)
  const tokenGeneration = yield* (yield* TokenGenerations.TokenGenerations).bump(
    TokenGenerations.customerSubject(document.registrationId),
  )
  const result: CustomerErased = { registrationId, subjects: erased, tokenGeneration }
  return result
})
