/**
 * @partnerpay/adapters-pg: PostgreSQL (server or embedded PGlite) connection
 * layers, schema migrations and the PostgreSQL EventStore.
 */
export * as Migrations from "./Migrations.ts"
export * as PgDatabase from "./PgDatabase.ts"
export * as PgEventStore from "./PgEventStore.ts"
export * as PgIdempotencyStore from "./PgIdempotencyStore.ts"
export * as PgliteBridge from "./PgliteBridge.ts"
