/**
 * The benchmark's ratios as a chart: one horizontal bar per scenario (database, scenario,
 * connections, ceiling; then the event store against plain INSERTs), measured against the 1.0
 * line where the service would equal its hand-written ceiling. A bar with an issue target is
 * green when it meets it and red when it does not, with the target marked on it; the others
 * (for information) are grey-blue. Hand-written SVG, no dependencies.
 *
 * `pnpm bench` writes it with its report (bench/results/latest.svg); `node bench/chart.ts [in.json]
 * [out.svg]` draws it again from a results file (default bench/results/latest.json ->
 * bench/results/latest.svg).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The fields of a `latest.json` row the chart reads. */
export interface ChartRow {
  readonly database: string
  readonly scenario: string
  readonly connections: number
  readonly ceilingName: string
  readonly ratio: number
  readonly target?: number | undefined
  readonly targetApplies?: boolean | undefined
}

/** The fields of a `latest.json` event store line the chart reads. */
export interface ChartEventStoreLine {
  readonly scenario: string
  readonly ratio: number
}

export interface ChartInput {
  readonly at: string
  readonly node: string
  readonly quick: boolean
  readonly rounds: number
  readonly rows: ReadonlyArray<ChartRow>
  readonly eventStore: ReadonlyArray<ChartEventStoreLine>
}

/** The event store's issue target: 32 writers of single events at >= 0.8x plain INSERTs. */
const eventStoreTarget = { scenario: "32 writers, single events", ratio: 0.8 }

interface Bar {
  readonly label: string
  readonly ratio: number
  readonly target: number | undefined
}

interface Group {
  readonly title: string
  readonly bars: ReadonlyArray<Bar>
}

const xml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")

const groupsOf = (input: ChartInput): ReadonlyArray<Group> => {
  const databases = [...new Set(input.rows.map((row) => row.database))]
  const groups: Array<Group> = databases.map((database) => ({
    title: `${database}: the service ÷ its ceiling`,
    bars: input.rows
      .filter((row) => row.database === database)
      .map((row) => ({
        label: `${row.scenario} ×${row.connections} vs ${row.ceilingName.replace(/ \(.*\)$/, "")}`,
        ratio: row.ratio,
        target: row.targetApplies === true ? row.target : undefined,
      })),
  }))
  if (input.eventStore.length > 0) {
    groups.push({
      title: "Event store appends ÷ plain INSERT transactions (PostgreSQL)",
      bars: input.eventStore.map((line) => ({
        label: line.scenario,
        ratio: line.ratio,
        target: line.scenario === eventStoreTarget.scenario ? eventStoreTarget.ratio : undefined,
      })),
    })
  }
  return groups
}

const colour = (bar: Bar) => (bar.target === undefined ? "#7a93b8" : bar.ratio >= bar.target ? "#2e9d57" : "#d2493b")

/** The chart as an SVG document. */
export const chart = (input: ChartInput): string => {
  const groups = groupsOf(input)
  const labelWidth = 330
  const plotWidth = 480
  const rowHeight = 20
  const groupGap = 34
  const left = 16
  const plotLeft = left + labelWidth
  const top = 64
  const maxRatio = Math.max(1.25, ...groups.flatMap((g) => g.bars.map((b) => (Number.isFinite(b.ratio) ? b.ratio : 0))))
  const scaleMax = Math.ceil(maxRatio * 4) / 4
  const x = (ratio: number) => plotLeft + (Math.max(0, ratio) / scaleMax) * plotWidth
  const parts: Array<string> = []
  let y = top
  for (const group of groups) {
    y += groupGap - 12
    parts.push(`<text x="${left}" y="${y}" class="group">${xml(group.title)}</text>`)
    y += 8
    for (const bar of group.bars) {
      const middle = y + rowHeight / 2
      const finite = Number.isFinite(bar.ratio)
      parts.push(
        `<text x="${plotLeft - 8}" y="${middle + 4}" class="label" text-anchor="end">${xml(bar.label)}</text>`,
        finite
          ? `<rect x="${plotLeft}" y="${y + 3}" width="${(x(bar.ratio) - plotLeft).toFixed(1)}" height="${rowHeight - 6}" fill="${colour(bar)}"><title>${xml(`${bar.label}: ${bar.ratio.toFixed(2)}x`)}</title></rect>`
          : "",
        `<text x="${Math.max(finite ? x(bar.ratio) : plotLeft, bar.target === undefined ? 0 : x(bar.target) + 1) + 4}" y="${middle + 4}" class="value">${finite ? `${bar.ratio.toFixed(2)}x` : "not measured"}</text>`,
      )
      if (bar.target !== undefined) {
        const tx = x(bar.target).toFixed(1)
        parts.push(
          `<line x1="${tx}" x2="${tx}" y1="${y + 1}" y2="${y + rowHeight - 1}" class="target"><title>target ${bar.target}x</title></line>`,
        )
      }
      y += rowHeight
    }
  }
  const bottom = y + 8
  const ticks: Array<string> = []
  for (let tick = 0; tick <= scaleMax + 1e-9; tick += 0.25) {
    const tx = x(tick).toFixed(1)
    ticks.push(
      `<line x1="${tx}" x2="${tx}" y1="${top}" y2="${bottom}" class="grid"/>`,
      `<text x="${tx}" y="${bottom + 14}" class="tick" text-anchor="middle">${tick.toFixed(2)}</text>`,
    )
  }
  const ceiling = x(1).toFixed(1)
  const width = plotLeft + plotWidth + 70
  const height = bottom + 54
  const subtitle = `${input.at.slice(0, 10)}, Node ${input.node}, ${input.quick ? "quick run" : `median of ${input.rounds} rounds`}. Higher is better; 1.0 = as fast as the hand-written ceiling.`
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">
<style>
.title { font-size: 16px; font-weight: 600; fill: #1f2328 }
.subtitle { font-size: 12px; fill: #59636e }
.group { font-size: 13px; font-weight: 600; fill: #1f2328 }
.label, .value, .tick, .legend { font-size: 11px; fill: #1f2328 }
.tick { fill: #59636e }
.grid { stroke: #d8dee4; stroke-width: 1 }
.ceiling { stroke: #1f2328; stroke-width: 1.5; stroke-dasharray: 5 3 }
.target { stroke: #1f2328; stroke-width: 2 }
</style>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="${left}" y="24" class="title">partnerpay benchmark: throughput ratios (bench/results/latest.json)</text>
<text x="${left}" y="44" class="subtitle">${xml(subtitle)}</text>
${ticks.join("\n")}
<line x1="${ceiling}" x2="${ceiling}" y1="${top - 6}" y2="${bottom}" class="ceiling"/>
<text x="${ceiling}" y="${top - 10}" class="tick" text-anchor="middle">ceiling 1.0</text>
${parts.filter((part) => part !== "").join("\n")}
<g transform="translate(${left} ${bottom + 34})">
<rect width="12" height="12" fill="#2e9d57"/><text x="18" y="10" class="legend">meets its target</text>
<rect x="140" width="12" height="12" fill="#d2493b"/><text x="158" y="10" class="legend">misses its target</text>
<line x1="290" x2="290" y1="-1" y2="13" class="target"/><text x="298" y="10" class="legend">target</text>
<rect x="360" width="12" height="12" fill="#7a93b8"/><text x="378" y="10" class="legend">no target (for information)</text>
</g>
</svg>
`
}

// Run as a script (not imported by bench/run.ts).
if (resolve(process.argv[1] ?? "") === fileURLToPath(import.meta.url)) {
  const results = join(import.meta.dirname, "results")
  const input = process.argv[2] ?? join(results, "latest.json")
  const output = process.argv[3] ?? join(results, "latest.svg")
  writeFileSync(output, chart(JSON.parse(readFileSync(input, "utf8")) as ChartInput))
  console.log(`wrote ${output}`)
}
