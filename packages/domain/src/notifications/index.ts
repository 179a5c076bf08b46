/**
 * The notifications area's public module: the messaging ports (SMS, push,
 * e-mail) and their sandbox recorder, the payment notices (reminders before
 * the due date, Paid/Failed status messages) with their decider, work list and
 * use cases. Other areas import notifications only through this module.
 */
export * as Messaging from "./Messaging.ts"
export * as PaymentNotice from "./PaymentNotice.ts"
export * as PaymentNoticeEvents from "./PaymentNoticeEvents.ts"
export * as PaymentNotices from "./PaymentNotices.ts"
export * as PaymentNoticesProjection from "./PaymentNoticesProjection.ts"
