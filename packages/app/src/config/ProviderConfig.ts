/**
 * The configuration of the provider ports (`ProviderPorts`): which adapter
 * serves each port (PARTNERPAY_PROVIDER_<PORT>, a bridge by default) and its
 * settings, every rule applied (a bridge's URL and secret go together,
 * production needs https and every required port, a first-party adapter its
 * vendor's settings). Part of `Config.load`.
 */
import { Option } from "effect"
import * as HttpBridge from "../providers/HttpBridge.ts"
import * as ProviderPorts from "../providers/ProviderPorts.ts"
import type { Issues, Read } from "./ConfigReading.ts"
import * as SettingSchemas from "./SettingSchemas.ts"
import * as Settings from "./Settings.ts"

const { settings } = Settings

const isLoopback = (url: URL) => ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)

/**
 * The ports' providers. PARTNERPAY_PROVIDER_<PORT> picks the adapter (`bridge` by default). A bridge is
 * PARTNERPAY_PROVIDER_<PORT>_{URL,SECRET,TIMEOUT_MS,RETRIES}: URL and SECRET go together; production needs
 * https (but on loopback) and every required port configured: each port left out is one issue naming it.
 * A first-party adapter needs its vendor's settings (each missing one named once, whatever the number of
 * ports that need it); its calls wait at most the port's TIMEOUT_MS.
 */
export const providersOf = (read: Read, issues: Issues, production: boolean): ProviderPorts.Configuration => {
  const ports: Partial<Record<ProviderPorts.PortKey, ProviderPorts.Selection>> = {}
  const needs = new Map<string, string>()
  const need = (variable: string, why: string) => {
    if (!needs.has(variable)) needs.set(variable, why)
  }
  for (const entry of ProviderPorts.ports) {
    const value = read.bridges[entry.key]
    const declared = Settings.bridges[entry.key]
    const choice = issues.take(value.choice)
    const timeoutMillis = issues.take(value.timeoutMillis)
    if (choice !== "bridge") {
      const why = `is required when ${declared.choice.name}=${choice}`
      if (choice === "twilio") {
        need(settings.twilioAccountSid.name, why)
        need(settings.twilioAuthToken.name, why)
        if (entry.key === "OTP") need(settings.twilioVerifyServiceSid.name, why)
        if (entry.key === "SMS") need(settings.twilioMessagingServiceSid.name, why)
      }
      if (choice === "smtp") {
        need(settings.smtpUrl.name, why)
        need(settings.smtpFrom.name, why)
      }
      if (choice === "plaid") {
        need(settings.plaidClientId.name, why)
        need(settings.plaidSecret.name, why)
        need(settings.plaidEnvironment.name, why)
        if (entry.key === "KYC") need(settings.plaidIdvTemplateId.name, why)
      }
      if (choice === "dwolla") {
        need(settings.dwollaKey.name, why)
        need(settings.dwollaSecret.name, why)
        need(settings.dwollaEnvironment.name, why)
        need(settings.dwollaWebhookSecret.name, why)
        if (entry.key === "KYB") need(settings.dwollaBusinessClassification.name, why)
        if (entry.key === "MONEY_MOVEMENT") need(settings.dwollaMasterFundingSource.name, why)
      }
      if (choice === "stripe") {
        need(settings.stripeSecretKey.name, why)
        need(settings.stripeWebhookSecret.name, why)
      }
      ports[entry.key] = { _tag: choice, timeoutMillis }
      continue
    }
    const [urlVariable, secretVariable] = [declared.url.name, declared.secret.name]
    if (!value.url.set && !value.secret.set) {
      if (production && entry.required) {
        issues.add(
          urlVariable,
          `is required when PARTNERPAY_ENV=production, with ${secretVariable}` +
            ` (or ${declared.choice.name} set to one of ${ProviderPorts.adaptersOf(entry.key).join(", ")}): ` +
            `${entry.port} has no production provider (sandboxes never run in production)`,
        )
      }
      continue
    }
    if (!value.url.set) issues.add(urlVariable, `is required when ${secretVariable} is set`)
    const url = issues.take(value.url)
    const insecure = Option.isSome(url) && production && !isSecure(new URL(url.value))
    if (insecure) issues.add(urlVariable, "must be an https:// URL in production (http only on loopback)")
    if (!value.secret.set) {
      issues.add(
        secretVariable,
        `is required when ${urlVariable} is set (at least ${SettingSchemas.minimumProviderSecretLength} characters)`,
      )
    }
    const secret = issues.take(value.secret)
    const retries = issues.take(value.retries)
    if (Option.isSome(url) && !insecure && Option.isSome(secret)) {
      ports[entry.key] = { _tag: "bridge", bridge: { url: url.value, secret: secret.value, timeoutMillis, retries } }
    }
  }
  // Dwolla pays companies out to their Dwolla customer, which KYB on Dwolla makes.
  if (ports.MONEY_MOVEMENT?._tag === "dwolla" && ports.KYB?._tag !== "dwolla") {
    issues.add(
      Settings.bridges.KYB.choice.name,
      "must be dwolla when PARTNERPAY_PROVIDER_MONEY_MOVEMENT=dwolla (payouts go to the company's Dwolla customer, made by KYB on Dwolla)",
    )
  }
  const vendor = <A>(reading: Settings.Reading<Option.Option<A>>, name: string): A | undefined => {
    if (needs.has(name) && !reading.set) issues.add(name, needs.get(name) as string)
    return Option.getOrUndefined(issues.take(reading))
  }
  const baseUrl = (reading: Settings.Reading<Option.Option<string>>, name: string) => {
    const url = vendor(reading, name)
    if (url !== undefined && production && !isSecure(new URL(url))) {
      issues.add(name, "must be an https:// URL in production (http only on loopback)")
    }
    return url
  }
  const value = read.settings
  const twilio = {
    accountSid: vendor(value.twilioAccountSid, settings.twilioAccountSid.name),
    authToken: vendor(value.twilioAuthToken, settings.twilioAuthToken.name),
    verifyServiceSid: vendor(value.twilioVerifyServiceSid, settings.twilioVerifyServiceSid.name),
    messagingServiceSid: vendor(value.twilioMessagingServiceSid, settings.twilioMessagingServiceSid.name),
    baseUrl: baseUrl(value.twilioBaseUrl, settings.twilioBaseUrl.name),
  }
  const smtp = {
    url: vendor(value.smtpUrl, settings.smtpUrl.name),
    from: vendor(value.smtpFrom, settings.smtpFrom.name),
  }
  const plaid = {
    clientId: vendor(value.plaidClientId, settings.plaidClientId.name),
    secret: vendor(value.plaidSecret, settings.plaidSecret.name),
    environment: vendor(value.plaidEnvironment, settings.plaidEnvironment.name),
    baseUrl: baseUrl(value.plaidBaseUrl, settings.plaidBaseUrl.name),
    webhookUrl: vendor(value.plaidWebhookUrl, settings.plaidWebhookUrl.name),
    identityVerificationTemplateId: vendor(value.plaidIdvTemplateId, settings.plaidIdvTemplateId.name),
    clientName: issues.take(value.plaidClientName),
  }
  const dwolla = {
    key: vendor(value.dwollaKey, settings.dwollaKey.name),
    secret: vendor(value.dwollaSecret, settings.dwollaSecret.name),
    environment: vendor(value.dwollaEnvironment, settings.dwollaEnvironment.name),
    baseUrl: baseUrl(value.dwollaBaseUrl, settings.dwollaBaseUrl.name),
    webhookSecret: vendor(value.dwollaWebhookSecret, settings.dwollaWebhookSecret.name),
    previousWebhookSecret: vendor(value.dwollaPreviousWebhookSecret, settings.dwollaPreviousWebhookSecret.name),
    webhookUrl: baseUrl(value.dwollaWebhookUrl, settings.dwollaWebhookUrl.name),
    businessClassification: vendor(value.dwollaBusinessClassification, settings.dwollaBusinessClassification.name),
    masterFundingSource: vendor(value.dwollaMasterFundingSource, settings.dwollaMasterFundingSource.name),
  }
  const stripe = {
    secretKey: vendor(value.stripeSecretKey, settings.stripeSecretKey.name),
    webhookSecret: vendor(value.stripeWebhookSecret, settings.stripeWebhookSecret.name),
    baseUrl: baseUrl(value.stripeBaseUrl, settings.stripeBaseUrl.name),
  }
  const timeoutMillis = HttpBridge.defaultTimeoutMillis
  return {
    ports,
    vendors: {
      twilio:
        twilio.accountSid === undefined || twilio.authToken === undefined
          ? undefined
          : { ...twilio, accountSid: twilio.accountSid, authToken: twilio.authToken, timeoutMillis },
      smtp:
        smtp.url === undefined || smtp.from === undefined
          ? undefined
          : { url: smtp.url, from: smtp.from, timeoutMillis },
      plaid:
        plaid.clientId === undefined || plaid.secret === undefined || plaid.environment === undefined
          ? undefined
          : {
              ...plaid,
              clientId: plaid.clientId,
              secret: plaid.secret,
              environment: plaid.environment,
              timeoutMillis,
            },
      dwolla:
        dwolla.key === undefined ||
        dwolla.secret === undefined ||
        dwolla.environment === undefined ||
        dwolla.webhookSecret === undefined
          ? undefined
          : {
              ...dwolla,
              key: dwolla.key,
              secret: dwolla.secret,
              environment: dwolla.environment,
              webhookSecret: dwolla.webhookSecret,
              timeoutMillis,
            },
      stripe:
        stripe.secretKey === undefined || stripe.webhookSecret === undefined
          ? undefined
          : { ...stripe, secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, timeoutMillis },
    },
  }
}

const isSecure = (url: URL) => url.protocol === "https:" || isLoopback(url)
