/**
 * The OpenAPI document passes Redocly's `recommended` ruleset (the lint most API tooling applies):
 * no error and no warning, with one finding accepted and explained. The interface fixes both
 * `/Payment/{paymentRequestId}/Cancel` and `/Payment/CardPaymentMethods/{registrationId}`, which
 * Redocly calls ambiguous (a payment request id could be "CardPaymentMethods"); it cannot be one: the
 * id is a UUID, and the router matches the literal segment first (docs/decisions.md).
 */
import { assert, describe, it } from "@effect/vitest"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { OpenApi } from "effect/http-api"
import { Api } from "../src/Api.ts"

const absoluteRef = "/openapi.json"
const acceptedAmbiguity = "#/paths/~1Payment~1CardPaymentMethods~1{registrationId}"

const findings = async (ignore: Record<string, Record<string, Set<string>>> = {}) => {
  const config = await createConfig({ extends: ["recommended"] }, { ignore })
  const problems = await lintFromString({ source: JSON.stringify(OpenApi.fromApi(Api)), absoluteRef, config })
  return problems
    .filter((problem) => !problem.ignored)
    .map((problem) => ({
      severity: problem.severity,
      rule: problem.ruleId,
      where: problem.location[0]?.pointer ?? "",
      message: problem.message,
    }))
}

describe("the OpenAPI document under Redocly's recommended lint", () => {
  it("has no error and no warning besides the interface's accepted path pair", async () => {
    const found = await findings({ [absoluteRef]: { "no-ambiguous-paths": new Set([acceptedAmbiguity]) } })
    assert.deepStrictEqual(found, [])
  }, 60_000)

  it("accepts exactly that one finding: the pair of the interface's paths", async () => {
    const found = await findings()
    assert.deepStrictEqual(
      found.map(({ rule, where }) => ({ rule, where })),
      [{ rule: "no-ambiguous-paths", where: acceptedAmbiguity }],
    )
  }, 60_000)
})
