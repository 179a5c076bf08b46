/** The property seed helper: a file's own seed, or FC_SEED when set, and the number of runs asked for. */
import { assert, describe, it } from "@effect/vitest"
import { PropertyParams } from "../../src/testing/index.ts"

const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env

const withSeed = <A>(value: string | undefined, body: () => A): A => {
  const before = env.FC_SEED
  if (value === undefined) delete env.FC_SEED
  else env.FC_SEED = value
  try {
    return body()
  } finally {
    if (before === undefined) delete env.FC_SEED
    else env.FC_SEED = before
  }
}

describe("property parameters", () => {
  it("a file's properties run with its own fixed seed and the default number of runs", () => {
    withSeed(undefined, () =>
      assert.deepStrictEqual(PropertyParams.propertyParams(7)(), { seed: 7, numRuns: PropertyParams.defaultNumRuns }),
    )
  })

  it("a property may ask for more runs, under the same seed", () => {
    withSeed(undefined, () =>
      assert.deepStrictEqual(PropertyParams.propertyParams(7)({ numRuns: 300 }), { seed: 7, numRuns: 300 }),
    )
  })

  it("FC_SEED replaces every file's seed, to explore other cases", () => {
    withSeed(" 12345 ", () => assert.strictEqual(PropertyParams.propertyParams(7)().seed, 12345))
  })

  it("an empty FC_SEED is no seed", () => {
    withSeed("", () => assert.strictEqual(PropertyParams.propertyParams(7)().seed, 7))
  })

  it("an FC_SEED that is not an integer is refused rather than ignored", () => {
    withSeed("abc", () => assert.throws(() => PropertyParams.propertyParams(7)(), /FC_SEED must be an integer/))
    withSeed("1.5", () => assert.throws(() => PropertyParams.propertyParams(7)(), /FC_SEED/))
  })
})
