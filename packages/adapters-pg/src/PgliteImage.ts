/**
 * Pre-initialised PGlite data directories ("images"), so that a new embedded
 * database does not run initdb every time.
 *
 * A new cluster (an empty data directory, or an in-memory database) costs
 * PGlite an initdb in a second WebAssembly instance (seconds). Instead, the
 * first cluster this machine creates for a given PGlite version is dumped
 * right after initdb (`CHECKPOINT`, then `dumpDataDir("gzip")`, before any
 * migration or data: the image is a bare cluster) into a cache file, and every
 * later new cluster is loaded from it (`new PGlite(dir, { loadDataDir })`).
 * Migrations still run after opening, as for any database.
 *
 * Cache: `<cacheDir>/pglite-<version>-<recipe>.image`, by default under
 * `$XDG_CACHE_HOME/partnerpay` (else `~/.cache/partnerpay`), shared by every
 * checkout of the machine and keyed by the installed PGlite version, so an
 * upgrade makes a new image. File format: one header line
 * `partnerpay-pglite-image/1 <sha256 of the rest>` then the gzip tar. Written
 * to a temporary file then renamed (atomic), so two processes creating it at
 * once leave one whole image. A file that fails its checksum is removed and
 * treated as missing; an image that PGlite cannot load is removed and the
 * cluster is created by initdb instead (see `PgDatabase.openPglite`).
 */
import { createHash, randomBytes } from "node:crypto"
import { accessSync, constants, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import type { PGlite } from "@electric-sql/pglite"

/** The installed @electric-sql/pglite version (`undefined` when unreadable: no caching then). */
export const pgliteVersion: string | undefined = (() => {
  try {
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
    const version: unknown = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")).version
    return typeof version === "string" && /^[0-9A-Za-z.+-]+$/.test(version) ? version : undefined
  } catch {
    return undefined
  }
})()

/** Changes whenever the way images are made changes (invalidates cached images). */
const recipe = "r1"
const magic = "partnerpay-pglite-image/1"

/** `$XDG_CACHE_HOME/partnerpay`, else `~/.cache/partnerpay`. */
export const defaultCacheDir = (): string => {
  const xdg = process.env.XDG_CACHE_HOME
  return join(xdg?.startsWith("/") ? xdg : join(homedir(), ".cache"), "partnerpay")
}

/** The image file for the installed PGlite version in `cacheDir` (`undefined`: version unknown, no cache). */
export const imagePath = (cacheDir: string): string | undefined =>
  pgliteVersion === undefined ? undefined : join(cacheDir, `pglite-${pgliteVersion}-${recipe}.image`)

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/** Header + gzip tar. */
export const encode = (tarGz: Uint8Array): Uint8Array =>
  Buffer.concat([Buffer.from(`${magic} ${sha256(tarGz)}\n`, "ascii"), tarGz])

/** The gzip tar inside `file`, or `undefined` when the header or the checksum is wrong. */
export const decode = (file: Uint8Array): Uint8Array | undefined => {
  const newline = file.indexOf(0x0a)
  if (newline <= 0 || newline > 200) return undefined
  const [name, checksum] = Buffer.from(file.subarray(0, newline)).toString("ascii").split(" ")
  const tarGz = file.subarray(newline + 1)
  return name === magic && checksum === sha256(tarGz) && tarGz.length > 0 ? tarGz : undefined
}

/** The cached image at `path` (gzip tar), or `undefined` if missing or corrupt (a corrupt file is removed). */
export const read = (path: string): Uint8Array | undefined => {
  let file: Uint8Array
  try {
    file = readFileSync(path)
  } catch {
    return undefined
  }
  const tarGz = decode(file)
  if (tarGz === undefined) discard(path)
  return tarGz
}

/** Removes a cached image (missing is fine). */
export const discard = (path: string): void => {
  try {
    rmSync(path, { force: true })
  } catch {
    // a read-only cache: nothing to do
  }
}

/** Whether images can be written to `path`'s directory (created if needed). */
export const writable = (path: string): boolean => {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    accessSync(dirname(path), constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** Writes the image atomically (temporary file in the same directory, then rename); false if it could not. */
export const write = (path: string, tarGz: Uint8Array): boolean => {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    writeFileSync(temporary, encode(tarGz), { mode: 0o600 })
    renameSync(temporary, path)
    return true
  } catch {
    discard(temporary)
    return false
  }
}

/** Dumps a freshly initialised, still empty cluster as an image (gzip tar). */
export const dump = async (db: PGlite): Promise<Uint8Array> => {
  await db.exec("CHECKPOINT")
  const blob = await db.dumpDataDir("gzip")
  return new Uint8Array(await blob.arrayBuffer())
}
