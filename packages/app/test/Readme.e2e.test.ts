/**
 * The README as a newcomer uses it in a clone: every relative link leads to a
 * file of the repository, and the "Try it" shell walkthrough, executed as
 * written (bash, curl, jq) against the real service, works twice in a row on
 * the same data.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { killAll, startService } from "./support.ts"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), "partnerpay-readme-"))
afterAll(() => {
  killAll()
  rmSync(dataDir, { recursive: true, force: true })
})

const documents = ["README.md", "docs/decisions.md", "docs/development.md", "docs/sandbox.md", "docs/benchmarks.md"]

/** The relative targets of the Markdown links of `file` (anchors and web links left out). */
const relativeLinks = (file: string): Array<string> =>
  [...readFileSync(join(root, file), "utf8").matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split("#")[0]!)
    .filter((target) => target !== "" && !/^[a-z]+:/i.test(target))

const hasTool = (tool: string) =>
  new Promise<boolean>((done) => execFile("bash", ["-c", `command -v ${tool}`], (error) => done(error === null)))

describe("the README in a clone", () => {
  for (const file of documents) {
    it(`${file}: every relative link leads to a file of the repository`, () => {
      const links = relativeLinks(file)
      assert.isAbove(links.length, 0)
      for (const target of links) {
        const path = resolve(dirname(join(root, file)), target)
        assert.isTrue(path.startsWith(root), `${file} links outside the repository: ${target}`)
        assert.isTrue(existsSync(path), `${file} links to a missing ${target}`)
      }
    })
  }

  it("the interface specification is in docs/", () => {
    assert.include(readFileSync(join(root, "docs/partner-interface.md"), "utf8"), "/HealthCheck/Get")
  })

  it("the walkthrough runs twice in a row against the same service", async () => {
    if (!(await hasTool("jq")) || !(await hasTool("curl"))) {
      if (process.env.CI === "true") assert.fail("the walkthrough needs curl and jq")
      console.warn("!!! curl or jq missing: SKIPPING the README walkthrough run")
      return
    }
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const script = /```sh\n(BASE=http:\/\/127\.0\.0\.1:3000\n[\s\S]*?)```/.exec(readme)?.[1]
    assert.isString(script, "the walkthrough's shell block")
    const service = await startService({
      PORT: "0",
      PARTNERPAY_DATA_DIR: dataDir,
      PARTNERPAY_SANDBOX_CLIENT_ID: "my-sandbox-client",
      PARTNERPAY_SANDBOX_CLIENT_SECRET: "a long sandbox secret",
      PARTNERPAY_ADMIN_TOKEN: "sandbox-operator-token-0123456789abcdef",
      // The walkthrough sleeps 3 s for 2 s delays; shorter delays keep it reliable on a loaded machine.
      PARTNERPAY_KYB_DELAY_MS: "200",
      PARTNERPAY_SETTLEMENT_DELAY_MS: "200",
    })
    const run = () =>
      new Promise<string>((done, fail) =>
        execFile(
          "bash",
          ["-c", script!.replace("BASE=http://127.0.0.1:3000", `BASE=${service.url}`)],
          { timeout: 120_000 },
          (error, stdout, stderr) =>
            error === null ? done(stdout) : fail(new Error(`${error}\n${stdout}\n${stderr}`)),
        ),
      )
    for (const round of [1, 2]) {
      const output = await run()
      assert.include(output, '"Status":"Verified"', `round ${round}:\n${output}`)
      assert.include(output, '"Paid"', `round ${round}:\n${output}`)
      assert.include(output, '"Active"', `round ${round}:\n${output}`)
      assert.include(output, '"collectedBy":"AutoPay"', `round ${round}:\n${output}`)
      assert.include(output, '{"status":"Pending","amount":10}', `round ${round}:\n${output}`)
      assert.include(output, '{"status":"Paid","refunded":10}', `round ${round}:\n${output}`)
      assert.include(
        output,
        '{"status":"Returned","returnCode":"R10","history":["Pending","Accepted","Paid","Returned"]}',
        `round ${round}:\n${output}`,
      )
      assert.include(
        output,
        '{"status":"Returned","returnCode":"R10","returnReason":"Customer advises originator is not known and/or not authorized to debit the account"}',
        `round ${round}:\n${output}`,
      )
      assert.notInclude(output, "DUPLICATE", `round ${round}:\n${output}`)
      assert.include(output, '{"balanced":true,"discrepancies":[]}', `round ${round}:\n${output}`)
      // The operator's ACH fee (1% + 0.30) is set every round (idempotent) and netted by the payout.
      assert.include(output, '{"percentageBasisPoints":100,"fixed":0.3}', `round ${round}:\n${output}`)
      assert.include(output, '{"available":110.16,"pending":0}', `round ${round}:\n${output}`)
      assert.include(output, '{"status":"Paid","amount":110.16,"itemCount":8}', `round ${round}:\n${output}`)
      assert.include(
        output,
        '[{"type":"payment","amount":42.5},{"type":"fee","amount":-0.73},{"type":"payment","amount":19.99},' +
          '{"type":"fee","amount":-0.5},{"type":"instalment","amount":25},{"type":"fee","amount":-0.55},' +
          '{"type":"instalment","amount":25},{"type":"fee","amount":-0.55}]',
        `round ${round}:\n${output}`,
      )
      assert.include(
        output,
        '[{"channel":"email","template":"PaymentDueSoon"},{"channel":"sms","template":"PaymentDueSoon"},' +
          '{"channel":"email","template":"PaymentDueToday"},{"channel":"sms","template":"PaymentDueToday"}]',
        `round ${round}:\n${output}`,
      )
    }
    await service.stop()
  }, 300_000)
})
