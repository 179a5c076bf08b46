/**
 * The glossary of the API's wire fields: what each property name means (from
 * the wording of docs/partner-interface.md), its JSON Schema `format` where the
 * service requires one, and a realistic example value. `OpenApiReference`
 * applies it to every property of every request and response schema that does
 * not describe itself (a Schema's own `description`, `format` or `examples`
 * annotation always wins), and builds the operations' examples from it.
 *
 * Keys are property names, or `parent.name` where the same name means something
 * else under one parent (`debitAuthId.value`: the `{ value: <uuid> }` wrappers).
 * A new field name: add it here (the OpenAPI test names every undescribed property).
 */

export type Format = "uuid" | "date" | "date-time" | "email" | "uri"

export interface FieldDoc {
  readonly description: string
  readonly format?: Format
  readonly example?: unknown
  /**
   * This optional field is an alternative to another one (exactly one of them,
   * or they exclude each other): an example leaves it out when it already shows
   * the other.
   */
  readonly alternativeTo?: string
}

const id = (what: string, example: string): FieldDoc => ({
  description: `${what} (UUID; accepted in any case, answered in lower case)`,
  format: "uuid",
  example,
})
const instant = (what: string): FieldDoc => ({
  description: `${what} (ISO 8601 instant, UTC)`,
  format: "date-time",
  example: "2026-11-23T09:15:00.000Z",
})
const day = (what: string, example = "2026-12-01"): FieldDoc => ({
  description: `${what} (YYYY-MM-DD)`,
  format: "date",
  example,
})
const flag = (description: string, example = true): FieldDoc => ({ description, example })
const text = (description: string, example: string): FieldDoc => ({ description, example })
const amount = (description: string): FieldDoc => ({
  description: `${description}: value (decimal, in major units) and ISO 4217 currency`,
})

/** Example ids: lowercase RFC 9562 UUIDs (version 4), one per kind so examples read naturally. */
export const exampleIds = {
  company: "5d1e7a3c-2b4f-4c8d-9e6a-7f0b1c2d3e4f",
  location: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  paymentRequest: "8c2f4e6a-1b3d-4f5a-9c7e-2d4f6a8b0c1e",
  registration: "7e57ab1e-4c2d-4e8f-9a0b-1c2d3e4f5a6b",
  transfer: "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
  bankAccount: "2b4d6f8a-0c1e-4a3b-9d5f-7e9a1c3e5b7d",
  debitAuth: "4f6a8c0e-2d4b-4f6a-8b0d-2f4a6c8e0b2d",
  paymentPlan: "3a7c9e1f-5b2d-4e8a-8f6c-0d2e4a6c8e1b",
  consent: "6b8d0f2a-4c6e-4a8b-9d1f-3a5c7e9b1d3f",
  cardPayment: "1f3b5d7a-9c1e-4b3d-8f5a-7c9e1b3d5f7a",
  charity: "c4e6a8b0-d2f4-4a6c-8e0b-2d4f6a8c0e2b",
  merchant: "e1d2c3b4-a5f6-4e7d-8c9b-0a1f2e3d4c5b",
  verification: "f0e1d2c3-b4a5-4697-8a8b-9c0d1e2f3a4b",
  refund: "d3c2b1a0-f9e8-4d7c-8b6a-5f4e3d2c1b0a",
  event: "6f1e2d3c-4b5a-4987-8a6b-5c4d3e2f1a0b",
} as const

export const fields: Readonly<Record<string, FieldDoc>> = {
  // Token endpoint and company status (PascalCase as the interface writes them)
  ClientId: text("The partner's client id", "partner-client-1"),
  ClientSecret: text("The partner's client secret", "s3cr3t-from-onboarding"),
  AccessToken: text("The bearer token (a JWT)", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXJ0bmVyIn0.c2lnbmF0dXJl"),
  TokenType: text("Always Bearer", "Bearer"),
  ExpiresInSeconds: { description: "Seconds until the token expires", example: 3600 },
  CompanyId: id("Our id of the company", exampleIds.company),
  CompanyReferenceId: text("The partner's own reference of the company", "acme-bakery-001"),
  Status: text("The current status", "Verified"),

  // Ids
  companyId: id("Our id of the company", exampleIds.company),
  locationId: id("Our id of the location", exampleIds.location),
  locationIds: { description: "Our ids of the company's locations, in the order sent" },
  paymentRequestId: id("Our id of the payment request", exampleIds.paymentRequest),
  payerRegistrationId: id("The payer: a customer's registration id", exampleIds.registration),
  registrationId: id("A customer's registration id", exampleIds.registration),
  transferId: id("Our id of the transfer (bank payment)", exampleIds.transfer),
  bankAccountId: id("Our id of one of the customer's linked bank accounts", exampleIds.bankAccount),
  accountId: id("Our id of one of the customer's linked bank accounts", exampleIds.bankAccount),
  accountIds: {
    description: "The bank-linking provider's ids of the accounts the customer chose",
    example: ["acc_7Bq2xLm9PdRt", "acc_3Kw8nVc1ZsHy"],
  },
  debitAuthId: id("Our id of the debit authorization", exampleIds.debitAuth),
  paymentPlanId: id("Our id of the payment plan", exampleIds.paymentPlan),
  consentId: id("Our id of the payer's consent to the plan", exampleIds.consent),
  cardPaymentId: id("Our id of the card payment", exampleIds.cardPayment),
  charityTransactionId: id("Our id of the charity transaction", exampleIds.charity),
  merchantId: id("The card processor's merchant id of the company", exampleIds.merchant),
  verificationId: id("Our id of the identity verification", exampleIds.verification),
  referenceId: id("Our id of the identity verification", exampleIds.verification),
  refundId: id("Our id of the refund", exampleIds.refund),
  userId: id("The customer's registration id", exampleIds.registration),
  companyReferenceId: {
    ...text("The partner's own reference of the company", "acme-bakery-001"),
    alternativeTo: "companyId",
  },
  externalTransferId: text("The bank transfer's id at the payment network", "ach_9f8e7d6c5b4a"),
  externalReference: text("The card processor's reference of the payment", "ch_3NqLxY2eZvKYlo2C"),
  paymentMethodId: text("The card processor's id of the saved card", "pm_1NqLxY2eZvKYlo2C"),
  institutionId: text("The bank-linking provider's id of the bank", "ins_109508"),
  providerId: id("The provider handling the reimbursement (uuid, interface 4)", "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"),
  tokenId: id("The bank-link session opened by POST /Verification/StartKyc", "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e"),
  linkSessionId: text("The bank-linking session id of the link token", "link-session-2f4a6c8e"),
  deviceId: text("The customer's device id", "iphone-15-4c2d"),
  id: text("The identifier", "0f1e2d3c"),
  "paymentMethods.id": text("The card processor's id of the saved card", "pm_1NqLxY2eZvKYlo2C"),
  "debitAuthId.value": id("Our id of the debit authorization", exampleIds.debitAuth),
  "companyId.value": id("Our id of the company", exampleIds.company),
  "expireAt.value": instant("When the push token expires"),
  "accounts.type": text("Kind of bank account", "checking"),
  "account.type": text("Kind of bank account", "checking"),
  "paymentMethods.type": text("Kind of payment method", "card"),
  "accounts.name": text("The account's name at the bank", "Everyday Checking"),
  "account.name": text("The account's name at the bank", "Everyday Checking"),
  "recipientCompany.name": text("The company's name", "Acme Bakery LLC"),

  // Times and dates
  createdAt: instant("When it was created"),
  acceptedAt: instant("When it was accepted"),
  declinedAt: instant("When it was declined"),
  revokedAt: instant("When it was revoked"),
  collectedAt: instant("When the instalment was collected"),
  settledAt: instant("When the transfer settled"),
  failedAt: instant("When the transfer failed"),
  returnedAt: instant("When the settled transfer was returned by the payer's bank"),
  expiresAt: instant("When it expires"),
  timestamp: instant("When the status changed"),
  expiration: instant("When it expires"),
  expireAt: { description: "When it expires", example: "2027-11-23T09:15:00.000Z" },
  dueDate: day("The due date"),
  startDate: day("The first due date"),
  endDate: { ...day("The last possible due date", "2027-11-30"), alternativeTo: "numberOfPayments" },
  nextDueDate: day("The next due date"),
  recurrence: { description: "A recurring charity gift's monthly schedule (absent on a one-time gift)" },
  lastCollectionDate: day("The due date last collected (the first collection's day at first)"),
  nextCollectionDate: day("Active gifts only: the next collection's due date (partner's clock, UTC)"),
  collections: { description: "How many times the gift was collected, the first included", example: 1 },
  stopReason: text(
    "Stopped gifts only: CancelledByPartner, CancelledByDonor, BankAccountUnlinked, CompanyNotVerified or PayerNotVerified",
    "CancelledByDonor",
  ),
  birthDate: day("Date of birth", "1988-04-17"),
  dateOfBirth: day("Date of birth", "1988-04-17"),
  date: instant("When the transfer was initiated"),
  from: day("First day of the period", "2026-11-01"),
  to: day("Last day of the period", "2026-11-30"),

  // Money
  amount: amount("The amount"),
  "lineItems.amount": amount("quantity x unitAmount"),
  value: { description: "The value", example: 42.5 },
  currencyCode: { description: "ISO 4217 currency" },
  displayName: text("The currency's name", "US Dollar"),
  cultureName: text("The locale the currency is shown in", "en-US"),
  autoPayLimit: amount("With enableAutoPay: the largest amount collected automatically"),
  debitAuthLimit: {
    ...amount("With enableDebitAuth: the largest amount debited under an authorization"),
    alternativeTo: "autoPayLimit",
  },
  limit: amount("The limit per debit"),
  preAuthLimit: { description: "The limit per debit, decimal, in the limit's currency", example: 750 },
  refundedAmount: amount("How much of the amount was refunded"),
  unitAmount: amount("The price of one unit"),
  totalAmount: amount("The total"),
  netAmount: amount("What the recipient receives"),
  fee: amount("The fee"),
  payerCharged: amount("What the payer is charged"),
  charityReceives: amount("What the charity receives"),
  currencyTotals: { description: "Totals per currency" },

  // Payments, transfers, plans
  status: text("The current status (one of the listed values)", "Pending"),
  description: text("Free text description", "Invoice 2026-118: November bread deliveries"),
  quantity: { description: "A whole number of units", example: 2 },
  lineItems: { description: "Invoice lines" },
  invoiceNumber: text("The partner's invoice number", "INV-2026-118"),
  attachmentUrl: {
    description:
      "https URL of a PDF, PNG or JPEG document (at most 10 MiB) that the service downloads and keeps (listed in attachments); in the sandbox also http and local hosts",
    format: "uri",
    example: "https://acme.example/invoices/118.pdf",
  },
  attachments: { description: "Documents attached" },
  "attachments.id": text("Our id of the document", "doc_5b7d9f1a"),
  "attachments.name": text("The document's file name", "invoice-INV-2026-118.pdf"),
  enableAutoPay: flag("Collect automatically on the due date from the payer's designated account", false),
  enableDebitAuth: {
    ...flag("Collect automatically under the payer's debit authorization", false),
    alternativeTo: "enableAutoPay",
  },
  debitAuthAccepted: flag("Whether the payer accepted a debit authorization with the request"),
  acceptDebitAuth: flag("Also authorize the company to debit future requests", false),
  transferDescription: text("Text shown on the payer's bank statement", "ACME BAKERY INV 118"),
  accountNumberMasked: text("The payer's bank account number, masked", "****6789"),
  statusHistory: { description: "Every status the resource went through, oldest first" },
  collectedBy: text("How the service collected it", "AutoPay"),
  autoCollectionSkipped: {
    ...text("Why automatic collection was skipped", "LimitExceeded"),
    alternativeTo: "collectedBy",
  },
  cardPayment: { description: "The saved-card payment", alternativeTo: "transferId" },
  data: { description: "The page's items, newest first" },
  hasMore: flag("Whether another page follows (pass the last id as startingAfter)", false),
  items: { description: "The report's transfers, newest first" },
  count: { description: "How many", example: 3 },
  isRefunded: flag("Whether the transfer was refunded", false),
  isReimbursed: flag("Whether the payment was reimbursed", false),
  appliedForReimbursement: flag("Whether a reimbursement was requested", false),
  isRecurring: flag("Whether the payment repeats", false),
  returnCode: text("The ACH return code of a failed (before settlement) or returned (after) transfer", "R01"),
  returnReason: text("The return code's description (NACHA)", "Insufficient funds"),
  reason: text("Why", "requested by customer"),
  senderName: text("Who sent the money", "Jane Doe"),
  senderAccount: text("The sender's account, masked", "****6789"),
  recipientName: text("Who receives the money", "Acme Bakery LLC"),
  recipientAccount: text("The recipient's account, masked", "****4321"),
  recipientAddress: { description: "The recipient's address" },
  recipientCompany: { description: "The company collecting the payments" },
  signingUrl: {
    description: "Where the customer signs the reimbursement request",
    format: "uri",
    example: "https://sign.example/s/9f8e7d",
  },
  payerCoversFee: flag("Whether the payer pays the fee on top of the amount", false),
  frequency: text("How often an instalment is due", "Monthly"),
  recurrenceInterval: { description: "Every how many weeks or months", example: 1 },
  numberOfPayments: { description: "How many instalments", example: 12 },
  instalmentNumber: { description: "The instalment's number in the plan, from 1", example: 1 },
  instalments: { description: "The collected instalments, oldest first" },
  collectedCount: { description: "How many instalments were collected", example: 1 },
  settledCount: { description: "Collected instalments whose transfer settled", example: 1 },
  failedCount: { description: "Collected instalments whose transfer failed", example: 0 },
  consentStatus: text("The status of the payer's consent", "Accepted"),
  cancellationReason: text("Why the plan was cancelled", "CancelledByCompany"),
  enabled: flag("Whether the authorization is in force"),
  debitAuths: { description: "The customer's debit authorizations" },
  companyName: text("The company's name", "Acme Bakery LLC"),

  // Payout accounts and payouts
  payoutId: id("Our id of the payout", "4b6d8f0a-2c4e-4a6c-8e0a-2c4e6a8c0e2a"),
  payoutAccountId: id("Our id of the company's payout account", "7a9c1e3f-5b7d-4f9a-8c1e-3f5b7d9f1a3c"),
  accountHolderName: text("The account holder's name as the bank knows it", "Acme Bakery LLC"),
  routingNumber: text("ABA routing number (nine digits)", "011000015"),
  accountNumber: text("Bank account number, 4 to 17 digits (sealed at rest, answered masked only)", "000123456789"),
  accountType: text("Checking or Savings", "Checking"),

  // Cards
  brand: text("The card brand", "visa"),
  last4: text("Last four digits of the card", "4242"),
  expMonth: { description: "Expiry month, 1 to 12", example: 12 },
  expYear: { description: "Expiry year", example: 2029 },
  paymentMethods: { description: "The customer's saved cards" },
  setupIntentId: text("The card processor's id of the card setup (Stripe: the SetupIntent)", "seti_1NqLxY2eZvKYlo2C"),
  clientSecret: text(
    "The setup's client secret: the app completes the card setup with it through the processor's SDK (never logged; valid for this setup only)",
    "seti_1NqLxY2eZvKYlo2C_secret_OdFkQ3mE8w",
  ),
  token: text("A one-time token", "tok_1NqLxY2eZvKYlo2C"),

  // Companies and people
  name: text("The name", "Acme Bakery LLC"),
  "recipientAddress.name": text("The recipient's name", "Acme Bakery LLC"),
  title: text("The title", "Owner"),
  firstName: text("First name", "Jane"),
  lastName: text("Last name", "Doe"),
  profileName: text("The name shown in the app", "Jane D."),
  emailAddress: { description: "E-mail address", format: "email", example: "jane.doe@acme.example" },
  phoneNumber: text("Phone number in E.164 format", "+14155550123"),
  contactNumber: text("Contact phone number in E.164 format", "+14155550123"),
  websiteUrl: { description: "Website", example: "https://acme.example" },
  owner: { description: "The company's owner" },
  employees: { description: "The company's employees" },
  locations: { description: "The company's locations" },
  address: { description: "The postal address" },
  streetNumberAndName: text("Street number and name", "1 Market Street"),
  apartmentNumber: text("Apartment or suite", "Suite 200"),
  city: text("City", "San Francisco"),
  state: text("State or region", "CA"),
  zipCode: text("Postal code", "94105"),
  country: text("Country (ISO 3166-1 alpha-2)", "US"),
  companyType: text("Kind of company", "ForProfit"),
  taxId: text("Tax identification number", "12-3456789"),
  taxIdType: text("Kind of tax id", "EIN"),
  documentType: text("Kind of identity document", "DriversLicense"),
  documentNumber: text("Identity document number", "D1234567"),
  ssn: text("Social security number", "123-45-6789"),
  ssnLastFourDigits: text("Last four digits of the social security number", "6789"),

  // Customer login, preferences, accounts, verification
  code: text("The one-time code received by SMS", "123456"),
  accessToken: text(
    "The customer's bearer token (a JWT)",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjdXN0b21lciJ9.c2lnbmF0dXJl",
  ),
  refreshToken: text("Token to refresh the bank link", "refresh-5b7d9f1a"),
  publicToken: text("The bank-linking provider's public token", "public-sandbox-2b4d6f8a"),
  linkToken: text("The provider's token that opens its flow", "link-sandbox-8c0e2a4b"),
  linkAccountsMetadata: { description: "What the bank-linking flow returned about the accounts" },
  linkError: { description: "The bank-linking flow's error, if any" },
  errorCode: text("The provider's error code", "INVALID_CREDENTIALS"),
  errorMessage: text("The provider's error message", "the credentials were not correct"),
  errorType: text("The provider's error type", "ITEM_ERROR"),
  displayMessage: text("A message to show to the customer", "Please try again"),
  isOk: flag("Whether it succeeded"),
  account: { description: "The customer's default account, if any" },
  accounts: { description: "The customer's linked bank accounts" },
  mask: text("Last digits of the account number", "6789"),
  type: text("The kind", "checking"),
  newsEmail: flag("News by e-mail", false),
  newsPush: flag("News by push notification", false),
  paymentDueEmail: flag("Payment due reminders by e-mail"),
  paymentDuePush: flag("Payment due reminders by push notification"),
  paymentStatusEmail: flag("Payment status changes by e-mail"),
  paymentStatusPush: flag("Payment status changes by push notification"),
  overdraftWarningsEmail: flag("Overdraft warnings by e-mail"),
  overdraftWarningsPush: flag("Overdraft warnings by push notification"),
  redirectUrl: {
    description: "Where the customer continues the verification",
    example: "https://verify.example/s/7a6b5c",
  },
  screenerErrors: { description: "Why screening refused the data" },
  signature: text(
    "HMAC signature of the user id for the chat widget",
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  ),
  contentType: text("Media type", "application/pdf"),
  message: text("Why the value was refused", "must be a UUID such as 3f1c2b1e-8a3d-4c2e-9f5a-2b7d1e0c4a6f"),
  field: text("The refused field, as a dotted path", "owner.emailAddress"),

  // Problem details (RFC 9457)
  detail: text("What went wrong, for a human", "The request has an invalid value."),
  instance: text(
    "This occurrence: urn:uuid:<correlation id> (also the X-Correlation-Id header)",
    "urn:uuid:6f1e2d3c-4b5a-4987-8a6b-5c4d3e2f1a0b",
  ),
  errors: { description: "One entry per refused field" },
  retryAfterSeconds: { description: "Seconds to wait before retrying (also the Retry-After header)", example: 30 },
}
