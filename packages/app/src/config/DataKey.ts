/**
 * The data master key (crypto-shredding, docs/personal-data.md): it wraps
 * every data subject's data key and derives the phone number index key.
 *
 * Production takes it from PARTNERPAY_DATA_KEY (required: 32 random bytes in
 * base64, e.g. `openssl rand -base64 32`, or 64 hex digits). A sandbox
 * without it generates one once and keeps it in `<dataDir>/data-key` with
 * mode 0600 (created exclusively, so two instances starting together agree),
 * like the token secret. Losing the key loses every personal field (they read
 * as erased): back it up, but never next to the database's backups.
 */

import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { PgPersonalDataVault } from "@partnerpay/adapters-pg"
import { PersonalData, Traced } from "@partnerpay/domain"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { AppConfig } from "./Config.ts"

export const fileName = "data-key"
export const variable = "PARTNERPAY_DATA_KEY"

/** PARTNERPAY_DATA_KEY when set (and not blank). */
const fromEnvironment = Config.option(Config.Redacted(variable)).pipe(
  Effect.map((value) =>
    Option.filter(value, (secret) => Redacted.value(secret).trim() !== "").pipe(Option.map(Redacted.value)),
  ),
  Effect.orElseSucceed(() => Option.none<string>()),
)

const parse = (text: string, where: string) =>
  Effect.try({
    try: () => PgPersonalDataVault.parseMasterKey(text),
    catch: (cause) => new Error(`${where}: ${(cause as Error).message}`),
  })

/** The master key: PARTNERPAY_DATA_KEY, or (sandbox only) the generated key file. */
export const resolve = Traced.fn("DataKey.resolve")(function* (
  config: AppConfig,
): Effect.fn.Return<Redacted.Redacted<Uint8Array>, Error> {
  // The validated configuration's value first (a configuration built from a record, e.g. in tests), then the
  // environment (CLI commands that resolve the key on their own).
  const given = Option.isSome(config.dataKey)
    ? Option.some(Redacted.value(config.dataKey.value))
    : yield* fromEnvironment
  if (Option.isSome(given)) return yield* parse(given.value, variable)
  if (config.environment === "production") {
    return yield* Effect.fail(
      new Error(`${variable} is required when PARTNERPAY_ENV=production (32 random bytes: openssl rand -base64 32)`),
    )
  }
  const text = yield* Effect.tryPromise({
    try: () => fromFile(config.dataDir),
    catch: (cause) => new Error(`cannot create or read the sandbox data key in ${config.dataDir}: ${String(cause)}`),
  })
  return yield* parse(text, join(config.dataDir, fileName))
})

const fromFile = async (dataDir: string): Promise<string> => {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const path = join(dataDir, fileName)
  try {
    await writeFile(path, PgPersonalDataVault.newMasterKeyText(), { flag: "wx", mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
  const info = await stat(path)
  if ((info.mode & 0o077) !== 0) await chmod(path, 0o600)
  return (await readFile(path, "utf8")).trim()
}

/** The vault (keys in `personal_data_keys`) and the phone index, for a master key. */
export const layerWith = (
  master: Redacted.Redacted<Uint8Array>,
): Layer.Layer<PersonalData.PersonalDataVault, never, SqlClient> =>
  Layer.merge(
    PgPersonalDataVault.layer(master),
    Layer.succeed(
      PersonalData.PhoneIndex,
      PersonalData.makePhoneIndexWith(PgPersonalDataVault.phoneIndexSecret(master)),
    ),
  )

/** The vault and the phone index with the configured master key. */
export const layer = (config: AppConfig): Layer.Layer<PersonalData.PersonalDataVault, Error, SqlClient> =>
  Layer.unwrap(Effect.map(resolve(config), layerWith))

/** The variable holding the new master key for `keys rotate-master` (never a command-line argument). */
export const newVariable = "PARTNERPAY_NEW_DATA_KEY"

/** The new master key of a rotation, from PARTNERPAY_NEW_DATA_KEY. */
export const resolveNew: Effect.Effect<Redacted.Redacted<Uint8Array>, Error> = Config.option(
  Config.Redacted(newVariable),
).pipe(
  Effect.orElseSucceed(() => Option.none<Redacted.Redacted<string>>()),
  Effect.flatMap((value) =>
    Option.isNone(value) || Redacted.value(value.value).trim() === ""
      ? Effect.fail(new Error(`${newVariable} must hold the new master key (e.g. openssl rand -base64 32)`))
      : parse(Redacted.value(value.value), newVariable),
  ),
)

/**
 * After a rotation on a sandbox that uses the generated key file (no
 * PARTNERPAY_DATA_KEY): writes the new key into the file. Answers the file's
 * path when it did.
 */
export const replaceSandboxFile = Traced.fn("DataKey.replaceSandboxFile")(function* (
  config: AppConfig,
  next: Redacted.Redacted<Uint8Array>,
): Effect.fn.Return<Option.Option<string>, Error> {
  if (Option.isSome(yield* fromEnvironment)) return Option.none()
  const path = join(config.dataDir, fileName)
  yield* Effect.tryPromise({
    try: () => writeFile(path, Buffer.from(Redacted.value(next)).toString("base64url"), { mode: 0o600 }),
    catch: (cause) => new Error(`cannot write the new data key to ${path}: ${String(cause)}`),
  })
  return Option.some(path)
})
