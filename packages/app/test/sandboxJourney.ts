/**
 * Test support for the end-to-end journeys on the real service process in the sandboxes
 * (`Deficits.e2e.test.ts`, `MoneyGoesWrong.e2e.test.ts`, `Returns.e2e.test.ts`): a fresh data
 * directory (or PostgreSQL database), a local webhook receiver as the sandbox partner's webhook URL,
 * the service started with fast KYB and the journey's settlement delay, the partner's token and a
 * verified company. The receiver is closed and the database dropped after the journey, whatever its
 * outcome; `cleanUp` (in the file's `afterAll`) stops every service and removes the directories.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Json, on } from "./Requests.ts"
import {
  companyBody,
  freshDatabase,
  killAll,
  type ReceivedWebhook,
  type RunningService,
  startReceiver,
  startService,
  type WebhookReceiver,
} from "./support.ts"

const directories: Array<string> = []

/** Stops every service started and removes the journeys' data directories. */
export const cleanUp = () => {
  killAll()
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
}

/** The webhooks of one event type received so far, their Data. */
export const dataOf = (received: ReadonlyArray<ReceivedWebhook>, event: string): ReadonlyArray<Json> =>
  received
    .map((hook) => JSON.parse(hook.body) as { Event: string; Data: Json })
    .filter((payload) => payload.Event === event)
    .map((payload) => payload.Data)

export interface JourneyOptions {
  /** Names the client, its secrets and the data directory (`deficits`). */
  readonly name: string
  readonly database: "embedded" | "postgres"
  /** PARTNERPAY_SETTLEMENT_DELAY_MS. */
  readonly settlementDelayMillis: number
  /** The verified company's `companyReferenceId`. */
  readonly companyReferenceId: string
  /** More variables of the service. */
  readonly env?: Readonly<Record<string, string>>
}

export interface Journey {
  readonly service: RunningService
  readonly receiver: WebhookReceiver
  readonly dataDir: string
  /** Whether the journey runs on a PostgreSQL server (else on the embedded database in `dataDir`). */
  readonly postgres: boolean
  /** The sandbox partner's client id, and its access token. */
  readonly clientId: string
  readonly token: string
  /** A verified company of the partner. */
  readonly companyId: string
  readonly api: ReturnType<typeof on>
}

/** A test body: `journey` run against a fresh sandbox service. */
export const journey =
  (options: JourneyOptions, run: (journey: Journey) => Promise<void>) => async (): Promise<void> => {
    const dataDir = mkdtempSync(join(tmpdir(), `partnerpay-${options.name}-`))
    directories.push(dataDir)
    const receiver = await startReceiver()
    const db = options.database === "postgres" ? await freshDatabase() : undefined
    const clientId = `${options.name}-e2e-client`
    const clientSecret = `${options.name}-e2e-client-secret-0123456789`
    try {
      const service = await startService({
        PORT: "0",
        PARTNERPAY_DATA_DIR: dataDir,
        PARTNERPAY_KYB_DELAY_MS: "0",
        PARTNERPAY_SETTLEMENT_DELAY_MS: String(options.settlementDelayMillis),
        PARTNERPAY_SANDBOX_CLIENT_ID: clientId,
        PARTNERPAY_SANDBOX_CLIENT_SECRET: clientSecret,
        PARTNERPAY_SANDBOX_WEBHOOK_URL: receiver.url,
        PARTNERPAY_SANDBOX_WEBHOOK_SECRET: `${options.name}-webhook-signing-secret`,
        ...options.env,
        ...(db === undefined ? {} : { DATABASE_URL: db.url }),
      })
      const api = on(() => service.url)
      const token = (await api.ok("POST", "/auth/token", undefined, { ClientId: clientId, ClientSecret: clientSecret }))
        .AccessToken as string
      const companyId = await api.verifiedCompany(
        token,
        companyBody({ companyReferenceId: options.companyReferenceId }),
      )
      await run({ service, receiver, dataDir, postgres: db !== undefined, clientId, token, companyId, api })
    } finally {
      await receiver.close()
      await db?.drop()
    }
  }
