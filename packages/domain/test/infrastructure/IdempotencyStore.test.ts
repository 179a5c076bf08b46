/** The in-memory IdempotencyStore passes the store contract. */
import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import { layerMemory } from "../../src/infrastructure/IdempotencyStore.ts"
import { idempotencyStoreContract } from "../../src/testing/IdempotencyStoreContract.ts"

idempotencyStoreContract("memory", layerMemory, { describe, it, beforeAll, afterAll })
