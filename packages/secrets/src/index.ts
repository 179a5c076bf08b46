/**
 * @partnerpay/secrets: the one implementation of client-secret hashing
 * (HMAC-SHA-256 with a server pepper, legacy scrypt hashes still verified,
 * constant-time comparison). It needs `node:crypto`, so it cannot live in the
 * domain (which imports only `effect`); both adapters import it (the
 * PostgreSQL partner store and the HTTP adapter's in-memory credentials)
 * without depending on each other.
 */

export * as PersonalDataCrypto from "./PersonalDataCrypto.ts"
export * as SecretHash from "./SecretHash.ts"
