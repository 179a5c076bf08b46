/** The EventStore contract against the domain's in-memory store (the reference the SQL stores are held to). */
import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import { EventStore } from "@partnerpay/domain"
import { eventStoreContract } from "@partnerpay/domain/testing"

eventStoreContract("in memory", EventStore.layerMemory, { describe, it, beforeAll, afterAll })
