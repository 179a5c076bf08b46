/**
 * HMAC-SHA256 with the platform's Web Crypto (Node >= 22, browsers, Deno,
 * Bun), declared here because the domain compiles without DOM or Node
 * typings. Used for the keyed hashes of one-time codes and phone numbers.
 */

declare const crypto: {
  readonly subtle: {
    importKey(
      format: "raw",
      keyData: Uint8Array,
      algorithm: { readonly name: "HMAC"; readonly hash: "SHA-256" },
      extractable: boolean,
      usages: ReadonlyArray<"sign">,
    ): Promise<unknown>
    sign(algorithm: "HMAC", key: unknown, data: Uint8Array): Promise<ArrayBuffer>
  }
}
declare const TextEncoder: new () => { encode(input: string): Uint8Array }

/** A signing key made from `secret` (not extractable). */
export type Key = unknown

/** Imports `secret` (its UTF-8 bytes) as an HMAC-SHA256 signing key. */
export const importKey = (secret: string): Promise<Key> =>
  crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])

/** The HMAC-SHA256 of `data` (its UTF-8 bytes) under `key`, lowercase hex. */
export const hexDigest = async (key: Key, data: string): Promise<string> => {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(data)))
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("")
}
