/**
 * `.env.example`, made from the configuration reference (`Settings.all`: every variable the service reads,
 * its default and its documentation), so the two cannot drift: `./pnpm env:example` writes it, and
 * `EnvExample.test.ts` fails while the committed file differs from what this renders.
 */
import * as Settings from "./Settings.ts"

/** Markdown emphasis and code marks removed: the file is read as plain text. */
const plain = (text: string): string => text.replace(/`/g, "").replace(/\*\*/g, "")

/** The lines of one paragraph as comments, wrapped at about 100 characters. */
const comment = (text: string): Array<string> => {
  const lines: Array<string> = []
  let line = "#"
  for (const word of plain(text)
    .split(/\s+/)
    .filter((w) => w !== "")) {
    if (line.length + word.length + 1 > 100 && line !== "#") {
      lines.push(line)
      line = "#"
    }
    line += ` ${word}`
  }
  if (line !== "#") lines.push(line)
  return lines
}

/** The example environment file: one commented entry per variable, in the reference's order. */
export const render = (): string => {
  const out: Array<string> = [
    "# partnerpay's configuration: every environment variable the service and its CLI read.",
    "# Generated from the configuration reference (packages/app/src/config/Settings.ts, the table in",
    "# packages/app/README.md) by `./pnpm env:example`; a test keeps it in step. Copy it to .env (or your",
    "# service manager's environment file), uncomment what you set. A blank value counts as unset.",
    "# Production needs at least: PARTNERPAY_ENV=production, DATABASE_URL, PARTNERPAY_TOKEN_SECRET,",
    "# PARTNERPAY_DATA_KEY and the providers' bridges (docs/operations.md).",
  ]
  for (const setting of Settings.all) {
    out.push("", ...comment(setting.doc), ...comment(`Default: ${setting.documentedDefault}`))
    out.push(`#${setting.name}=`)
  }
  return `${out.join("\n")}\n`
}
