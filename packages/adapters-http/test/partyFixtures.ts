/**
 * A server whose in-memory domain the test can also reach: companies and
 * customers are registered through their aggregates (as the company and login
 * flows do), and customer tokens are minted with the `Tokens` service.
 */
import { CommandHandler, Company, Customer, type Ids } from "@partnerpay/domain"
import { DateTime, Effect, Layer, ManagedRuntime } from "effect"
import type { CallerIdentity } from "../src/Caller.ts"
import * as Server from "../src/Server.ts"
import { Tokens } from "../src/Tokens.ts"
import { DomainInMemory, type Handler, Ports, TokensTest } from "./fixtures.ts"

type DomainServices = ManagedRuntime.ManagedRuntime.Services<
  ManagedRuntime.ManagedRuntime<Layer.Success<typeof DomainInMemory>, never>
>

export interface SharedServer {
  readonly handler: Handler
  readonly run: <A, E>(effect: Effect.Effect<A, E, DomainServices>) => Effect.Effect<A>
  readonly dispose: () => Promise<void>
}

export const makeSharedServer = async (): Promise<SharedServer> => {
  const domain = ManagedRuntime.make(DomainInMemory)
  const context = await domain.context()
  const { handler, dispose } = Server.toWebHandler(Layer.mergeAll(Ports, Layer.succeedContext(context)))
  const run = <A, E>(effect: Effect.Effect<A, E, DomainServices>) => Effect.promise(() => domain.runPromise(effect))
  return {
    handler: handler as Handler,
    run,
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

const registration = (name: string, reference: string) =>
  ({
    companyReferenceId: reference,
    name,
    emailAddress: "hello@acme.example.com",
    taxId: "12-3456789",
    taxIdType: "EIN",
    streetNumberAndName: "100 Main St",
    apartmentNumber: "Suite 200",
    zipCode: "94105",
    city: "San Francisco",
    state: "CA",
    contactNumber: "+14155550199",
    companyType: "ForProfit",
    owner: {
      name: "Ada Lovelace",
      emailAddress: "ada@acme.example.com",
      contactNumber: "(415) 555-0100",
      title: "CEO",
      documentNumber: "D1234567",
      documentType: "DriversLicense",
      ssn: "123-45-6789",
      dateOfBirth: "1980-12-10",
      streetNumberAndName: "1 Analytical Way",
      apartmentNumber: "Apt 4",
      zipCode: "94105-1234",
      city: "San Francisco",
      state: "CA",
    },
    employees: [],
    locations: [],
  }) as unknown as Company.RegistrationInput

export const registerCompany = (partnerId: Ids.PartnerId, companyId: Ids.CompanyId, name: string) =>
  Effect.gen(function* () {
    yield* CommandHandler.handle(Company.aggregate, companyId, {
      _tag: "RegisterCompany",
      partnerId,
      companyId,
      locationIds: [],
      registration: registration(name, `ref-${companyId.slice(-6)}`),
      at: yield* DateTime.now,
    })
  })

export const registerCustomer = (partnerId: Ids.PartnerId, registrationId: Ids.RegistrationId) =>
  Effect.gen(function* () {
    yield* CommandHandler.handle(Customer.aggregate, registrationId, {
      _tag: "RegisterCustomer",
      registrationId,
      partnerId,
      phoneNumber: "+14155550123",
      at: yield* DateTime.now,
    })
  })
