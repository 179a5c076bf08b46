import { createPartnerpayClient, unwrap } from "@partnerpay/client"

const partnerpay = createPartnerpayClient({
  baseUrl: process.env.PARTNERPAY_URL ?? "http://127.0.0.1:3000",
  clientId: "my-sandbox-client",
  clientSecret: "a long sandbox secret",
})
const run = `${Date.now()}-${Math.floor(Math.random() * 1e6)}` // a new companyReferenceId on every run

/** Reads until `done` holds: the sandbox decides KYB and settles transfers after a delay. */
const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
  for (let tries = 0; tries < 120; tries++) {
    const value = await read()
    if (done(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error("the sandbox did not get there within 30 s")
}

// 1. The client obtains the partner token itself (POST /auth/token) and renews it when needed.

// 2. Register a company. It is Unverified until the sandbox KYB decides.
const { companyId } = unwrap(
  await partnerpay.POST("/Company/Create", {
    body: {
      companyReferenceId: `acme-${run}`,
      name: "Acme Coffee",
      emailAddress: "hello@acme.example.com",
      taxId: "12-3456789",
      taxIdType: "EIN",
      streetNumberAndName: "100 Main St",
      zipCode: "94105",
      city: "San Francisco",
      state: "CA",
      contactNumber: "+14155550199",
      companyType: "ForProfit",
      owner: {
        name: "Ada Lovelace",
        emailAddress: "ada@acme.example.com",
        contactNumber: "(415) 555-0100",
        title: "CEO",
        documentNumber: "D7654321",
        documentType: "DriversLicense",
        ssn: "987-65-4321",
        dateOfBirth: "1980-12-10",
        streetNumberAndName: "1 Analytical Way",
        zipCode: "94105",
        city: "San Francisco",
        state: "CA",
      },
      employees: [],
      locations: [],
    },
  }),
)
const companyStatus = async () =>
  unwrap(await partnerpay.GET("/company/status", { params: { query: { companyId } } })).Status
console.log("2. company", await until(companyStatus, (status) => status !== "Unverified")) // Verified

// 3. Log a customer in (the sandbox code is always 123456); `customer` sends the customer's token.
unwrap(await partnerpay.POST("/Login/SendOtp", { body: { phoneNumber: "+14155550123" } }))
const login = unwrap(await partnerpay.PUT("/Login/CheckOtp", { body: { phoneNumber: "+14155550123", code: "123456" } }))
const customer = partnerpay.withCustomerToken(login.accessToken)
const payer = login.registrationId

// 4. Verify the customer's identity, then link a bank account: StartKyc opens a session (identity
//    verification and bank link), the sandbox verifies at the first check (only a Verified payer
//    pays), then the bank-link provider's public token.
const { tokenId } = unwrap(await customer.POST("/Verification/StartKyc", { body: { deviceId: "my-phone" } }))
console.log("4. identity", unwrap(await customer.GET("/Verification/CheckVerification")).status) // Verified
const link = unwrap(
  await customer.PUT("/Account/Link", {
    body: {
      tokenId,
      publicToken: "public-sandbox-ok",
      linkAccountsMetadata: { linkSessionId: "link-1", institutionId: "ins_1", accountIds: ["acc-checking"] },
    },
  }),
)
const bankAccountId = unwrap(await customer.GET("/Account/List")).accounts[0].accountId
console.log("4. bank account linked", link.isOk) // true

// 5. A payment request, accepted by the customer, Paid once the sandbox bank settles it.
//    The sandbox's own paths are outside the typed API: `partnerpay.fetch` sends them.
const today = async () =>
  ((await (await partnerpay.fetch("/Sandbox/Clock")).json()) as { now: string }).now.slice(0, 10)
const { paymentRequestId } = unwrap(
  await partnerpay.POST("/Payment/Create", {
    body: {
      companyId,
      payerRegistrationId: payer,
      amount: { value: 42.5, currencyCode: "USD" },
      description: "Invoice 1001",
      dueDate: await today(),
    },
  }),
)
unwrap(
  await customer.POST("/Transaction/PaymentRequest/{paymentRequestId}/Accept", {
    params: { path: { paymentRequestId } },
    body: { bankAccountId, acceptDebitAuth: false, transferDescription: "Invoice 1001" },
  }),
)
const paymentStatus = async () =>
  unwrap(await partnerpay.GET("/Payment/{paymentRequestId}", { params: { path: { paymentRequestId } } })).status
console.log("5. payment request", await until(paymentStatus, (status) => status === "Paid")) // Paid

// 6. A weekly payment plan from today: the payer accepts its consent, the partner activates it,
//    and the scheduler collects today's instalment, which settles.
const plan = unwrap(
  await partnerpay.POST("/PaymentPlan/Create", {
    body: {
      companyId,
      payerRegistrationId: payer,
      amount: { value: 25, currencyCode: "USD" },
      frequency: "Weekly",
      recurrenceInterval: 1,
      startDate: await today(),
      numberOfPayments: 4,
    },
  }),
)
unwrap(
  await customer.PUT("/Consent/{consentId}/Accept", {
    params: { path: { consentId: plan.consentId } },
    body: { bankAccountId },
  }),
)
unwrap(
  await partnerpay.PUT("/PaymentPlan/{paymentPlanId}/Activate", {
    params: { path: { paymentPlanId: plan.paymentPlanId } },
  }),
)
const readPlan = async () =>
  unwrap(
    await partnerpay.GET("/PaymentPlan/{paymentPlanId}", { params: { path: { paymentPlanId: plan.paymentPlanId } } }),
  )
const first = await until(readPlan, (p) => p.settledCount === 1)
console.log("6. plan", first.status, "instalment 1", first.instalments[0].status) // Active instalment 1 Settled

// 7. Move the sandbox clock a week ahead: the next instalment falls due, is collected and settles.
//    The partner token expired with the move (tokens follow the sandbox clock): the client gets a
//    new one on the 401 and sends the request again, nothing to do here.
await partnerpay.fetch("/Sandbox/Clock/Advance", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ days: 7 }),
})
const second = await until(readPlan, (p) => p.settledCount === 2)
console.log("7. a week later", second.collectedCount, "collected,", second.settledCount, "settled") // 2 collected, 2 settled

// 8. Every payment request of the company, page after page (`limit` per page, `startingAfter` followed).
for await (const request of partnerpay.paginate("/Payment/History", { companyId, limit: 10 })) {
  console.log("8. history", request.description, request.status) // Invoice 1001 Paid
}
