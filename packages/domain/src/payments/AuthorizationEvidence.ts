/**
 * The evidence of a payer's authorization, as the payments area exports it: declared in the kernel
 * (`kernel/AuthorizationEvidence.ts`) because every area records it (the customers area for the
 * autopay designation, cards and charity for gifts and card payments) and areas may not import
 * payments back.
 */
export * from "../kernel/AuthorizationEvidence.ts"
