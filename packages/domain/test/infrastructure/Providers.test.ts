import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import * as CompanyProviders from "../../src/companies/CompanyProviders.ts"
import * as CustomerProviders from "../../src/customers/CustomerProviders.ts"
import type { RegistrationId } from "../../src/kernel/Ids.ts"
import * as MoneyMovement from "../../src/payments/MoneyMovement.ts"
import * as PaymentProviders from "../../src/payments/PaymentProviders.ts"

const registrationId = "3b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a64" as RegistrationId

describe("provider ports", () => {
  it("each port has a partnerpay service id", () => {
    assert.deepStrictEqual(
      [
        CompanyProviders.KybVerifier,
        CustomerProviders.BankLinker,
        CustomerProviders.KycProvider,
        CustomerProviders.OtpSender,
        CustomerProviders.CardProcessor,
        PaymentProviders.ESignature,
        MoneyMovement.MoneyMovement,
      ].map((port) => port.key),
      [
        "partnerpay/domain/KybVerifier",
        "partnerpay/domain/BankLinker",
        "partnerpay/domain/KycProvider",
        "partnerpay/domain/OtpSender",
        "partnerpay/domain/CardProcessor",
        "partnerpay/domain/ESignature",
        "partnerpay/domain/MoneyMovement",
      ],
    )
  })

  it.effect("a link failure reaches the caller as a typed BankLinkFailed with the spec's linkError fields", () => {
    const failing = Layer.succeed(
      CustomerProviders.BankLinker,
      CustomerProviders.BankLinker.of({
        createLinkToken: () =>
          Effect.succeed({ linkToken: "link-sandbox-1", expiration: DateTime.makeUnsafe("2026-03-01T11:00:00.000Z") }),
        exchangePublicToken: () =>
          Effect.fail(
            new CustomerProviders.BankLinkFailed({
              errorType: "ITEM_ERROR",
              errorCode: "INVALID_CREDENTIALS",
              errorMessage: "the provided credentials were not correct",
              displayMessage: "The credentials you entered were incorrect.",
            }),
          ),
      }),
    )
    return Effect.gen(function* () {
      const linker = yield* CustomerProviders.BankLinker
      const error = yield* Effect.flip(
        linker.exchangePublicToken({
          registrationId,
          tokenId: "6b8c5c1e-4a1d-4f6e-9a3b-1c2d3e4f5a66",
          publicToken: "public-sandbox",
          linkSessionId: "s",
          institutionId: "ins_1",
          accountIds: ["a"],
        }),
      )
      assert.strictEqual(error._tag, "BankLinkFailed")
      if (error._tag === "BankLinkFailed") assert.strictEqual(error.errorCode, "INVALID_CREDENTIALS")
    }).pipe(Effect.provide(failing))
  })
})
