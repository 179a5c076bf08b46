/**
 * Progress of a long operator command (a projection rebuild, migrations),
 * written to stderr so that stdout keeps the command's one result:
 *
 * - on a terminal, one line rewritten in place: done / total, percent,
 *   items per second and the estimated time left;
 * - with `--json`, one JSON object per line (`{"progress":{...}}`) for
 *   scripts and log collectors;
 * - otherwise (a pipe, a CI log), a plain line at most every few seconds.
 *
 * Updates are throttled (`intervalMillis`), the first and the last are always
 * written. The clock is an input, so the arithmetic is tested without time.
 */

/** One reading of a long operation's progress. */
export interface Reading {
  readonly done: number
  readonly total: number
  readonly elapsedMillis: number
  /** Items per second since the start (0 before any time has passed). */
  readonly perSecond: number
  /** Seconds left at the current rate; undefined while the rate is unknown. */
  readonly etaSeconds: number | undefined
}

export const reading = (done: number, total: number, elapsedMillis: number): Reading => {
  const perSecond = elapsedMillis > 0 ? (done * 1000) / elapsedMillis : 0
  const left = Math.max(0, total - done)
  return {
    done,
    total,
    elapsedMillis,
    perSecond,
    etaSeconds: left === 0 ? 0 : perSecond > 0 ? left / perSecond : undefined,
  }
}

const duration = (seconds: number): string => {
  if (seconds < 60) return `${Math.ceil(seconds)} s`
  const minutes = Math.floor(seconds / 60)
  return minutes < 60
    ? `${minutes} min ${Math.ceil(seconds % 60)} s`
    : `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}

const count = (n: number) => Math.round(n).toLocaleString("en-US")

/** `label: 1,500 / 6,000 events (25%), 3,000 events/s, ETA 2 s`. */
export const describe = (label: string, unit: string, r: Reading): string => {
  const percent = r.total === 0 ? 100 : Math.floor((r.done * 100) / r.total)
  const eta = r.etaSeconds === undefined ? "ETA unknown" : `ETA ${duration(r.etaSeconds)}`
  return `${label}: ${count(r.done)} / ${count(r.total)} ${unit} (${percent}%), ${count(r.perSecond)} ${unit}/s, ${eta}`
}

/** The JSON line of a reading (`--json`). */
export const toJson = (label: string, r: Reading): string =>
  JSON.stringify({
    progress: {
      operation: label,
      done: r.done,
      total: r.total,
      elapsedMs: Math.round(r.elapsedMillis),
      perSecond: Math.round(r.perSecond),
      etaSeconds: r.etaSeconds === undefined ? null : Math.ceil(r.etaSeconds),
    },
  })

export interface ReporterOptions {
  readonly label: string
  readonly unit: string
  readonly json: boolean
  /** A terminal: rewrite one line in place. */
  readonly isTerminal: boolean
  readonly write: (text: string) => void
  readonly now: () => number
  /** Least time between two written updates (the first and last are always written). */
  readonly intervalMillis: number
}

export interface Reporter {
  readonly update: (done: number, total: number) => void
  readonly finish: (done: number, total: number) => void
}

export const reporter = (options: ReporterOptions): Reporter => {
  const started = options.now()
  let lastWritten: number | undefined
  const write = (done: number, total: number, last: boolean) => {
    const r = reading(done, total, options.now() - started)
    if (options.json) options.write(`${toJson(options.label, r)}\n`)
    else if (options.isTerminal)
      options.write(`\r\x1b[2K${describe(options.label, options.unit, r)}${last ? "\n" : ""}`)
    else options.write(`${describe(options.label, options.unit, r)}\n`)
  }
  return {
    update: (done, total) => {
      const now = options.now()
      if (lastWritten !== undefined && now - lastWritten < options.intervalMillis) return
      lastWritten = now
      write(done, total, false)
    },
    finish: (done, total) => write(done, total, true),
  }
}

/** A reporter on this process's stderr: a rewritten line on a terminal, else a line every 5 s (JSON with `json`). */
export const onStderr = (label: string, unit: string, json: boolean): Reporter => {
  const isTerminal = process.stderr.isTTY === true && !json
  return reporter({
    label,
    unit,
    json,
    isTerminal,
    write: (text) => process.stderr.write(text),
    now: () => performance.now(),
    intervalMillis: isTerminal ? 200 : json ? 1000 : 5000,
  })
}
