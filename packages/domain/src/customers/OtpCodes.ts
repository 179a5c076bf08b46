/**
 * One-time login codes at the edge: where codes come from (`OtpCodes`) and how
 * they are hashed before they reach a command or an event (`CodeHasher`).
 *
 * Codes are 6 decimal digits. Their hash is an HMAC-SHA256 keyed with a server
 * secret over the partner, the phone number and the code: a plain hash of a
 * six-digit code could be reversed by hashing all million codes, a keyed one
 * cannot without the key, and binding the partner and phone makes a hash
 * useless for any other challenge. Both use the platform's Web Crypto (Node
 * >= 22, browsers, Deno, Bun): the random generator is declared here, the
 * HMAC in `kernel/Hmac.ts`, because the domain compiles without DOM or Node
 * typings.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import * as Hmac from "../kernel/Hmac.ts"

declare const crypto: {
  getRandomValues<T extends Uint32Array>(array: T): T
}

/** Every code is this many decimal digits. */
export const codeLength = 6
export const codePattern = /^\d{6}$/

/**
 * What stands for the code on a challenge when the SMS provider owns the codes
 * (`OtpSender.verify`): its keyed hash is recorded when a code is sent, and
 * presented again when the provider approves a typed code (it can never be
 * the hash of a typed code: those are six digits).
 */
export const providerOwnedCode = "provider-owned"

/** The code every sandbox login accepts. */
export const sandboxCode = "123456"

export class OtpCodes extends Context.Service<
  OtpCodes,
  {
    /** A new 6-digit code. */
    readonly next: Effect.Effect<string>
  }
>()("partnerpay/domain/OtpCodes") {
  /** Uniformly random codes from the platform's cryptographic generator (rejection sampling, no modulo bias). */
  static readonly layerRandom: Layer.Layer<OtpCodes> = Layer.succeed(
    OtpCodes,
    OtpCodes.of({
      next: Effect.sync(() => {
        const limit = 4_000_000_000 // the largest multiple of 10^6 below 2^32
        const buffer = new Uint32Array(1)
        let value = limit
        while (value >= limit) value = crypto.getRandomValues(buffer)[0] ?? limit
        return (value % 1_000_000).toString().padStart(codeLength, "0")
      }),
    }),
  )

  /** Always "123456": for the sandbox environment and tests. */
  static readonly layerSandbox: Layer.Layer<OtpCodes> = Layer.succeed(
    OtpCodes,
    OtpCodes.of({ next: Effect.succeed(sandboxCode) }),
  )
}

export interface CodeToHash {
  readonly partnerId: string
  readonly phoneNumber: string
  readonly code: string
}

/** Hashes a code for one challenge; the same input always gives the same hash (lowercase hex). */
export class CodeHasher extends Context.Service<
  CodeHasher,
  {
    readonly hash: (input: CodeToHash) => Effect.Effect<string>
  }
>()("partnerpay/domain/CodeHasher") {
  /** HMAC-SHA256 keyed with `secret` (at least 32 characters, kept by the server, never in events). */
  static readonly layer = (secret: Redacted.Redacted<string>): Layer.Layer<CodeHasher> =>
    Layer.effect(
      CodeHasher,
      Effect.gen(function* () {
        const raw = Redacted.value(secret)
        if (raw.length < 32)
          return yield* Effect.die(new Error("the OTP hashing secret must be at least 32 characters"))
        const key = yield* Effect.promise(() => Hmac.importKey(raw))
        return CodeHasher.of({
          hash: ({ partnerId, phoneNumber, code }) =>
            Effect.promise(() => Hmac.hexDigest(key, `${partnerId}\n${phoneNumber}\n${code}`)),
        })
      }),
    )

  /** A fixed, public key: tests and the sandbox only. */
  static readonly layerTest: Layer.Layer<CodeHasher> = CodeHasher.layer(
    Redacted.make("partnerpay-test-otp-hashing-key-not-secret"),
  )
}
