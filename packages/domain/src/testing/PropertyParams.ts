/**
 * Seeded property runs, so that no test depends on chance.
 *
 * Each test file that runs fast-check properties declares one fixed seed (a constant of its own) and passes
 * `propertyParams(...)` to every `fc.assert` / `fc.sample`:
 *
 *   const property = propertyParams(20261126_01)
 *   fc.assert(fc.property(...), property({ numRuns: 200 }))
 *
 * Every run of the file then draws the same cases. fast-check prints the seed (and the path of the shrunk
 * counterexample) in the error of a failing property, so a failure can be replayed as it is. To explore other
 * cases, set `FC_SEED` (an integer) in the environment: every file then uses that seed instead of its own.
 * The result is plain data, so the domain stays free of a dependency on fast-check.
 */

/** The fast-check parameters this kit fixes: the seed and the number of runs. */
export interface PropertyParams {
  readonly seed: number
  readonly numRuns: number
}

/** How many cases a property draws when the file does not say. */
export const defaultNumRuns = 100

/** `FC_SEED` from the environment, when it is set to an integer. */
export const seedFromEnvironment = (): number | undefined => {
  const env = (globalThis as { readonly process?: { readonly env?: Record<string, string | undefined> } }).process?.env
  const text = env?.FC_SEED?.trim()
  if (text === undefined || text === "") return undefined
  const seed = Number(text)
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got "${text}"`)
  return seed
}

/**
 * The parameters of one file's properties: its own fixed `fileSeed` (or `FC_SEED` when set), and the number of
 * runs each property asks for.
 */
export const propertyParams =
  (fileSeed: number) =>
  (options?: { readonly numRuns?: number }): PropertyParams => ({
    seed: seedFromEnvironment() ?? fileSeed,
    numRuns: options?.numRuns ?? defaultNumRuns,
  })
