/**
 * Who may read a customer's data by registration id: the customer's partner,
 * or the customer itself. A customer naming another registration id gets the
 * same 404 as for an unknown customer (never 403: no existence leak).
 */

import type { Ids } from "@partnerpay/domain"
import { Traced } from "@partnerpay/domain"
import { Caller } from "../cross-cutting/Caller.ts"
import * as Problem from "../cross-cutting/Problem.ts"

export const partnerForCustomer = Traced.fn("CustomerAccess.partnerForCustomer")(function* (
  registrationId: Ids.RegistrationId,
) {
  const caller = yield* Caller
  if (caller._tag === "Customer" && caller.registrationId !== registrationId) {
    return yield* new Problem.ResourceNotFound({ detail: "Customer not found.", code: "NOT_FOUND" })
  }
  return caller.partnerId
})
