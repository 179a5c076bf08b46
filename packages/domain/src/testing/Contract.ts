/**
 * What the store contracts (`EventStoreContract`, `IdempotencyStoreContract`) share: the parts of
 * a test runner they need, their options, and `contractOf`, which makes a contract's cases one suite
 * on the store a layer builds (built once per suite, shared by its tests).
 *
 * Framework-neutral so that the domain keeps importing nothing but `effect`: vitest's and
 * @effect/vitest's `describe`, `it`, `beforeAll` and `afterAll` fit `TestRunner`.
 */
import { Effect, Layer, ManagedRuntime } from "effect"

/** The parts of a test runner the contract needs; vitest's and @effect/vitest's functions fit. */
export interface TestRunner {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => Promise<void>, timeout?: number) => void
  readonly beforeAll: (body: () => Promise<void>, timeout?: number) => void
  readonly afterAll: (body: () => Promise<void>, timeout?: number) => void
}

export interface ContractOptions {
  /** Per-test timeout in milliseconds (default 30 000: a real database can be slow to start). */
  readonly timeout?: number
}

/** One case of a contract: a name and a plain Effect needing the store `R`. */
export interface Case<E, R> {
  readonly name: string
  readonly run: Effect.Effect<void, E, R>
}

/**
 * The contract of the store `R`, named `store`: registers `cases` as the suite "<store> contract: <name>"
 * on the store built by `layer` (built once per suite, shared by its tests).
 */
export const contractOf =
  <E, R>(store: string, cases: ReadonlyArray<Case<E, R>>) =>
  <LE>(name: string, layer: Layer.Layer<R, LE>, runner: TestRunner, options: ContractOptions = {}): void => {
    const timeout = options.timeout ?? 30_000
    runner.describe(`${store} contract: ${name}`, () => {
      const runtime = ManagedRuntime.make(Layer.fresh(layer))
      runner.beforeAll(() => runtime.runPromise(Effect.void), timeout)
      runner.afterAll(() => runtime.dispose(), timeout)
      for (const contract of cases) {
        runner.it(contract.name, () => runtime.runPromise(contract.run), timeout)
      }
    })
  }
