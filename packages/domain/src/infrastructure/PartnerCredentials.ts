/**
 * The PartnerCredentials port: checks a partner's ClientId and ClientSecret
 * (issued by the service operator) and says which partner they belong to.
 *
 * Interface only: adapters implement it (an in-memory one in adapters-http,
 * a PostgreSQL one in adapters-pg). Every implementation must store secrets
 * only as keyed hashes (client secrets are 256-bit random values, so a keyed
 * HMAC under a server pepper suffices, see `@partnerpay/secrets`), compare in
 * constant time, and do the same work whether the ClientId is unknown or the
 * secret is wrong, so that the answer does not reveal which ClientIds exist.
 */
import { Context, type Effect, type Option, type Redacted } from "effect"
import type { PartnerId } from "../kernel/Ids.ts"

/** The partner a valid credential pair belongs to. */
export interface AuthenticatedPartner {
  readonly partnerId: PartnerId
}

export class PartnerCredentials extends Context.Service<
  PartnerCredentials,
  {
    /**
     * `Some` with the partner when the pair is valid, `None` otherwise (unknown
     * ClientId and wrong secret are indistinguishable). Never fails: a broken
     * store is a defect for the caller.
     */
    readonly authenticate: (
      clientId: string,
      clientSecret: Redacted.Redacted<string>,
    ) => Effect.Effect<Option.Option<AuthenticatedPartner>>
  }
>()("partnerpay/domain/PartnerCredentials") {}
