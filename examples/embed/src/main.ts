import { Effect } from "effect"
import { consentLifecycle, inMemory, onPglite } from "./consent.js"

const inMemoryOutcome = await Effect.runPromise(consentLifecycle.pipe(Effect.provide(inMemory)))
console.log("in memory:", JSON.stringify(inMemoryOutcome))

const pgliteOutcome = await Effect.runPromise(consentLifecycle.pipe(Effect.provide(onPglite)))
console.log("PGlite:", JSON.stringify(pgliteOutcome))
