/**
 * The outgoing webhooks, as the OpenAPI 3.1 `webhooks` section documents them:
 * each event's `Data` Schema (the shape its webhook rule in the domain
 * builds: `*Webhook.ts`, registered in `Webhooks.ts`), the envelope
 * `{ Live, Event, Data }` the webhook worker POSTs, and the headers of a delivery
 * (`app/src/workers/WebhookDispatcher.ts`).
 *
 * `openApiTransform` adds them to the document, after the reference transform
 * (Api.ts), with examples built as the operations' are (`OpenApiReference.exampleOf`).
 *
 * To document a new event: add its `Data` Schema to `events`. A new delivery
 * header: add it to `deliveryHeaders` (the one place where signature headers are
 * described).
 */
import { Metadata, PaymentPlanEvents, PaymentRequestEvents, PayoutEvents, TransferEvents } from "@partnerpay/domain"
import { Schema } from "effect"
import { exampleOf } from "../cross-cutting/OpenApiReference.ts"

const uuid = (description: string) => Schema.String.annotate({ description, format: "uuid" })
/** The object's metadata in a webhook's Data (`{}` when none was set). */
const MetadataData = Metadata.Metadata
const instant = Schema.String.annotate({ description: "ISO 8601 instant (UTC) of the change", format: "date-time" })

const CompanyVerificationData = Schema.Struct({
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

const CompanyVerificationActionData = Schema.Struct({
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

const PaymentRequestStatusData = Schema.Struct({
  PaymentRequestId: uuid("Our id of the payment request"),
  Status: PaymentRequestEvents.PaymentRequestStatus.annotate({ description: "The request's new status" }),
  AccountNumberMasked: Schema.optionalKey(
    Schema.String.annotate({ description: "The payer's account, masked; present once the payer accepted" }),
  ),
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

const PaymentPlanInstalmentData = Schema.Struct({
  PaymentPlanId: uuid("Our id of the payment plan"),
  InstalmentNumber: Schema.Int.annotate({ description: "The instalment's number in the plan, from 1" }),
  DueDate: Schema.String.annotate({ description: "The instalment's due date (YYYY-MM-DD)", format: "date" }),
  TransferId: uuid("The transfer collecting the instalment (GET /Transaction/{transferId})"),
  Status: PaymentPlanEvents.InstalmentStatus.annotate({
    description: "Pending when collected, then Settled or Failed, and a settled one Returned",
  }),
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

const RefundStatusData = Schema.Struct({
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

const PayoutStatusData = Schema.Struct({
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

const PayoutAccountStatusData = Schema.Struct({
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

const ConsentStatusData = Schema.Struct({
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

const PaymentPlanStatusData = Schema.Struct({
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

const CustomerVerificationData = Schema.Struct({
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

const BankAccountLinkedData = Schema.Struct({
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

const BankAccountRemovedData = Schema.Struct({
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

const BankAccountRelinkData = Schema.Struct({
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

const DebitAuthorizationData = Schema.Struct({
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

const CardPaymentData = Schema.Struct({
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

const CardDisputeStatusData = Schema.Struct({
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

const AttachmentStatusData = Schema.Struct({
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

/** Every outgoing event: its name (the envelope's `Event`), what it announces, and its `Data`. */
export const events = [
  {
    name: "COMPANY_VERIFICATION_STATUS_CHANGED",
    summary: "A company's business verification completed",
    description: "Sent when KYB of a company completes: Status Verified or Rejected (interface 6.1).",
    data: CompanyVerificationData,
  },
  {
    name: "COMPANY_VERIFICATION_ACTION_REQUIRED",
    summary: "The business verification of a company needs something more",
    description:
      "Sent when the KYB provider asks for documents (DocumentRequired) or the company's data again (RetryRequired) before deciding; the company stays Unverified, GET /company/status shows the Requirement. Once per requirement.",
    data: CompanyVerificationActionData,
  },
  {
    name: "PAYMENT_REQUEST_STATUS_CHANGED",
    summary: "A payment request changed status",
    description:
      "Sent on every status change of a payment request (interface 6.3); Failed and Returned carry ReturnCode and ReturnReason.",
    data: PaymentRequestStatusData,
  },
  {
    name: "PAYMENT_PLAN_INSTALMENT_STATUS_CHANGED",
    summary: "A payment plan instalment changed status",
    description:
      "Sent when an instalment is collected through a transfer (Pending), then when its transfer Settled or Failed, and when a settled one is Returned (with ReturnCode and ReturnReason).",
    data: PaymentPlanInstalmentData,
  },
  {
    name: "REFUND_STATUS_CHANGED",
    summary: "A refund changed status",
    description:
      "Sent when a refund is asked for (Pending), then when its credit to the payer Completed or Failed (a failed refund frees its amount).",
    data: RefundStatusData,
  },
  {
    name: "PAYOUT_STATUS_CHANGED",
    summary: "A payout changed status",
    description:
      "Sent when a payout of a company's available balance is created (Pending), then when it is Paid or Failed (its money back in the balance; ReturnCode and ReturnReason say why).",
    data: PayoutStatusData,
  },
  {
    name: "PAYOUT_ACCOUNT_STATUS_CHANGED",
    summary: "A company's payout account changed status",
    description:
      "Sent when a payout to the company's account is refused or returned for an account-level reason (R02, R03, R04, R12-R17, R20, or the rail refusing the destination): the account is Errored (GET /Company/{companyId}/PayoutAccount) and the company's payouts pause; and when the partner sets another account in its place: Active, payouts resume.",
    data: PayoutAccountStatusData,
  },
  {
    name: "CONSENT_STATUS_CHANGED",
    summary: "A payer answered a consent request",
    description:
      "Sent when the payer accepts, declines (Pending) or revokes (Accepted) a consent; a declined or revoked consent also cancels its plan (PAYMENT_PLAN_STATUS_CHANGED).",
    data: ConsentStatusData,
  },
  {
    name: "PAYMENT_PLAN_STATUS_CHANGED",
    summary: "A payment plan changed status",
    description:
      "Sent when a plan becomes Active (activated or resumed), Paused, Cancelled (Reason) or Completed. Instalments have their own webhook.",
    data: PaymentPlanStatusData,
  },
  {
    name: "CUSTOMER_VERIFICATION_STATUS_CHANGED",
    summary: "A customer's identity verification completed",
    description: "Sent when a customer's KYC completes: Verified (the customer may pay) or Rejected.",
    data: CustomerVerificationData,
  },
  {
    name: "BANK_ACCOUNT_LINKED",
    summary: "A customer linked bank accounts",
    description: "Sent when a customer links (or re-links) bank accounts through a bank-link session.",
    data: BankAccountLinkedData,
  },
  {
    name: "BANK_ACCOUNT_REMOVED",
    summary: "A customer removed a bank account",
    description: "Sent when a customer removes a linked bank account.",
    data: BankAccountRemovedData,
  },
  {
    name: "BANK_ACCOUNT_RELINK_REQUIRED",
    summary: "A customer must link their bank again",
    description:
      "Sent when the bank-link provider says the customer must link again (their bank asks them to log in again, or their consent expires), or when a debit of the account came back with an account-level return code (R02, R03, R04, R12-R17, R20; Reason is the code): the accounts named cannot be debited until the customer links through a new bank-link session.",
    data: BankAccountRelinkData,
  },
  {
    name: "DEBIT_AUTHORIZATION_CHANGED",
    summary: "A debit authorization changed",
    description:
      "Sent when a payer sets a debit authorization for a company, changes its limit, enables or disables it, and when an unauthorized return of one of its debits revokes it (Revoked).",
    data: DebitAuthorizationData,
  },
  {
    name: "CARD_PAYMENT_RECORDED",
    summary: "A card payment was recorded",
    description: "Sent when a card payment made on an external terminal is registered (POST /cardpayment).",
    data: CardPaymentData,
  },
  {
    name: "CARD_DISPUTE_STATUS_CHANGED",
    summary: "A card payment's dispute changed status",
    description:
      "Sent when the cardholder disputes a card payment (NeedsResponse or UnderReview: the amount and the processor's dispute fee are taken from the company's balance at once), when the open dispute changes status, and when it is decided: Won (both given back) or Lost. Names the card payment (CardPaymentId) or the payment request it paid (PaymentRequestId).",
    data: CardDisputeStatusData,
  },
  {
    name: "ATTACHMENT_STATUS_CHANGED",
    summary: "A payment request's document was stored or rejected",
    description:
      "Sent when the document of a payment request's attachmentUrl is downloaded and kept (Stored), or refused or given up (Failed, with Reason).",
    data: AttachmentStatusData,
  },
] as const

/** The names of every outgoing event. */
export const eventNames: ReadonlyArray<string> = events.map((event) => event.name)

/** The documented example `Data` of event `name` (a sample to test a receiver with), or undefined. */
export const sampleData = (name: string): Readonly<Record<string, unknown>> | undefined => {
  const event = events.find((candidate) => candidate.name === name)
  const examples = (event?.data.ast.annotations as { readonly examples?: ReadonlyArray<unknown> } | undefined)?.examples
  return examples?.[0] as Readonly<Record<string, unknown>> | undefined
}

/** The body of a delivery: `{ Live, Event, Data }`. */
export const envelope = (name: string, data: Schema.Top) =>
  Schema.Struct({
    Live: Schema.Boolean.annotate({ description: "true when sent from production, false from the sandbox" }),
    Event: Schema.Literal(name).annotate({ description: "The event's name" }),
    Data: data.annotate({ description: "The event's data" }),
  })

/**
 * The headers of every delivery. SIGNATURES: the one place where the signature
 * headers are documented; the receiver verifies one of them with its signing secret.
 */
export const deliveryHeaders: ReadonlyArray<{
  readonly name: string
  readonly description: string
  readonly required: boolean
  readonly schema: Record<string, unknown>
  readonly example: string
}> = [
  {
    name: "X-Partnerpay-Event-Id",
    description:
      "The notification id (the causing event's id): the same on every retry of the event; delivery is at least once, so de-duplicate on it.",
    required: true,
    schema: { type: "string", format: "uuid" },
    example: "6f1e2d3c-4b5a-4987-8a6b-5c4d3e2f1a0b",
  },
  {
    name: "X-Partnerpay-Delivery-Attempt",
    description: "1 for the first attempt, then 2, 3, ... (retries with exponential backoff for up to 72 hours).",
    required: true,
    schema: { type: "string", pattern: "^[1-9][0-9]*$" },
    example: "1",
  },
  {
    name: "X-HMAC-Signature",
    description:
      "`sha256=<hex>`: hex HMAC-SHA256 of the exact body bytes with the partner's signing secret. Sent when a signing secret is configured.",
    required: false,
    schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" },
    example: "sha256=3b9c358f36f0a31b7a1e2d8e5f4c6b7a8d9e0f1a2b3c4d5e6f708192a3b4c5d6",
  },
  {
    name: "X-Partnerpay-Signature",
    description:
      "`t=<unix seconds>,v1=<hex>`: v1 is the hex HMAC-SHA256, with the partner's signing secret, of `t.eventId.body` (the timestamp, a dot, the X-Partnerpay-Event-Id value, a dot, the exact body bytes). Compare t with your clock to refuse replayed deliveries. Sent when a signing secret is configured.",
    required: false,
    schema: { type: "string", pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$" },
    example: "t=1795425300,v1=5f0c1e2d3b4a59687f6e5d4c3b2a19087f6e5d4c3b2a19087f6e5d4c3b2a1908",
  },
  {
    name: "webhook-id",
    description: "Standard Webhooks (standardwebhooks.com): the event id, the same as X-Partnerpay-Event-Id.",
    required: true,
    schema: { type: "string", format: "uuid" },
    example: "6f1e2d3c-4b5a-4987-8a6b-5c4d3e2f1a0b",
  },
  {
    name: "webhook-timestamp",
    description: "Standard Webhooks: the unix seconds the delivery was signed at.",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
    example: "1795425300",
  },
  {
    name: "webhook-signature",
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">` keyed with the UTF-8 bytes of the partner\'s signing secret; during a secret roll, one `v1,<signature>` per valid secret separated by a space (the new secret\'s first). The `standardwebhooks` library verifies a delivery with `new Webhook("whsec_" + base64(signingSecret)).verify(body, headers)`.',
    required: true,
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
    example: "v1,XwweLTs6WWh/bl1MOyoZCH9uXUw7KhkIf25dTDsqGQg=",
  },
]

type Json = { [key: string]: unknown }

const toJsonSchema = (schema: Schema.Top): Json => {
  const document = Schema.toJsonSchemaDocument(schema as Schema.Codec<unknown, unknown>)
  return document.schema as Json
}

/** The `webhooks` section: one POST per event, with its envelope, an example and the delivery headers. */
const webhooks = (): Json => {
  const out: Json = {}
  for (const event of events) {
    const body = toJsonSchema(envelope(event.name, event.data))
    const example = { Live: true, Event: event.name, Data: exampleOf({}, toJsonSchema(event.data)) }
    out[event.name] = {
      post: {
        summary: event.summary,
        description: `${event.description} partnerpay POSTs the envelope { Live, Event, Data } to the partner's webhook URL; a 2xx answer within 10 seconds acknowledges it, anything else is retried with exponential backoff for up to 72 hours.`,
        operationId: `webhook.${event.name}`,
        tags: ["Outgoing webhooks"],
        parameters: deliveryHeaders.map((header) => ({
          name: header.name,
          in: "header",
          required: header.required,
          description: header.description,
          schema: header.schema,
          example: header.example,
        })),
        requestBody: { required: true, content: { "application/json": { schema: body, example } } },
        responses: { "200": { description: "Any 2xx acknowledges the delivery" } },
      },
    }
  }
  return out
}

/** Adds the outgoing webhooks to the OpenAPI document (the last transform of Api.ts). */
export const openApiTransform = (spec: Json): Json => {
  const existing = spec.webhooks
  spec.webhooks = {
    ...(typeof existing === "object" && existing !== null && !Array.isArray(existing) ? existing : {}),
    ...webhooks(),
  }
  return spec
}
