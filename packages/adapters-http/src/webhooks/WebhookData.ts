/**
 * The `Data` of each outgoing webhook: one Schema per event, with its
 * description and example (the OpenAPI `webhooks` section shows them, and the
 * sandbox sends the example as a sample). Each is the shape its webhook rule in
 * the domain builds (`<area>/XWebhook.ts`); the list of events that uses them
 * is `WebhookEvents.ts`.
 */
import { Metadata, PaymentPlanEvents, PaymentRequestEvents, PayoutEvents, TransferEvents } from "@partnerpay/domain"
import { Schema } from "effect"

const uuid = (description: string) => Schema.String.annotate({ description, format: "uuid" })
/** The object's metadata in a webhook's Data (`{}` when none was set). */
const MetadataData = Metadata.Metadata
const instant = Schema.String.annotate({ description: "ISO 8601 instant (UTC) of the change", format: "date-time" })

/** What a failed or returned debit (a payment request's, an instalment's) says, its metadata and when. */
const debitOutcome = {
  ReturnCode: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description:
        "Failed or Returned: the ACH return code (e.g. R01, R10); null when the rail refused the movement (see FailureReason)",
    }),
  ),
  ReturnReason: Schema.optionalKey(
    Schema.String.annotate({ description: "Failed or Returned: the return code's description (NACHA)" }),
  ),
  FailureReason: Schema.optionalKey(
    Schema.String.annotate({
      description: "Failed: why, in words (the rail's when it refused the movement and ReturnCode is null)",
    }),
  ),
  Metadata: MetadataData,
  Timestamp: instant,
}

export const CompanyVerificationData = Schema.Struct({
  CompanyId: uuid("Our id of the company"),
  Status: Schema.Literals(["Verified", "Rejected"]).annotate({ description: "The outcome of business verification" }),
  Metadata: MetadataData,
  Timestamp: instant,
}).annotate({
  examples: [
    {
      CompanyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
      Status: "Verified",
      Metadata: { merchantRef: "M-2041" },
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const CompanyVerificationActionData = Schema.Struct({
  CompanyId: uuid("Our id of the company"),
  Status: Schema.Literal("Unverified").annotate({ description: "The company stays Unverified until KYB decides" }),
  Requirement: Schema.Literals(["DocumentRequired", "RetryRequired"]).annotate({
    description:
      "What the KYB provider asks before it decides: documents (DocumentRequired) or the company's data again (RetryRequired)",
  }),
  Metadata: MetadataData,
  Timestamp: instant,
}).annotate({
  examples: [
    {
      CompanyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
      Status: "Unverified",
      Requirement: "DocumentRequired",
      Metadata: { merchantRef: "M-2041" },
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const PaymentRequestStatusData = Schema.Struct({
  PaymentRequestId: uuid("Our id of the payment request"),
  Status: PaymentRequestEvents.PaymentRequestStatus.annotate({ description: "The request's new status" }),
  AccountNumberMasked: Schema.optionalKey(
    Schema.String.annotate({ description: "The payer's account, masked; present once the payer accepted" }),
  ),
  ...debitOutcome,
}).annotate({
  examples: [
    {
      PaymentRequestId: "8c2f4e6a-1b3d-4f5a-9c7e-2d4f6a8b0c1e",
      Status: "Paid",
      AccountNumberMasked: "****6789",
      Metadata: { orderId: "ord_1042" },
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const PaymentPlanInstalmentData = Schema.Struct({
  PaymentPlanId: uuid("Our id of the payment plan"),
  InstalmentNumber: Schema.Int.annotate({ description: "The instalment's number in the plan, from 1" }),
  DueDate: Schema.String.annotate({ description: "The instalment's due date (YYYY-MM-DD)", format: "date" }),
  TransferId: uuid("The transfer collecting the instalment (GET /Transaction/{transferId})"),
  Status: PaymentPlanEvents.InstalmentStatus.annotate({
    description: "Pending when collected, then Settled or Failed, and a settled one Returned",
  }),
  ...debitOutcome,
}).annotate({
  examples: [
    {
      PaymentPlanId: "3a7c9e1f-5b2d-4e8a-8f6c-0d2e4a6c8e1b",
      InstalmentNumber: 2,
      DueDate: "2026-12-01",
      TransferId: "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
      Status: "Settled",
      Metadata: { subscriptionRef: "sub_77" },
      Timestamp: "2026-12-02T06:00:00.000Z",
    },
  ],
})

export const RefundStatusData = Schema.Struct({
  RefundId: uuid("Our id of the refund (refundId of POST /Transaction/{transferId}/Refund)"),
  TransferId: Schema.optionalKey(uuid("The refunded transfer (GET /Transaction/{transferId})")),
  CardPaymentId: Schema.optionalKey(uuid("A refunded terminal card payment (refunded through the card processor)")),
  PaymentRequestId: Schema.optionalKey(
    uuid("A payment request paid in the app by card, refunded through the card processor"),
  ),
  Amount: Schema.Struct({
    value: Schema.Finite.annotate({ description: "The refund's amount in major units, e.g. 25.5" }),
    currencyCode: Schema.String.annotate({ description: "ISO 4217 currency code, e.g. USD" }),
  }).annotate({ description: "The refund's amount" }),
  Status: TransferEvents.RefundStatus.annotate({
    description: "Pending when asked for, then Completed (the money is back with the payer) or Failed",
  }),
  ReturnCode: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description: "Failed: the ACH return code; null when the rail refused the credit (see FailureReason)",
    }),
  ),
  ReturnReason: Schema.optionalKey(Schema.String.annotate({ description: "Failed: the return code's description" })),
  FailureReason: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "Failed: why, in words (the rail's when it refused the movement and ReturnCode is null; a card refund's: the card processor's)",
    }),
  ),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      RefundId: "4b6d8f0a-2c4e-4a6b-8d0f-1a3c5e7b9d2f",
      TransferId: "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
      Amount: { value: 25.5, currencyCode: "USD" },
      Status: "Completed",
      Timestamp: "2026-12-02T06:00:00.000Z",
    },
  ],
})

export const PayoutStatusData = Schema.Struct({
  PayoutId: uuid("Our id of the payout (GET /Payouts/{payoutId})"),
  CompanyId: uuid("Our id of the company paid out"),
  Direction: PayoutEvents.PayoutDirection.annotate({
    description:
      "Credit: the available balance paid to the payout account; Debit: a deficit taken from it (a Failed Debit leaves the deficit in the balance)",
  }),
  Amount: Schema.Struct({
    value: Schema.Finite.annotate({ description: "The payout's amount in major units, e.g. 1234.56" }),
    currencyCode: Schema.String.annotate({ description: "ISO 4217 currency code, e.g. USD" }),
  }).annotate({ description: "The payout's amount (the sum of its items)" }),
  Status: PayoutEvents.PayoutStatus.annotate({ description: "Pending when created, then Paid or Failed" }),
  ReturnCode: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description:
        "Failed only: the ACH return code (e.g. R03), or ACCOUNT_CHANGED; null when the rail refused the payout (see FailureReason)",
    }),
  ),
  ReturnReason: Schema.optionalKey(Schema.String.annotate({ description: "Failed only: the code's description" })),
  FailureReason: Schema.optionalKey(
    Schema.String.annotate({
      description: "Failed: why, in words (the rail's when it refused the movement and ReturnCode is null)",
    }),
  ),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      PayoutId: "4b6d8f0a-2c4e-4a6c-8e0a-2c4e6a8c0e2a",
      CompanyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
      Direction: "Credit",
      Amount: { value: 1234.56, currencyCode: "USD" },
      Status: "Paid",
      Timestamp: "2026-11-24T06:00:00.000Z",
    },
  ],
})

export const PayoutAccountStatusData = Schema.Struct({
  CompanyId: uuid("Our id of the company whose payout account changed status"),
  Status: Schema.Literals(["Active", "Errored"]).annotate({
    description:
      "Errored: a payout was refused or returned for an account-level reason, the company's payouts pause (its balance accumulates); Active: another account was set, payouts resume",
  }),
  ReturnCode: Schema.NullOr(Schema.String).annotate({
    description:
      "Errored: the ACH return code (R02, R03, R04, R12-R17, R20); null when the rail refused the account outright, and on Active",
  }),
  ReturnReason: Schema.NullOr(Schema.String).annotate({
    description: "Errored: the return code's description (or the rail's words); null on Active",
  }),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      CompanyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
      Status: "Errored",
      ReturnCode: "R03",
      ReturnReason: "No account / unable to locate account",
      Timestamp: "2026-11-24T06:00:00.000Z",
    },
  ],
})

const amountData = (description: string) =>
  Schema.Struct({
    value: Schema.Finite.annotate({ description: "Decimal amount in major units, e.g. 25.5" }),
    currencyCode: Schema.String.annotate({ description: "ISO 4217 currency code, e.g. USD" }),
  }).annotate({ description })

export const ConsentStatusData = Schema.Struct({
  ConsentId: uuid("Our id of the consent (GET /Consent/{consentId})"),
  PaymentPlanId: uuid("The plan the consent is for"),
  CompanyId: uuid("The company collecting"),
  PayerRegistrationId: uuid("The payer who answered"),
  Status: Schema.Literals(["Accepted", "Declined", "Revoked"]).annotate({
    description: "Accepted; Declined (a Pending consent refused); Revoked (an Accepted one withdrawn)",
  }),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      ConsentId: "6b8d0f2a-4c6e-4a8b-9d1f-3a5c7e9b1d3f",
      PaymentPlanId: "3a7c9e1f-5b2d-4e8a-8f6c-0d2e4a6c8e1b",
      CompanyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
      PayerRegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
      Status: "Accepted",
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const PaymentPlanStatusData = Schema.Struct({
  PaymentPlanId: uuid("Our id of the payment plan"),
  CompanyId: uuid("The company collecting"),
  Status: Schema.Literals(["Active", "Paused", "Cancelled", "Completed"]).annotate({
    description: "Active (activated or resumed), Paused, Cancelled (see Reason) or Completed (no due date left)",
  }),
  Reason: Schema.optionalKey(
    PaymentPlanEvents.CancellationReason.annotate({ description: "Cancelled only: why the plan ended" }),
  ),
  Metadata: MetadataData,
  Timestamp: instant,
}).annotate({
  examples: [
    {
      PaymentPlanId: "3a7c9e1f-5b2d-4e8a-8f6c-0d2e4a6c8e1b",
      CompanyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
      Status: "Cancelled",
      Reason: "ConsentRevoked",
      Metadata: { subscriptionRef: "sub_77" },
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const CustomerVerificationData = Schema.Struct({
  RegistrationId: uuid("The customer (payer)"),
  Status: Schema.Literals(["Verified", "Rejected"]).annotate({ description: "The outcome of identity verification" }),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      RegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
      Status: "Verified",
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const BankAccountLinkedData = Schema.Struct({
  RegistrationId: uuid("The customer who linked the accounts"),
  Accounts: Schema.Array(
    Schema.Struct({
      BankAccountId: uuid("Our id of the linked account (GET /Account/List)"),
      Mask: Schema.String.annotate({ description: "The account number's last four digits" }),
    }),
  ).annotate({ description: "The accounts linked (or re-linked) by this link" }),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      RegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
      Accounts: [{ BankAccountId: "2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a", Mask: "6789" }],
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const BankAccountRemovedData = Schema.Struct({
  RegistrationId: uuid("The customer who removed the account"),
  BankAccountId: uuid("The account removed"),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      RegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
      BankAccountId: "2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a",
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const BankAccountRelinkData = Schema.Struct({
  RegistrationId: uuid("The customer who must link again"),
  BankAccountIds: Schema.Array(uuid("An account of the connection")).annotate({
    description: "The accounts that cannot be debited until the customer links again",
  }),
  Reason: Schema.String.annotate({
    description:
      "The bank-link provider's reason (e.g. ITEM_LOGIN_REQUIRED or PENDING_EXPIRATION), or the account-level ACH return code that made the account unusable (e.g. R03)",
  }),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      RegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
      BankAccountIds: ["2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a"],
      Reason: "ITEM_LOGIN_REQUIRED",
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const DebitAuthorizationData = Schema.Struct({
  DebitAuthId: uuid("Our id of the debit authorization"),
  CompanyId: uuid("The company authorized to debit"),
  RegistrationId: uuid("The payer who authorized it"),
  Change: Schema.Literals(["Set", "LimitUpdated", "Enabled", "Disabled", "Revoked"]).annotate({
    description: "What changed (Revoked: an unauthorized ACH return of a debit, see ReturnCode)",
  }),
  Enabled: Schema.optionalKey(
    Schema.Boolean.annotate({ description: "Whether debits are authorized now (absent when only the limit changed)" }),
  ),
  Limit: Schema.optionalKey(amountData("The limit per debit, when the change sets it")),
  ReturnCode: Schema.optionalKey(
    Schema.String.annotate({
      description: "Revoked only: the unauthorized return code (R05, R07, R10, R11, R29, R51)",
    }),
  ),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      DebitAuthId: "1d3f5b7c-9e1a-4c3e-8a5c-7e9b1d3f5a7c",
      CompanyId: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
      RegistrationId: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
      Change: "Set",
      Enabled: true,
      Limit: { value: 750, currencyCode: "USD" },
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const CardPaymentData = Schema.Struct({
  CardPaymentId: uuid("Our id of the card payment"),
  MerchantId: uuid("The merchant paid"),
  Amount: amountData("The amount paid"),
  Brand: Schema.String.annotate({ description: "The card's brand, e.g. visa" }),
  Last4: Schema.String.annotate({ description: "The card number's last four digits" }),
  ExternalReference: Schema.String.annotate({ description: "The terminal's reference of the payment" }),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      CardPaymentId: "9a1c3e5f-7b9d-4f1a-8c3e-5a7c9e1b3d5f",
      MerchantId: "4f6a8c0e-2b4d-4f6a-9c8e-0a2c4e6b8d0f",
      Amount: { value: 18.5, currencyCode: "USD" },
      Brand: "visa",
      Last4: "4242",
      ExternalReference: "terminal-7:000142",
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})

export const CardDisputeStatusData = Schema.Struct({
  CardPaymentId: Schema.optionalKey(uuid("The disputed terminal card payment (POST /cardpayment)")),
  PaymentRequestId: Schema.optionalKey(uuid("The payment request paid in the app by the disputed card payment")),
  DisputeId: Schema.String.annotate({ description: "The card processor's id of the dispute" }),
  Amount: amountData("The amount disputed (taken from the company's balance while open or lost)"),
  Reason: Schema.String.annotate({ description: "The cardholder's reason as the processor names it, e.g. fraudulent" }),
  Status: Schema.Literals(["NeedsResponse", "UnderReview", "Won", "Lost"]).annotate({
    description:
      "NeedsResponse or UnderReview while open (the amount and the dispute fee taken back at once), then Won (both given back) or Lost",
  }),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      PaymentRequestId: "7c9e1a3b-5d7f-4b9a-8c1e-3a5c7e9b1d3f",
      DisputeId: "dp_1MtJUT2eZvKYlo2CNaw2HvEv",
      Amount: { value: 25.5, currencyCode: "USD" },
      Reason: "fraudulent",
      Status: "NeedsResponse",
      Timestamp: "2026-12-02T06:00:00.000Z",
    },
  ],
})

export const AttachmentStatusData = Schema.Struct({
  AttachmentId: uuid("Our id of the document (GET /Payment/{paymentRequestId}/Attachments/{id})"),
  PaymentRequestId: uuid("The payment request whose attachmentUrl it was downloaded from"),
  Status: Schema.Literals(["Stored", "Failed"]).annotate({
    description: "Stored once downloaded and kept; Failed when the service gave up (Reason)",
  }),
  ContentType: Schema.optionalKey(
    Schema.String.annotate({ description: "Stored: application/pdf, image/png or image/jpeg" }),
  ),
  SizeBytes: Schema.optionalKey(Schema.Int.annotate({ description: "Stored: the document's size in bytes" })),
  Reason: Schema.optionalKey(Schema.String.annotate({ description: "Failed: why the document was not kept" })),
  Timestamp: instant,
}).annotate({
  examples: [
    {
      AttachmentId: "5e7a9c1e-3b5d-4f7a-9c1e-3b5d7f9a1c3e",
      PaymentRequestId: "8c2f4e6a-1b3d-4f5a-9c7e-2d4f6a8b0c1e",
      Status: "Stored",
      ContentType: "application/pdf",
      SizeBytes: 48213,
      Timestamp: "2026-11-23T09:15:00.000Z",
    },
  ],
})
