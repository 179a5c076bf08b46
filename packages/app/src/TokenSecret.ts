/**
 * The token signing secret. Production takes it from PARTNERPAY_TOKEN_SECRET
 * (required). A sandbox without it generates one once (48 random bytes,
 * base64url) and keeps it in `<dataDir>/token-secret` with mode 0600, so
 * tokens stay valid across restarts. The file is created exclusively (`wx`),
 * so two instances starting together agree on one secret.
 */
import { randomBytes } from "node:crypto"
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Option, Redacted } from "effect"
import { type AppConfig, minimumTokenSecretBytes } from "./Config.ts"

export const fileName = "token-secret"

/** The secret to sign tokens with; creates the sandbox secret file when needed. */
export const resolve = (config: AppConfig): Effect.Effect<Redacted.Redacted<string>, Error> =>
  Option.match(config.tokenSecret, {
    onSome: Effect.succeed,
    onNone: () =>
      Effect.tryPromise({
        try: () => fromFile(config.dataDir),
        catch: (cause) =>
          new Error(`cannot create or read the sandbox token secret in ${config.dataDir}: ${String(cause)}`),
      }),
  })

const fromFile = async (dataDir: string): Promise<Redacted.Redacted<string>> => {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const path = join(dataDir, fileName)
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
