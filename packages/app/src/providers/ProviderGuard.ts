/**
 * Every provider port the service is given, guarded against a call made
 * while a database transaction is open (`PgTransactionGuard`: a defect under
 * the tests, an error log line in a running service): the message senders,
 * the OTP sender, KYC, bank linking, the card processor and charger, KYB,
 * money movement and e-signature. Applied to the sandbox's simulated
 * providers and to production's alike (Service.ts).
 */
import { PgTransactionGuard } from "@partnerpay/adapters-pg"
import {
  CardCharger,
  CompanyProviders,
  CustomerProviders,
  Messaging,
  MoneyMovement,
  PaymentProviders,
} from "@partnerpay/domain"
import { Context, Layer } from "effect"

/** The provider ports, by name (a name is what a defect or log line says). */
export const ports: ReadonlyArray<readonly [string, Context.Key<never, object>]> = [
  ["SmsSender", Messaging.SmsSender],
  ["PushSender", Messaging.PushSender],
  ["EmailSender", Messaging.EmailSender],
  ["OtpSender", CustomerProviders.OtpSender],
  ["BankLinker", CustomerProviders.BankLinker],
  ["KycProvider", CustomerProviders.KycProvider],
  ["CardProcessor", CustomerProviders.CardProcessor],
  ["CardCharger", CardCharger.CardCharger],
  ["KybVerifier", CompanyProviders.KybVerifier],
  ["MoneyMovement", MoneyMovement.MoneyMovement],
  ["ESignature", PaymentProviders.ESignature],
] as unknown as ReadonlyArray<readonly [string, Context.Key<never, object>]>

/** `context` with each provider port it holds guarded. */
export const guardContext = <A>(context: Context.Context<A>): Context.Context<A> => {
  let out = context as Context.Context<never>
  for (const [name, key] of ports) {
    const service = Context.getOrUndefined(out, key)
    if (service !== undefined) out = Context.add(out, key, PgTransactionGuard.guardService(name, service))
  }
  return out as Context.Context<A>
}

/** `layer` with the provider ports it provides guarded. */
export const guarded = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.flatMap(layer, (context) => Layer.succeedContext(guardContext(context)))
