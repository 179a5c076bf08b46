/**
 * Pre-initialised PGlite data directories ("images"), so that a new embedded
 * database does not run initdb every time.
 *
 * A new cluster (an empty data directory, or an in-memory database) costs
 * PGlite an initdb in a second WebAssembly instance (seconds). Instead, the
 * first cluster this machine creates for a given PGlite version is dumped
 * right after initdb (`CHECKPOINT`, then `dumpDataDir("gzip")`, before any
 * migration or data: the image is a bare cluster) into a cache file, and every
 * later new cluster is made from it: written into the empty data directory by
 * `extract` (in memory: `new PGlite({ loadDataDir })`), then opened as an
 * existing cluster.
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
import { writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { gunzip } from "node:zlib"
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
const recipe = "r2"
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

const gunzipAsync = promisify(gunzip)

/** Files written at once by `extract` (creating ~1000 small files dominates; the libuv pool overlaps them). */
const writeConcurrency = 32

/**
 * Writes the cluster of an image (gzip tar) into the empty directory `dataDir`: directories first
 * (0700), then the files (0600) concurrently. Only plain files and directories inside `dataDir`
 * are accepted; anything else fails (the caller then makes the cluster by initdb).
 * PGlite's own `loadDataDir` writes the same files one by one through its synchronous
 * WebAssembly file system, which takes about twice as long on a disk where creating a file is slow.
 */
export const extract = async (tarGz: Uint8Array, dataDir: string): Promise<void> => {
  const tar = await gunzipAsync(tarGz)
  const directories = new Set<string>()
  const files: Array<{ readonly path: string; readonly data: Uint8Array }> = []
  const text = (header: Uint8Array, start: number, end: number) => {
    const raw = header.subarray(start, end)
    const nul = raw.indexOf(0)
    return Buffer.from(nul === -1 ? raw : raw.subarray(0, nul)).toString("utf8")
  }
  let offset = 0
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512)
    if (header.every((byte) => byte === 0)) break
    const prefix = text(header, 345, 500)
    const name = prefix === "" ? text(header, 0, 100) : `${prefix}/${text(header, 0, 100)}`
    const size = Number.parseInt(text(header, 124, 136).trim() || "0", 8)
    if (!Number.isSafeInteger(size) || size < 0 || offset + 512 + size > tar.length) {
      throw new Error(`image: bad size for ${name}`)
    }
    const parts = name.split("/").filter((part) => part !== "" && part !== ".")
    if (parts.includes("..")) throw new Error(`image: entry outside the data directory: ${name}`)
    const path = join(dataDir, ...parts)
    const type = header[156]
    if (type === 0x35) {
      directories.add(path)
    } else if (type === 0x30 || type === 0) {
      if (parts.length === 0) throw new Error("image: file without a name")
      directories.add(dirname(path))
      files.push({ path, data: tar.subarray(offset + 512, offset + 512 + size) })
    } else {
      throw new Error(`image: unexpected entry type ${type} for ${name}`)
    }
    offset += 512 + Math.ceil(size / 512) * 512
  }
  if (!files.some((file) => file.path === join(dataDir, "PG_VERSION"))) throw new Error("image: no PG_VERSION")
  for (const directory of [...directories].sort()) mkdirSync(directory, { recursive: true, mode: 0o700 })
  let next = 0
  await Promise.all(
    Array.from({ length: writeConcurrency }, async () => {
      for (let file = files[next++]; file !== undefined; file = files[next++]) {
        await writeFile(file.path, file.data, { mode: 0o600, flag: "wx" })
      }
    }),
  )
}
