/**
 * E-mail over SMTP with `nodemailer`, received by a local `smtp-server`: a
 * reminder arrives from the configured sender, worded for its template; a
 * recipient the server refuses for good (5xx) is undeliverable, a server
 * that cannot be reached is unavailable.
 */
import type { AddressInfo } from "node:net"
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { Ids } from "@partnerpay/domain"
import { Effect, Redacted } from "effect"
import { SMTPServer } from "smtp-server"
import * as SmtpEmail from "../../src/providers/SmtpEmail.ts"

interface Received {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly data: string
}

const servers: Array<SMTPServer> = []
afterAll(() => Promise.all(servers.map((server) => new Promise<void>((closed) => server.close(() => closed())))))

/** A local SMTP server (no TLS, login with any password) refusing the recipients that start with `refused`. */
const startServer = () =>
  Effect.promise(async () => {
    const received: Array<Received> = []
    const server = new SMTPServer({
      disabledCommands: ["STARTTLS"],
      authOptional: true,
      onAuth: (_auth, _session, done) => done(null, { user: "operator" }),
      onRcptTo: (address, _session, done) =>
        address.address.startsWith("refused")
          ? done(Object.assign(new Error("no such mailbox"), { responseCode: 550 }))
          : done(),
      onData: (stream, session, done) => {
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            data: Buffer.concat(chunks).toString("utf8"),
          })
          done()
        })
      },
    })
    servers.push(server)
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", () => listening()))
    const { port } = server.server.address() as AddressInfo
    return { received, port }
  })

const message = (to: string) => ({
  partnerId: "00000000-0000-4000-8000-000000000001" as Ids.PartnerId,
  to,
  template: "PaymentDueToday" as const,
})

describe("e-mail over SMTP", () => {
  it.live("a reminder arrives from the configured sender, worded for its template", () =>
    Effect.gen(function* () {
      const { received, port } = yield* startServer()
      const sender = SmtpEmail.make({
        url: Redacted.make(`smtp://operator:a%20password@127.0.0.1:${port}`),
        from: "Payments <payments@example.com>",
        timeoutMillis: 5000,
      })
      yield* sender.send(message("payer@example.com"))
      assert.strictEqual(received.length, 1)
      assert.strictEqual(received[0]?.from, "payments@example.com")
      assert.deepStrictEqual(received[0]?.to, ["payer@example.com"])
      assert.include(received[0]?.data, "Subject: A payment is due today")
      assert.include(received[0]?.data, "A payment is due today")
    }),
  )

  it.live("a recipient the server refuses for good is undeliverable", () =>
    Effect.gen(function* () {
      const { port } = yield* startServer()
      const sender = SmtpEmail.make({
        url: Redacted.make(`smtp://127.0.0.1:${port}`),
        from: "payments@example.com",
        timeoutMillis: 5000,
      })
      const refused = yield* Effect.flip(sender.send(message("refused@example.com")))
      assert.strictEqual(refused._tag, "MessageUndeliverable")
    }),
  )

  it.live("a server that cannot be reached is unavailable, and the password never shows", () =>
    Effect.gen(function* () {
      const sender = SmtpEmail.make({
        url: Redacted.make("smtp://operator:hunter2-password@127.0.0.1:1"),
        from: "payments@example.com",
        timeoutMillis: 1000,
      })
      const failed = yield* Effect.flip(sender.send(message("payer@example.com")))
      assert.strictEqual(failed._tag, "ProviderUnavailable")
      assert.notInclude(failed.message, "hunter2")
    }),
  )
})
