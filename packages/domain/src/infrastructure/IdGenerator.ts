/**
 * The IdGenerator port: where new ids come from. Deciders never make ids;
 * the edge asks this service and puts the id in the command, so a decision
 * can be replayed with the same result.
 */
import { Context, Effect, Layer } from "effect"

// The Web Crypto global exists in every supported runtime (Node >= 22, browsers, Deno, Bun);
// declared here because the domain compiles without DOM or Node typings.
declare const crypto: { randomUUID(): string }

export class IdGenerator extends Context.Service<
  IdGenerator,
  {
    /** A new lowercase UUID v4. */
    readonly next: Effect.Effect<string>
  }
>()("partnerpay/domain/IdGenerator") {
  /** Random v4 UUIDs from the platform's cryptographic generator. */
  static readonly layerRandom: Layer.Layer<IdGenerator> = Layer.succeed(
    IdGenerator,
    IdGenerator.of({ next: Effect.sync(() => crypto.randomUUID()) }),
  )

  /** Predictable ids for tests: 00000000-0000-4000-8000-000000000001, ...0002, ... */
  static readonly layerSequential: Layer.Layer<IdGenerator> = Layer.sync(IdGenerator, () => {
    let counter = 0
    return IdGenerator.of({ next: Effect.sync(() => sequentialUuid(++counter)) })
  })
}

/** The n-th predictable UUID (a valid v4 shape). */
export const sequentialUuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`
