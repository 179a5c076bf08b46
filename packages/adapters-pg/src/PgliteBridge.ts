/**
 * A Node `Duplex` that lets the @effect/sql-pg client speak the PostgreSQL
 * wire protocol to an embedded PGlite instance, so the embedded database is
 * driven by exactly the same client, SQL and types as a real server.
 *
 * Hand-written on purpose: @effect/sql-pg accepts any `() => Duplex` as its
 * socket, and PGlite accepts raw protocol bytes (`execProtocolRawStream`), but
 * nothing in either package joins the two. The glue is kept minimal:
 *
 * - frontend bytes are buffered until whole messages are available (the
 *   client may write partial frames), then forwarded in order, one request at
 *   a time (PGlite has ONE backend session, requests must not overlap);
 * - PGlite's answer bytes are pushed back unchanged, collected through
 *   `execProtocolRawStream` (`answerOf`): PGlite's `execProtocolRaw` also
 *   parses every answer into message objects and keeps them in a list that
 *   only its `execProtocol` clears, so on the raw path that list grows with
 *   every row ever read (hundreds of MB of heap after a load) and costs a
 *   parse per answer that nobody reads;
 * - the untyped first packet is inspected: an SSLRequest / GSSENCRequest is
 *   answered with 'N' here (PGlite aborts the whole instance on them), a
 *   CancelRequest just closes (nothing to cancel in a single-threaded
 *   backend), a StartupMessage is forwarded (PGlite answers AuthenticationOk,
 *   ParameterStatus, BackendKeyData, ReadyForQuery itself);
 * - Terminate ('X') is not forwarded (it would end PGlite's only session):
 *   it ends this stream, after rolling back a transaction left open and
 *   dropping prepared statements, so a later connection starts clean.
 */

import { Duplex } from "node:stream"
import type { PGlite } from "@electric-sql/pglite"

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102

/** Serialises every request sent to one PGlite instance, across bridges. */
export interface PgliteSession {
  readonly db: PGlite
  /** Runs `task` after every previously queued one. */
  enqueue<A>(task: () => Promise<A>): Promise<A>
  /** Resolves when the queue is empty. */
  idle(): Promise<void>
}

export const makeSession = (db: PGlite): PgliteSession => {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    db,
    enqueue: (task) => {
      const next = tail.then(task, task)
      tail = next.catch(() => undefined)
      return next
    },
    idle: () => tail.then(() => undefined),
  }
}

/** A simple-protocol Query message. */
const queryMessage = (text: string): Uint8Array => {
  const body = Buffer.from(`${text}\0`, "utf8")
  const message = Buffer.alloc(5 + body.length)
  message[0] = 0x51
  message.writeInt32BE(4 + body.length, 1)
  body.copy(message, 5)
  return message
}

/**
 * PGlite's answer to `bytes`, unparsed: the chunks it writes (views of its WebAssembly memory,
 * valid only during the call) copied and joined.
 */
const answerOf = async (db: PGlite, bytes: Uint8Array): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  await db.execProtocolRawStream(bytes, {
    onRawData: (chunk) => {
      chunks.push(Buffer.from(chunk))
    },
  })
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

/** Opens one client connection to the PGlite session. */
export const connect = (session: PgliteSession): Duplex => {
  let pending: Buffer = Buffer.alloc(0)
  let started = false
  let closed = false
  /** Transaction status of the last ReadyForQuery seen: I (idle), T (in transaction), E (failed transaction). */
  let status = 0x49

  const trackStatus = (chunk: Uint8Array) => {
    // ReadyForQuery is 'Z' 00 00 00 05 <status>, always the last message of an answer.
    const n = chunk.length
    if (n >= 6 && chunk[n - 6] === 0x5a && chunk[n - 2] === 5 && chunk[n - 3] === 0) status = chunk[n - 1] ?? status
  }

  const cleanUp = () =>
    session.enqueue(async () => {
      const text = status === 0x49 ? "DEALLOCATE ALL" : "ROLLBACK; DEALLOCATE ALL"
      try {
        await answerOf(session.db, queryMessage(text))
      } catch {
        // the instance is closing: nothing left to clean
      }
    })

  const forward = (bytes: Uint8Array, duplex: Duplex) =>
    session.enqueue(async () => {
      const answer = await answerOf(session.db, bytes)
      trackStatus(answer)
      if (!closed && answer.length > 0) duplex.push(answer)
    })

  const duplex: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      const ready: Array<Buffer> = []
      let terminate = false
      while (true) {
        if (!started) {
          if (pending.length < 8) break
          const length = pending.readInt32BE(0)
          if (pending.length < length) break
          const code = pending.readInt32BE(4)
          const packet = pending.subarray(0, length)
          pending = pending.subarray(length)
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            duplex.push(Buffer.from("N"))
            continue
          }
          if (code === CANCEL_REQUEST) {
            terminate = true
            break
          }
          started = true
          ready.push(packet)
          continue
        }
        if (pending.length < 5) break
        const length = pending.readInt32BE(1)
        if (pending.length < 1 + length) break
        const message = pending.subarray(0, 1 + length)
        pending = pending.subarray(1 + length)
        if (message[0] === 0x58) {
          terminate = true
          break
        }
        ready.push(message)
      }
      const send = ready.length === 0 ? Promise.resolve() : forward(Buffer.concat(ready), duplex)
      send.then(
        () => {
          if (terminate) duplex.destroy()
        },
        (error: unknown) => duplex.destroy(error instanceof Error ? error : new Error(String(error))),
      )
      callback()
    },
    final(callback) {
      callback()
      duplex.destroy()
    },
    destroy(error, callback) {
      if (!closed) {
        closed = true
        if (started) void cleanUp()
        duplex.push(null)
      }
      callback(error)
    },
  })
  return duplex
}
