/** Client-secret hashing, from the shared `@partnerpay/secrets` package (one implementation for both adapters). */
export * from "@partnerpay/secrets/SecretHash"
