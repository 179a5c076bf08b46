/**
 * One casing for error codes (docs/architecture.md, glossary): every `code` partnerpay writes, from a
 * decider's `RuleViolated` to a problem answer, is UPPER_SNAKE_CASE, the same word on the wire as in
 * the domain. A provider's own codes keep the provider's casing (they are its words, carried in its
 * refusal and never answered as ours); each is listed here with the file that writes it.
 * Reads every source file's `code: "..."` literals.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { describe, expect, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.name === "node_modules"
      ? []
      : entry.isDirectory()
        ? sourceFiles(join(dir, entry.name))
        : entry.name.endsWith(".ts")
          ? [join(dir, entry.name)]
          : [],
  )

/** A provider's (or the platform's) own codes, as it writes them: `file: codes`. */
const providersWords: Readonly<Record<string, ReadonlyArray<string>>> = {
  // a card processor's decline code (Stripe's casing), in the sandboxes of the card ports
  "domain/src/customers/CustomerProviderSandboxes.ts": ["card_declined"],
  "domain/src/payments/CardCharger.ts": ["card_declined"],
  "app/src/providers/StripeCardProcessor.ts": ["stripe_reference_unknown", "authentication_required"],
  // Stripe's code of a failed 3-D Secure authentication, as the sandbox's authenticate call imitates it
  "app/src/sandbox/SandboxCards.ts": ["payment_intent_authentication_failure"],
  // Dwolla's refusal code, as the money-movement sandbox imitates it
  "app/src/sandbox/SandboxMoneyMovement.ts": ["ValidationError"],
  // the OpenAPI description of the `code` field, not a code
  "adapters-http/src/cross-cutting/OpenApiReference.ts": [
    "Stable machine code of the problem (see the operation's x-error-codes)",
  ],
}

const upperSnake = /^[A-Z0-9]+(?:_[A-Z0-9]+)*$/

describe("error codes", () => {
  it("every code partnerpay writes is UPPER_SNAKE_CASE; a provider's keep its casing", () => {
    const packages = join(root, "packages")
    const offending: Array<string> = []
    for (const pkg of readdirSync(packages)) {
      for (const file of sourceFiles(join(packages, pkg, "src"))) {
        const name = relative(packages, file).split(sep).join("/")
        for (const match of readFileSync(file, "utf8").matchAll(/\bcode: "([^"]*)"/g)) {
          const code = match[1]!
          if (!upperSnake.test(code) && !(providersWords[name] ?? []).includes(code)) offending.push(`${name}: ${code}`)
        }
      }
    }
    expect(offending).toEqual([])
  })
})
