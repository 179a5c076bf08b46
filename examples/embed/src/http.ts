/** The HTTP adapter loads from its published build too: its API describes the consent routes. */
import { Api } from "@partnerpay/adapters-http"
import { OpenApi } from "effect/http-api"

const paths = Object.keys(OpenApi.fromApi(Api.Api).paths)
console.log(
  `HTTP API: ${paths.includes("/Consent/{consentId}/Decline") ? "has" : "lacks"} /Consent/{consentId}/Decline`,
)
