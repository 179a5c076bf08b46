/**
 * A server whose in-memory domain the test can also reach: companies and
 * customers are registered through their aggregates (as the company and login
 * flows do), and customer tokens are minted with the `Tokens` service.
 */
import type { Ids } from "@partnerpay/domain"
import { Fixtures } from "@partnerpay/domain/testing"
import { Effect, Layer, ManagedRuntime } from "effect"
import type { CallerIdentity } from "../src/cross-cutting/Caller.ts"
import { Tokens } from "../src/cross-cutting/Tokens.ts"
import * as Server from "../src/Server.ts"
import { DomainInMemory, type Handler, Ports, TokensTest } from "./fixtures.ts"

type DomainServices = ManagedRuntime.ManagedRuntime.Services<
  ManagedRuntime.ManagedRuntime<Layer.Success<typeof DomainInMemory>, never>
>

export interface SharedServer {
  readonly handler: Handler
  readonly run: <A, E>(effect: Effect.Effect<A, E, DomainServices>) => Effect.Effect<A>
  readonly dispose: () => Promise<void>
  /**
   * A new id on this server for each call, so that tests sharing it never meet:
   * `freshId("7e57ab1e")` is `7e57ab1e-0000-4000-8000-<n>`, n counting up (12 hex digits).
   */
  readonly freshId: (prefix: string) => string
}

export const makeSharedServer = async (): Promise<SharedServer> => {
  const domain = ManagedRuntime.make(DomainInMemory)
  const context = await domain.context()
  const { handler, dispose } = Server.toWebHandler(Layer.mergeAll(Ports, Layer.succeedContext(context)))
  const run = <A, E>(effect: Effect.Effect<A, E, DomainServices>) => Effect.promise(() => domain.runPromise(effect))
  let counter = 0
  return {
    handler: handler as Handler,
    run,
    freshId: (prefix) => `${prefix}-0000-4000-8000-${(++counter).toString(16).padStart(12, "0")}`,
    dispose: async () => {
      await dispose()
      await domain.dispose()
    },
  }
}

/** Issues a token with the real clock (a test's TestClock would make it already expired for the server). */
const issue = (caller: CallerIdentity) =>
  Effect.promise(() =>
    Effect.runPromise(
      Effect.gen(function* () {
        const tokens = yield* Tokens
        return (yield* tokens.issue(caller)).accessToken
      }).pipe(Effect.provide(TokensTest)),
    ),
  )

export const customerToken = (partnerId: Ids.PartnerId, registrationId: Ids.RegistrationId) =>
  issue({ _tag: "Customer", partnerId, registrationId })

export const partnerTokenFor = (partnerId: Ids.PartnerId) => issue({ _tag: "Partner", partnerId })

export const registerCompany = (partnerId: Ids.PartnerId, companyId: Ids.CompanyId, name: string) =>
  Fixtures.registerCompany(partnerId, companyId, name, { locations: 0, body: { websiteUrl: undefined } })

/** A company whose KYB completed Verified: only a Verified company collects payments. */
export const registerVerifiedCompany = (partnerId: Ids.PartnerId, companyId: Ids.CompanyId, name: string) =>
  Fixtures.registerVerifiedCompany(partnerId, companyId, name, { locations: 0, body: { websiteUrl: undefined } })

export const registerCustomer = (partnerId: Ids.PartnerId, registrationId: Ids.RegistrationId) =>
  Fixtures.registerCustomer(partnerId, registrationId)
