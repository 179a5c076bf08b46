/**
 * @partnerpay/secrets: the one implementation of client-secret hashing
 * (HMAC-SHA-256 with a server pepper, legacy scrypt hashes still verified,
 * constant-time comparison), of the personal data crypto, and of HMAC-SHA256
 * itself for every package that may depend on it (`Hmac`). It needs `node:crypto`, so it cannot live in the
 * domain (which imports only `effect`); both adapters import it (the
 * PostgreSQL partner store and the HTTP adapter's in-memory credentials)
 * without depending on each other.
 */

export * as Hmac from "./Hmac.ts"
export * as PersonalDataCrypto from "./PersonalDataCrypto.ts"
export * as SecretHash from "./SecretHash.ts"
