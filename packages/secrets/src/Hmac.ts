/**
 * HMAC-SHA256, the one implementation outside the domain (`node:crypto`):
 * client-secret hashes (`SecretHash`), keyed lookup hashes of personal values
 * (`PersonalDataCrypto`), webhook and provider-bridge signatures and the chat
 * widget's user signature use it. The domain, which imports only `effect`,
 * has its own over Web Crypto (`@partnerpay/domain` `kernel/Hmac.ts`).
 * Text is hashed as its UTF-8 bytes.
 */
import { createHmac } from "node:crypto"

/** A key or a message: text (its UTF-8 bytes) or bytes. */
export type Input = string | Uint8Array

/** The HMAC-SHA256 of `data` under `key` (32 bytes). */
export const sha256 = (key: Input, data: Input): Buffer =>
  createHmac("sha256", key)
    .update(typeof data === "string" ? Buffer.from(data, "utf8") : data)
    .digest()

/** The HMAC-SHA256 of `data` under `key`, lowercase hex. */
export const sha256Hex = (key: Input, data: Input): string => sha256(key, data).toString("hex")
