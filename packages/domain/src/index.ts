/**
 * @partnerpay/domain: the pure, event-sourced core of partnerpay.
 * No I/O: ports (EventStore, IdGenerator, providers) are Effect services that
 * adapters implement; time and new ids arrive inside commands.
 */
export * as CalendarDate from "./CalendarDate.ts"
export * as CommandHandler from "./CommandHandler.ts"
export * as Decider from "./Decider.ts"
export * from "./DomainError.ts"
export * from "./EventStore.ts"
export * from "./IdGenerator.ts"
export * as Ids from "./Ids.ts"
export * as Money from "./Money.ts"
