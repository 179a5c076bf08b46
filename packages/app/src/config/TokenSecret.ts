/**
 * The server's own secrets: the token signing secret and the client-secret
 * pepper.
 *
 * - Token secret: production takes it from PARTNERPAY_TOKEN_SECRET (required),
 *   and PARTNERPAY_TOKEN_SECRET_PREVIOUS (optional) keeps the tokens of the
 *   previous key valid during a rotation. A sandbox without it generates one
 *   once and keeps it in `<dataDir>/token-secret`.
 * - Pepper: the HMAC key of stored client-secret hashes (`@partnerpay/secrets`).
 *   Production takes it from PARTNERPAY_SECRET_PEPPER (required); a sandbox
 *   without it generates one once into `<dataDir>/secret-pepper`. It is its
 *   own secret, not derived from the token secret, so that rotating the token
 *   secret never invalidates the partners' client secrets. Changing the pepper
 *   does: every partner then needs a new secret (rotate-secret).
 *
 * Generated files hold 48 random bytes (base64url) with mode 0600, so they
 * survive restarts. They are created exclusively (`wx`), so two instances
 * starting together agree on one value.
 */
import { randomBytes } from "node:crypto"
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { SecretHash } from "@partnerpay/adapters-pg"
import { Effect, Layer, Option, Redacted } from "effect"
import { type AppConfig, minimumTokenSecretBytes } from "./Config.ts"

export const fileName = "token-secret"
export const pepperFileName = "secret-pepper"

const orFile = (configured: Option.Option<Redacted.Redacted<string>>, dataDir: string, file: string, what: string) =>
  Option.match(configured, {
    onSome: Effect.succeed,
    onNone: () =>
      Effect.tryPromise({
        try: () => fromFile(dataDir, file),
        catch: (cause) => new Error(`cannot create or read the sandbox ${what} in ${dataDir}: ${String(cause)}`),
      }),
  })

/** The secret to sign tokens with; creates the sandbox secret file when needed. */
export const resolve = (config: AppConfig): Effect.Effect<Redacted.Redacted<string>, Error> =>
  orFile(config.tokenSecret, config.dataDir, fileName, "token secret")

/** The client-secret pepper; creates the sandbox pepper file when needed. */
export const resolvePepper = (config: AppConfig): Effect.Effect<Redacted.Redacted<string>, Error> =>
  orFile(config.secretPepper, config.dataDir, pepperFileName, "secret pepper")

/** Provides the resolved pepper as `SecretHash.Pepper` (to the partner credential stores). */
export const pepperLayer = (config: AppConfig): Layer.Layer<never, Error> =>
  Layer.unwrap(
    Effect.map(resolvePepper(config), (pepper) => Layer.succeed(SecretHash.Pepper, pepper) as Layer.Layer<never>),
  )

const fromFile = async (dataDir: string, file: string): Promise<Redacted.Redacted<string>> => {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const path = join(dataDir, file)
  try {
    await writeFile(path, randomBytes(48).toString("base64url"), { flag: "wx", mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
  const info = await stat(path)
  if ((info.mode & 0o077) !== 0) await chmod(path, 0o600)
  const secret = (await readFile(path, "utf8")).trim()
  if (new TextEncoder().encode(secret).byteLength < minimumTokenSecretBytes) {
    throw new Error(`${path} holds fewer than ${minimumTokenSecretBytes} bytes; delete it to generate a new one`)
  }
  return Redacted.make(secret)
}
