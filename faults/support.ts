/**
 * Fault-injection support: a fresh PostgreSQL database per scenario (psql),
 * the real service process (reusing the app's e2e support), a small HTTP
 * client, partner/customer tokens, HS256 signing for forged tokens, and the
 * summary line every scenario prints.
 */
import { execFile, execFileSync } from "node:child_process"
import { createHmac } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type RunningService, startService } from "../packages/app/test/support.ts"

export {
  companyBody,
  eventually,
  killAll,
  type ReceivedWebhook,
  type RunningService,
  startReceiver,
  startService,
} from "../packages/app/test/support.ts"

export const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** Runs one SQL statement with psql; returns the unaligned, tuples-only output. */
export const psql = (url: string, statement: string): string =>
  execFileSync("psql", [url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", statement], {
    encoding: "utf8",
    timeout: 20_000,
  }).trim()

export interface FreshDatabase {
  readonly name: string
  readonly url: string
  readonly drop: () => void
}

export const freshDatabase = (label: string): FreshDatabase => {
  const name = `partnerpay_faults_${label}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`
  psql(serverUrl, `CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: () => {
      try {
        psql(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } catch (error) {
        console.warn(`could not drop ${name}: ${String(error)}`)
      }
    },
  }
}

export const tempDir = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `partnerpay-faults-${label}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

export const tokenSecret = "faults-token-secret-0123456789-abcdefghijklmnop"
/** Shared by every instance on one database (each would otherwise generate its own into its data directory). */
export const secretPepper = "faults-secret-pepper-0123456789-abcdefghijklmnop"
/** The personal-data master key, shared likewise: an instance must unwrap the data keys another one wrapped. */
export const dataKey = "fa".repeat(32)
export const webhookSecret = "faults-webhook-signing-secret-9f2c"

export interface ServiceEnv {
  readonly clientId: string
  readonly clientSecret: string
  readonly dataDir: string
  readonly databaseUrl?: string | undefined
  readonly webhookUrl?: string | undefined
  readonly kybDelayMs?: number
  readonly extra?: Record<string, string>
}

export const serviceEnv = (options: ServiceEnv): Record<string, string> => ({
  PORT: "0",
  PARTNERPAY_DATA_DIR: options.dataDir,
  PARTNERPAY_TOKEN_SECRET: tokenSecret,
  PARTNERPAY_SECRET_PEPPER: secretPepper,
  PARTNERPAY_DATA_KEY: dataKey,
  PARTNERPAY_KYB_DELAY_MS: String(options.kybDelayMs ?? 60_000),
  PARTNERPAY_SETTLEMENT_DELAY_MS: "600000",
  PARTNERPAY_SANDBOX_CLIENT_ID: options.clientId,
  PARTNERPAY_SANDBOX_CLIENT_SECRET: options.clientSecret,
  LOG_LEVEL: "Info",
  ...(options.webhookUrl === undefined
    ? {}
    : { PARTNERPAY_SANDBOX_WEBHOOK_URL: options.webhookUrl, PARTNERPAY_SANDBOX_WEBHOOK_SECRET: webhookSecret }),
  ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
  ...options.extra,
})

export const start = (env: Record<string, string>) => startService(env, 60_000)

export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly text: string
  readonly body: unknown
  readonly headers: Headers
}

export const call = async (
  base: string,
  method: string,
  path: string,
  options: {
    token?: string | undefined
    body?: unknown
    rawBody?: string | Uint8Array | undefined
    headers?: Record<string, string>
    timeoutMs?: number
  } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  let body: string | Uint8Array | undefined = options.rawBody
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text,
    body: parsed,
    headers: response.headers,
  }
}

/** `call`, waiting out 429 answers (Retry-After, at most 10 times): for verification reads after a load. */
export const callPatiently = async (...args: Parameters<typeof call>): Promise<Answer> => {
  for (let attempt = 0; ; attempt++) {
    const answer = await call(...args)
    if (answer.status !== 429 || attempt === 10) return answer
    await new Promise((done) => setTimeout(done, 1000 * Number(answer.headers.get("retry-after") ?? "1")))
  }
}

export const isProblem = (answer: Answer) => answer.contentType.startsWith("application/problem+json")

export const partnerToken = async (service: RunningService, clientId: string, clientSecret: string) => {
  const answer = await call(service.url, "POST", "/auth/token", {
    body: { ClientId: clientId, ClientSecret: clientSecret },
  })
  if (answer.status !== 200) throw new Error(`token: ${answer.status} ${answer.text}`)
  return (answer.body as { AccessToken: string }).AccessToken
}

/**
 * Registers a company and waits until the sandbox KYB verified it (start the service with a small
 * `kybDelayMs`): only a Verified company collects. The Company/Create answer.
 */
export const verifiedCompany = async (base: string, partner: string, body: unknown) => {
  const company = await call(base, "POST", "/Company/Create", { token: partner, body })
  if (company.status !== 200) throw new Error(`Company/Create: ${company.status} ${company.text}`)
  const companyId = (company.body as { companyId: string }).companyId
  for (let i = 0; i < 150; i++) {
    const status = await call(base, "GET", `/company/status?companyId=${companyId}`, { token: partner })
    if ((status.body as { Status?: string }).Status === "Verified") return company
    await sleep(200)
  }
  throw new Error(`company ${companyId} not Verified within 30 s`)
}

/**
 * Logs a customer in (sandbox OTP 123456), verifies their identity (KYC: StartKyc, then the first
 * check answers Verified; only a Verified payer pays) and links one bank account.
 */
export const customer = async (base: string, partner: string, phoneNumber: string) => {
  const sent = await call(base, "POST", "/Login/SendOtp", { token: partner, body: { phoneNumber } })
  if (sent.status !== 200) throw new Error(`SendOtp: ${sent.status} ${sent.text}`)
  const checked = await call(base, "PUT", "/Login/CheckOtp", { token: partner, body: { phoneNumber, code: "123456" } })
  if (checked.status !== 200) throw new Error(`CheckOtp: ${checked.status} ${checked.text}`)
  const { accessToken, registrationId } = checked.body as { accessToken: string; registrationId: string }
  const kyc = await call(base, "POST", "/Verification/StartKyc", {
    token: accessToken,
    body: { deviceId: "faults-device" },
  })
  if (kyc.status !== 200) throw new Error(`StartKyc: ${kyc.status} ${kyc.text}`)
  const tokenId = (kyc.body as { tokenId: string }).tokenId
  // The sandbox KYC session lives in the memory of the instance that started it: behind a balancer,
  // the check is asked again until it reaches that instance.
  for (let attempt = 0; ; attempt++) {
    const verified = await call(base, "GET", "/Verification/CheckVerification", { token: accessToken })
    if ((verified.body as { status?: string }).status === "Verified") break
    if (attempt === 20) throw new Error(`CheckVerification: ${verified.status} ${verified.text}`)
    await sleep(50)
  }
  const link = await call(base, "PUT", "/Account/Link", {
    token: accessToken,
    body: {
      tokenId,
      publicToken: "public-sandbox-token",
      linkAccountsMetadata: { linkSessionId: "session-1", institutionId: "ins_1", accountIds: ["acc-1"] },
    },
  })
  if (link.status !== 200 || (link.body as { isOk: boolean }).isOk !== true)
    throw new Error(`Link: ${link.status} ${link.text}`)
  const accounts = await call(base, "GET", "/Account/List", { token: accessToken })
  const bankAccountId = (accounts.body as { accounts: Array<{ accountId: string }> }).accounts[0]!.accountId
  return { token: accessToken, registrationId, bankAccountId }
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url")

/** An HS256 JWT with exactly these claims (or another algorithm header, unsigned, for `alg: none`). */
export const signJwt = (claims: Record<string, unknown>, secret: string, alg = "HS256") => {
  const head = b64url(JSON.stringify({ alg, typ: "JWT" }))
  const payload = b64url(JSON.stringify(claims))
  if (alg === "none") return `${head}.${payload}.`
  const signature = createHmac("sha256", secret).update(`${head}.${payload}`).digest("base64url")
  return `${head}.${payload}.${signature}`
}

/** Counts answers by status: "200:3, 409:197". */
export const tally = (statuses: ReadonlyArray<number>) => {
  const counts = new Map<number, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  return [...counts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([status, count]) => `${status}:${count}`)
    .join(", ")
}

export const summary = (scenario: string, line: string) => {
  console.log(`[faults] ${scenario}: ${line}`)
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

export const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)

/** One SQL statement through psql, without blocking the event loop (the test's own requests are timed). */
export const psqlAsync = (url: string, statement: string): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile(
      "psql",
      [url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", statement],
      { encoding: "utf8", timeout: 10_000 },
      (error, stdout) => (error === null ? resolve(stdout.trim()) : reject(error)),
    ),
  )

/**
 * Samples `pg_stat_activity` of `database` until `stop()`: the longest time any of its sessions was
 * seen idle in a transaction (milliseconds).
 */
export const watchIdleInTransaction = (serverUrl: string, database: string) => {
  let longest = 0
  let running = true
  const done = (async () => {
    while (running) {
      const out = await psqlAsync(
        serverUrl,
        `SELECT coalesce(max(extract(epoch FROM now() - state_change) * 1000), 0)::int
         FROM pg_stat_activity WHERE datname = '${database}' AND state LIKE 'idle in transaction%'`,
      ).catch(() => "0")
      longest = Math.max(longest, Number(out) || 0)
      await sleep(250)
    }
  })()
  return {
    stop: async () => {
      running = false
      await done
      return longest
    },
  }
}
