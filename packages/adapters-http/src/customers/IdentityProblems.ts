/** Problem mapping shared by the login, account and verification handlers: domain errors, providers, throttling. */
import type { CustomerLogin, Providers } from "@partnerpay/domain"
import * as Problem from "../cross-cutting/Problem.ts"

type Failure = Problem.DomainFailure | Providers.ProviderUnavailable | CustomerLogin.LoginThrottled

export function toProblem(error: Problem.DomainFailure | Providers.ProviderUnavailable): Problem.DomainProblem
export function toProblem(error: Failure): Problem.DomainProblem | Problem.TooManyRequests
export function toProblem(error: Failure): Problem.DomainProblem | Problem.TooManyRequests {
  switch (error._tag) {
    case "ProviderUnavailable":
      return new Problem.ServiceUnavailable({
        detail: "A provider the operation needs is unavailable; retry later.",
        code: "PROVIDER_UNAVAILABLE",
      })
    case "LoginThrottled":
      return new Problem.TooManyRequests({
        detail: `${error.reason}; retry after ${error.retryAfterSeconds} seconds.`,
        code: error.code,
        retryAfterSeconds: error.retryAfterSeconds,
      })
    default:
      return Problem.fromDomain(error)
  }
}
