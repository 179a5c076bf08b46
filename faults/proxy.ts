/**
 * A small round-robin reverse proxy for the multi-instance scenarios, standing
 * in for the load balancer an operator runs in front of several instances:
 * each request goes to the next backend in rotation, on a fresh connection (no
 * keep-alive, so a stopped instance never holds a pooled socket). A backend
 * that refuses the connection (ECONNREFUSED: the request never reached it) is
 * skipped and the request goes to the next one, as a balancer's connect retry
 * does; a failure after the request was sent is answered 502 (the outcome is
 * unknown to the client, which must retry with its Idempotency-Key). Backends
 * are deregistered and registered again by the test (a rolling restart drains
 * an instance before stopping it).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Balancer {
  readonly url: string
  /** The backends in rotation (base URLs). */
  readonly backends: Array<string>
  /** Requests in flight per backend. */
  readonly inFlight: Map<string, number>
  /** Waits until the backend has no request in flight (after deregistering it). */
  readonly drained: (backend: string) => Promise<void>
  readonly close: () => Promise<void>
}

const forward = (
  backend: string,
  incoming: IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer } | "refused" | "failed"> =>
  new Promise((resolve) => {
    const target = new URL(incoming.url ?? "/", backend)
    const outgoing = httpRequest(
      target,
      {
        method: incoming.method,
        headers: { ...incoming.headers, host: target.host, connection: "close" },
        agent: false,
      },
      (answer) => {
        const chunks: Array<Buffer> = []
        answer.on("data", (chunk: Buffer) => chunks.push(chunk))
        answer.on("end", () =>
          resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }),
        )
        answer.on("error", () => resolve("failed"))
      },
    )
    outgoing.on("error", (error: NodeJS.ErrnoException) =>
      resolve(error.code === "ECONNREFUSED" ? "refused" : "failed"),
    )
    outgoing.end(body)
  })

export const startProxy = (backends: ReadonlyArray<string>): Promise<Balancer> =>
  new Promise((resolve) => {
    const rotation = [...backends]
    const inFlight = new Map<string, number>()
    let next = 0
    const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
      const chunks: Array<Buffer> = []
      for await (const chunk of incoming) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks)
      for (let tried = 0; tried < Math.max(1, rotation.length); tried++) {
        const backend = rotation[next++ % rotation.length]
        if (backend === undefined) break
        inFlight.set(backend, (inFlight.get(backend) ?? 0) + 1)
        const answer = await forward(backend, incoming, body).finally(() =>
          inFlight.set(backend, (inFlight.get(backend) ?? 1) - 1),
        )
        if (answer === "refused") continue
        if (answer === "failed") {
          response.writeHead(502, { "content-type": "text/plain" }).end("backend failed")
          return
        }
        const headers = { ...answer.headers }
        delete headers["transfer-encoding"]
        delete headers.connection
        response.writeHead(answer.status, headers).end(answer.body)
        return
      }
      response.writeHead(503, { "content-type": "text/plain" }).end("no backend")
    }
    const server: Server = createServer((incoming, response) => void handle(incoming, response))
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}`,
        backends: rotation,
        inFlight,
        drained: async (backend) => {
          while ((inFlight.get(backend) ?? 0) > 0) await new Promise((done) => setTimeout(done, 20))
        },
        close: () => new Promise((done) => server.close(() => done())),
      })
    })
  })
