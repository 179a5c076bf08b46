/** The EventStore contract against the domain's in-memory store (the reference the SQL stores are held to). */
import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import { EventStore } from "@partnerpay/domain"
import { EventStoreContract } from "@partnerpay/domain/testing"

EventStoreContract.eventStoreContract("in memory", EventStore.EventStore.layerMemory, {
  describe,
  it,
  beforeAll,
  afterAll,
})
