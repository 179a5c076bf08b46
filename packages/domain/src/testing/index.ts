/** Test helpers for embedders and for the domain's own executable specification. */
export * as DeciderSpecification from "./DeciderSpecification.ts"
export * as EventStoreContract from "./EventStoreContract.ts"
export * as Fixtures from "./Fixtures.ts"
export * as IdempotencyStoreContract from "./IdempotencyStoreContract.ts"
export * as PolicySpecification from "./PolicySpecification.ts"
export * as ProjectionSpecification from "./ProjectionSpecification.ts"
export * as PropertyParams from "./PropertyParams.ts"
