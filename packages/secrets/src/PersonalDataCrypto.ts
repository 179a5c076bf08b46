/**
 * Crypto-shredding primitives (node:crypto): personal data is sealed with
 * AES-256-GCM under a data key of its data subject (one random 32-byte key per
 * person), data keys are stored only wrapped (AES-256-GCM) under the master
 * key, and lookups of personal values (phone numbers) use a keyed hash (HMAC-
 * SHA256) with a key derived from the master key (HKDF-SHA256).
 *
 * Formats (ASCII, safe in JSON and SQL text):
 * - a sealed value: `pd1.<iv>.<ciphertext>.<tag>` (base64url; 12-byte IV,
 *   16-byte tag); the subject is the additional authenticated data, so a
 *   value moved to another subject does not open;
 * - a wrapped data key: the same format, sealed with the master key and the
 *   additional data `data-key:<subject>`.
 *
 * Deleting a subject's wrapped key makes every value sealed for it unreadable:
 * that is how a person is erased from an immutable log.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomFillSync,
} from "node:crypto"
import * as Hmac from "./Hmac.ts"

/** Bytes of a master key and of a data key (AES-256). */
export const keyBytes = 32

const version = "pd1"

const encode = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

/**
 * A key as node:crypto uses it. `createCipheriv` given raw bytes makes a key object on every
 * call; callers that seal often with one key make it once (`keyObject`) and pass that.
 */
export type Key = Uint8Array | KeyObject

/** The key object of raw key bytes (AES-256: 32 bytes), to reuse across `seal`/`open` calls. */
export const keyObject = (key: Uint8Array): KeyObject => createSecretKey(key)

/**
 * Random bytes for IVs and data keys come from a pool filled 4 KiB at a time by the CSPRNG (one
 * call per ~100 new keys or ~340 IVs instead of one per value); every value takes fresh bytes of
 * the pool, none is ever handed out twice.
 */
const pool = Buffer.alloc(4096)
let poolOffset = pool.length

const freshBytes = (length: number): Buffer => {
  if (poolOffset + length > pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + length))
  poolOffset += length
  return bytes
}

const ivBytes = 12

/** Seals `plaintext` (UTF-8) with `key`, binding `associated` (authenticated, not encrypted). */
export const seal = (key: Key, associated: string, plaintext: string): string => {
  const iv = freshBytes(ivBytes)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(associated, "utf8"))
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return `${version}.${encode(iv)}.${encode(body)}.${encode(cipher.getAuthTag())}`
}

/** True when `value` has the shape of a sealed value (it may still fail to open). */
export const isSealed = (value: unknown): value is string =>
  typeof value === "string" && value.startsWith(`${version}.`) && value.split(".").length === 4

/** Opens a value made by `seal` with the same key and associated data; throws when the key, data or value is wrong. */
export const open = (key: Key, associated: string, sealed: string): string => {
  const parts = sealed.split(".")
  if (parts.length !== 4 || parts[0] !== version) throw new Error("not a sealed value")
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(parts[1]!, "base64url"))
  decipher.setAAD(Buffer.from(associated, "utf8"))
  decipher.setAuthTag(Buffer.from(parts[3]!, "base64url"))
  return Buffer.concat([decipher.update(Buffer.from(parts[2]!, "base64url")), decipher.final()]).toString("utf8")
}

/** A new random data key. */
export const newDataKey = (): Uint8Array => new Uint8Array(freshBytes(keyBytes))

/** The data key of `subject`, wrapped (sealed) under the master key. */
export const wrapDataKey = (master: Key, subject: string, dataKey: Uint8Array): string =>
  seal(master, `data-key:${subject}`, encode(dataKey))

/** Unwraps a data key; throws when the master key is not the one that wrapped it. */
export const unwrapDataKey = (master: Key, subject: string, wrapped: string): Uint8Array => {
  const key = Buffer.from(open(master, `data-key:${subject}`, wrapped), "base64url")
  if (key.byteLength !== keyBytes) throw new Error("a data key must be 32 bytes")
  return key
}

/** A sub-key of the master key for one purpose (HKDF-SHA256, no salt, `purpose` as info). */
export const deriveKey = (master: Uint8Array, purpose: string): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", master, Buffer.alloc(0), purpose, keyBytes))

/** Lowercase hex HMAC-SHA256 of `value` keyed with `key`: a lookup key that reveals nothing without the key. */
export const keyedHash = (key: Uint8Array, value: string): string => Hmac.sha256Hex(key, value)

/** A short public fingerprint of a master key (which master wrapped a data key), never the key itself. */
export const masterKeyId = (master: Uint8Array): string =>
  createHash("sha256").update(deriveKey(master, "partnerpay/master-key-id")).digest("hex").slice(0, 16)

/** A new random master key, as text (base64url of 32 bytes). */
export const newMasterKey = (): string => encode(randomBytes(keyBytes))

/**
 * Parses a master key given as text: 32 bytes written in base64 / base64url
 * (43-44 characters) or hex (64 characters). Throws with a reason otherwise.
 */
export const parseMasterKey = (text: string): Uint8Array => {
  const trimmed = text.trim()
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)
      ? Buffer.from(trimmed.replace(/\+/g, "-").replace(/\//g, "_").replace(/=$/, ""), "base64url")
      : undefined
  if (bytes === undefined || bytes.byteLength !== keyBytes) {
    throw new Error("a data master key must be 32 bytes written in base64 (44 characters) or hex (64 characters)")
  }
  return new Uint8Array(bytes)
}
