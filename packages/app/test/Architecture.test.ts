/**
 * The architecture, checked: dependencies point inward. The domain imports
 * nothing but `effect`; each adapter imports the domain (and the shared
 * secret hashing) but never the other adapter or the app. Inside the domain, the kernel imports no business area
 * and an area imports another only through its public module (`index.ts`).
 * Reads every source file's import specifiers.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Http from "../src/http/Http.ts"

const root = join(import.meta.dirname, "..", "..", "..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  )

/** Every import and re-export specifier of a source file, dynamic `import("...")` ones included. */
const specifiersOf = (file: string): Array<string> => {
  const code = readFileSync(file, "utf8")
  return [
    ...code.matchAll(/^\s*(?:import|export)[^"'`]*?from\s+["']([^"']+)["']/gm),
    ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => match[1]!)
}

/** Package-level import specifiers of a package's src/ (relative imports excluded). */
const importsOf = (pkg: string): Map<string, Array<string>> => {
  const found = new Map<string, Array<string>>()
  for (const file of sourceFiles(join(root, "packages", pkg, "src"))) {
    for (const specifier of specifiersOf(file)) {
      if (specifier.startsWith(".")) continue
      const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!
      found.set(name, [...(found.get(name) ?? []), relative(root, file)])
    }
  }
  return found
}

describe("dependencies point inward", () => {
  it("the domain imports nothing but effect", () => {
    expect([...importsOf("domain").keys()].sort()).toEqual(["effect"])
  })

  it("the secret-hashing package imports nothing but effect and Node's crypto", () => {
    expect([...importsOf("secrets").keys()].sort()).toEqual(["effect", "node:crypto"])
  })

  it("the PostgreSQL adapter depends on the domain, never on the HTTP adapter or the app", () => {
    const names = [...importsOf("adapters-pg").keys()]
    expect(names).toContain("@partnerpay/domain")
    expect(names).not.toContain("@partnerpay/adapters-http")
    expect(names).not.toContain("@partnerpay/app")
  })

  it("the HTTP adapter depends on the domain, never on the PostgreSQL adapter or the app", () => {
    const names = [...importsOf("adapters-http").keys()]
    expect(names).toContain("@partnerpay/domain")
    expect(names).not.toContain("@partnerpay/adapters-pg")
    expect(names).not.toContain("@partnerpay/app")
  })
})

describe("unused optional dependencies stay out", () => {
  it("no module imports @effect/platform-node's index (it loads the Redis module, whose redis is not installed)", () => {
    const barrel = ["adapters-http", "adapters-pg", "app"].flatMap((pkg) =>
      sourceFiles(join(root, "packages", pkg, "src")).filter((file) =>
        specifiersOf(file).includes("@effect/platform-node"),
      ),
    )
    expect(barrel).toEqual([])
  })

  it("redis is not installed", () => {
    expect(readFileSync(join(root, "pnpm-lock.yaml"), "utf8")).not.toMatch(/^ {2}redis@/m)
  })
})

const domainSource = join(root, "packages", "domain", "src")
const areas = ["cards-and-charity", "companies", "customers", "notifications", "payments", "payouts", "plans"]

/** A domain source path as `folder/File.ts` relative to domain/src (root-level modules have no folder). */
const domainPath = (file: string) => relative(domainSource, file).split(sep).join("/")
const folderOf = (path: string) => (path.includes("/") ? path.split("/")[0]! : "")

/** Every relative import inside the domain's src/, as [importer, imported], both relative to src/. */
const domainImports = (): Array<readonly [string, string]> =>
  sourceFiles(domainSource).flatMap((file) =>
    specifiersOf(file)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => [domainPath(file), domainPath(resolve(dirname(file), specifier))] as const),
  )

describe("the domain is grouped by business area", () => {
  it("the area folders are the ones this test knows", () => {
    const folders = readdirSync(domainSource, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
    expect(folders).toEqual([...areas, "composition", "infrastructure", "kernel", "testing"].sort())
  })

  it("every area has a public module", () => {
    for (const area of areas)
      expect(sourceFiles(join(domainSource, area))).toContain(join(domainSource, area, "index.ts"))
  })

  it("the kernel imports nothing outside the kernel", () => {
    const outside = domainImports().filter(([from, to]) => folderOf(from) === "kernel" && folderOf(to) !== "kernel")
    expect(outside).toEqual([])
  })

  it("an area imports another area only through that area's public module", () => {
    const deep = domainImports().filter(([from, to]) => {
      const [source, target] = [folderOf(from), folderOf(to)]
      return areas.includes(source) && areas.includes(target) && source !== target && to !== `${target}/index.ts`
    })
    expect(deep).toEqual([])
  })
})

/**
 * The layers inside the domain, innermost first: each may import its own and the layers before it.
 * The composition root (`composition/`: the registries and the event pipeline) composes the areas;
 * the test kit (`testing/`) may use everything; the package's entry (`index.ts`) exports it all.
 */
const layerOf = (path: string): number => {
  const folder = folderOf(path)
  if (folder === "kernel") return 0
  if (folder === "infrastructure") return 1
  if (areas.includes(folder)) return 2
  if (folder === "composition") return 3
  if (folder === "testing") return 4
  return 5
}

/**
 * The order among the areas (docs/architecture.md): an area may import an area of an earlier rank
 * (through its index), never one of its own rank or a later one.
 */
const areaRank: Readonly<Record<string, number>> = {
  companies: 0,
  customers: 0,
  payments: 1,
  plans: 2,
  notifications: 2,
  "cards-and-charity": 3,
  payouts: 4,
}

/** The import cycles among `edges` (each strongly connected component of two or more files, or a self-import). */
const cyclesOf = (edges: ReadonlyArray<readonly [string, string]>): Array<Array<string>> => {
  const next = new Map<string, Array<string>>()
  for (const [from, to] of edges) next.set(from, [...(next.get(from) ?? []), to])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const cycles: Array<Array<string>> = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (next.get(node) ?? []).includes(node)) cycles.push(component.sort())
    }
  }
  for (const node of next.keys()) if (!index.has(node)) visit(node)
  return cycles
}

describe("the domain's layers: kernel <- infrastructure <- areas <- composition", () => {
  it("the top of the domain's src holds at most 3 modules besides index.ts", () => {
    const loose = readdirSync(domainSource).filter((name) => name.endsWith(".ts") && name !== "index.ts")
    expect(loose.length).toBeLessThanOrEqual(3)
  })

  it("infrastructure imports only the kernel (and itself): it is generic over the areas' events", () => {
    const outward = domainImports().filter(
      ([from, to]) => folderOf(from) === "infrastructure" && !["kernel", "infrastructure"].includes(folderOf(to)),
    )
    expect(outward).toEqual([])
  })

  it("areas never import the root registries (composition/) or another area past its index", () => {
    const crossing = domainImports().filter(
      ([from, to]) =>
        layerOf(from) === 2 &&
        (layerOf(to) > 2 ||
          (areas.includes(folderOf(to)) && folderOf(to) !== folderOf(from) && to !== `${folderOf(to)}/index.ts`)),
    )
    expect(crossing).toEqual([])
  })

  it("an area imports only areas of an earlier rank: companies, customers < payments < plans, notifications < cards-and-charity < payouts", () => {
    const backward = domainImports().filter(([from, to]) => {
      const [source, target] = [folderOf(from), folderOf(to)]
      return (
        areas.includes(source) && areas.includes(target) && source !== target && areaRank[target]! >= areaRank[source]!
      )
    })
    expect(backward).toEqual([])
  })

  it("every area has a rank", () => {
    expect(Object.keys(areaRank).sort()).toEqual([...areas].sort())
  })

  it("no layer imports a layer after it (only the package entry and the test kit see everything)", () => {
    const upward = domainImports().filter(([from, to]) => layerOf(from) < layerOf(to))
    expect(upward).toEqual([])
  })

  it("no import cycle among the domain's modules (type-only imports included)", () => {
    expect(cyclesOf(domainImports())).toEqual([])
  })

  it("the cycle check finds a cycle", () => {
    expect(
      cyclesOf([
        ["a.ts", "b.ts"],
        ["b.ts", "c.ts"],
        ["c.ts", "a.ts"],
        ["c.ts", "d.ts"],
      ]),
    ).toEqual([["a.ts", "b.ts", "c.ts"]])
  })
})

const packages = readdirSync(join(root, "packages"))

/** Every relative import of a package's src/ (type-only ones included), as [importer, imported] relative to src/. */
const packageImports = (pkg: string): Array<readonly [string, string]> => {
  const source = join(root, "packages", pkg, "src")
  const path = (file: string) => relative(source, file).split(sep).join("/")
  return sourceFiles(source).flatMap((file) =>
    specifiersOf(file)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => [path(file), path(resolve(dirname(file), specifier))] as const),
  )
}

describe("no package has an import cycle", () => {
  it("finds every package", () => {
    expect(packages).toEqual(
      expect.arrayContaining(["adapters-http", "adapters-pg", "app", "client", "domain", "secrets"]),
    )
  })

  it.each(packages)("no import cycle among the modules of %s's src (type-only and dynamic imports included)", (pkg) => {
    expect(cyclesOf(packageImports(pkg))).toEqual([])
  })
})

/**
 * The packages written in Effect's style. `@partnerpay/client` is for users without Effect: its
 * entry exports plain functions and types (`createPartnerpayClient`, `verifyWebhook`), as
 * openapi-fetch-style clients do, rather than module namespaces.
 */
const effectPackages = packages.filter((pkg) => pkg !== "client")

describe("index files re-export modules, each as one namespace", () => {
  const indexFiles = effectPackages.flatMap((pkg) =>
    sourceFiles(join(root, "packages", pkg, "src")).filter((file) => file.endsWith(`${sep}index.ts`)),
  )

  it("finds the index files of every package and of the domain's areas", () => {
    expect(indexFiles.length).toBeGreaterThanOrEqual(effectPackages.length + areas.length)
  })

  it.each(indexFiles.map((file) => relative(root, file)))('%s has only `export * as X from "./..."` lines', (file) => {
    const code = readFileSync(join(root, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("//"))
    expect(code.length).toBeGreaterThan(0)
    expect(code.filter((line) => !/^export \* as [A-Za-z]\w* from "\.\/[\w./-]+\.ts"$/.test(line))).toEqual([])
  })

  it("code imports a package's modules through the entry points its manifest names, not the `./*` subpaths (those exist for declaration files)", () => {
    const entries = new Set(
      packages.flatMap((pkg) => {
        const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8")) as {
          readonly name: string
          readonly exports: Record<string, string>
        }
        return Object.keys(manifest.exports)
          .filter((entry) => !entry.includes("*"))
          .map((entry) => (entry === "." ? manifest.name : `${manifest.name}/${entry.slice(2)}`))
      }),
    )
    const dirs = [
      ...packages.flatMap((pkg) => ["src", "test", "bench"].map((dir) => join(root, "packages", pkg, dir))),
      join(root, "bench"),
      join(root, "faults"),
      join(root, "examples", "embed", "src"),
    ]
    const deep = dirs
      .flatMap((dir) => {
        try {
          return sourceFiles(dir)
        } catch {
          return []
        }
      })
      .flatMap((file) =>
        specifiersOf(file)
          .filter((specifier) => specifier.startsWith("@partnerpay/") && !entries.has(specifier))
          .map((specifier) => `${relative(root, file)}: ${specifier}`),
      )
    expect(deep).toEqual([])
  })
})

describe("named effectful functions are written one way", () => {
  it("with `Traced.fn(name)` (a span when tracing is on, no span cost when off), not `Effect.fn(name)`, wherever the domain can be imported", () => {
    const offenders = packages
      .filter((pkg) => pkg !== "secrets")
      .flatMap((pkg) => sourceFiles(join(root, "packages", pkg, "src")))
      .filter((file) => !file.endsWith(`${sep}Traced.ts`))
      .filter((file) => /Effect\.fn\(\s*["'`]/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file))
    expect(offenders).toEqual([])
  })

  it("with `Traced.withSpan(name)` for a span around an effect, not `Effect.withSpan`, wherever the domain can be imported", () => {
    const offenders = packages
      .filter((pkg) => pkg !== "secrets")
      .flatMap((pkg) => sourceFiles(join(root, "packages", pkg, "src")))
      .filter((file) => !file.endsWith(`${sep}Traced.ts`))
      .filter((file) => /Effect\.withSpan\(/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file))
    expect(offenders).toEqual([])
  })
})

describe("deciders follow one template", () => {
  /** The decider modules of the domain (those declaring an `aggregate`) with several commands. */
  const deciders = () =>
    sourceFiles(domainSource)
      .map((file) => ({ file, code: readFileSync(file, "utf8") }))
      .filter(({ code }) => /^export const aggregate\b/m.test(code))
      .filter(({ code }) => /^export type Command =[^=]*?\|/ms.test(code.slice(code.search(/^export type Command =/m))))

  it("finds the deciders with several commands", () => {
    expect(deciders().map(({ file }) => domainPath(file))).toEqual(
      expect.arrayContaining(["customers/Customer.ts", "customers/LoginChallenge.ts", "payments/DebitAuth.ts"]),
    )
  })

  /**
   * Whether code dispatches on a command's or event's tag by hand: a switch, or an if-chain (two tests of
   * the same tag). One test is the template's creation step (`if (command._tag === "CreateX") return create(...)`,
   * the record then dispatching the commands on an existing aggregate).
   */
  const dispatchesByHand = (code: string) =>
    /switch \((?:command|event)\._tag\)/.test(code) ||
    (["command", "event"] as const).some((name) => code.split(`if (${name}._tag `).length > 2)

  it("the hand-dispatch check finds a switch and an if-chain on a tag, not a creation step or a switch on the state", () => {
    expect(dispatchesByHand("switch (event._tag) {")).toBe(true)
    expect(dispatchesByHand('if (command._tag === "A") return a()\nif (command._tag === "B") return b()')).toBe(true)
    expect(dispatchesByHand('if (command._tag === "CreateX") return create(command)')).toBe(false)
    expect(dispatchesByHand("switch (state._tag) {")).toBe(false)
  })

  /** The modules holding a decider's decide or evolve: those declaring an aggregate, and their siblings exporting `decide`/`evolve` (e.g. `TransferState.ts`). */
  const deciderModules = () =>
    sourceFiles(domainSource)
      .map((file) => ({ file, code: readFileSync(file, "utf8") }))
      .filter(({ code }) => /^export const (aggregate|decide|evolve)\b/m.test(code))

  it("in every layer and area, decide dispatches by a record of one function per command (byCommand), evolve by one per event (byEvent): no switch or if-chain on a command's or event's tag", () => {
    const all = deciderModules()
    expect(all.map(({ file }) => domainPath(file))).toEqual(
      expect.arrayContaining(["payments/TransferState.ts", "infrastructure/NaturalKey.ts", "payouts/Payout.ts"]),
    )
    const switching = all.flatMap(({ file, code }) => (dispatchesByHand(code) ? [domainPath(file)] : []))
    expect(switching).toEqual([])
    const multi = deciders()
    expect(multi.length).toBeGreaterThanOrEqual(5)
    const unrecorded = multi.flatMap(({ file, code }) => (/\bbyCommand</.test(code) ? [] : [domainPath(file)]))
    expect(unrecorded).toEqual([])
  })
})

describe("use cases and effectful functions are written one way", () => {
  const srcFiles = () => packages.flatMap((pkg) => sourceFiles(join(root, "packages", pkg, "src")))

  it("no arrow function returns Effect.gen in any package's src (Traced.fn / UseCase.fn name it instead)", () => {
    const offenders = srcFiles()
      .filter((file) => /=>\s*\(?\s*Effect\.gen\(/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file))
    expect(offenders).toEqual([])
  })

  it("the areas open a unit of work only through UseCase.fn (no UnitOfWork, transactional or unitOfWork of their own)", () => {
    const offenders = areas
      .flatMap((area) => sourceFiles(join(domainSource, area)))
      .filter((file) =>
        /\b(UnitOfWork|transactional|unitOfWork)\b/.test(
          readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ""),
        ),
      )
      .map((file) => relative(root, file))
    expect(offenders).toEqual([])
  })

  it("the areas never apply policies themselves: the command handler does, after every decision", () => {
    const offenders = areas
      .flatMap((area) => sourceFiles(join(domainSource, area)))
      .filter((file) =>
        /\b(Policies|reactions)\b/.test(readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")),
      )
      .map((file) => relative(root, file))
    expect(offenders).toEqual([])
  })
})

describe("one name per concept", () => {
  /** Every TypeScript file of the workspace's code: each package's src, test and bench, the benchmarks, the fault suite, the embedding example. */
  const everyFile = () =>
    [
      ...packages.flatMap((pkg) => ["src", "test", "bench"].map((dir) => join(root, "packages", pkg, dir))),
      join(root, "bench"),
      join(root, "faults"),
      join(root, "examples", "embed", "src"),
    ].flatMap((dir) => {
      try {
        return sourceFiles(dir)
      } catch {
        return []
      }
    })

  /** `import * as X from "./Y.ts"` / `export * as X from "./Y.ts"` whose alias X is not the file's name Y. */
  const misnamed = (code: string): Array<string> =>
    [...code.matchAll(/^\s*(?:import|export)(?: type)? \* as (\w+) from ["'](\.[^"']*)["']/gm)].flatMap(
      ([, alias, path]) => {
        const file = path!
          .split("/")
          .pop()!
          .replace(/\.(ts|js)$/, "")
        return alias === file ? [] : [`${alias} <- ${path}`]
      },
    )

  it("the alias check finds a namespace named apart from its file", () => {
    expect(misnamed('import * as Events from "./ConsentEvents.ts"\nexport * as Consent from "./Consent.ts"')).toEqual([
      "Events <- ./ConsentEvents.ts",
    ])
  })

  it("automatic collection has one name, AutoCollection: no CollectAutomatically, AutomaticCollection or AutoPayScheduler in code, tests or docs", () => {
    const docs = (dir: string): Array<string> =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.name === "node_modules" || entry.name.startsWith(".")
          ? []
          : entry.isDirectory()
            ? docs(join(dir, entry.name))
            : entry.name.endsWith(".md")
              ? [join(dir, entry.name)]
              : [],
      )
    const offenders = [...everyFile(), ...docs(join(root, "docs")), ...docs(join(root, "packages"))]
      .filter((file) => !file.endsWith(`${sep}Architecture.test.ts`))
      .filter((file) => /CollectAutomatically|AutomaticCollection|AutoPayScheduler/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file))
    expect(offenders).toEqual([])
  })

  it("a namespace alias equals its file's name, in every import and re-export", () => {
    const offenders = everyFile().flatMap((file) =>
      misnamed(readFileSync(file, "utf8")).map((found) => `${relative(root, file)}: ${found}`),
    )
    expect(offenders).toEqual([])
  })
})

describe("HMAC-SHA256 has one home per side", () => {
  it("only secrets/src/Hmac.ts (node:crypto), the domain's kernel/Hmac.ts and the browser client's verifyWebhook.ts (Web Crypto, no dependency of ours) compute it, in every package's src, test and bench", () => {
    const homes = [
      join("packages", "secrets", "src", "Hmac.ts"),
      join("packages", "domain", "src", "kernel", "Hmac.ts"),
      join("packages", "client", "src", "verifyWebhook.ts"),
    ]
    const offenders = packages
      .flatMap((pkg) =>
        ["src", "test", "bench"].flatMap((dir) => {
          try {
            return sourceFiles(join(root, "packages", pkg, dir))
          } catch {
            return []
          }
        }),
      )
      .filter((file) => !homes.includes(relative(root, file)))
      .filter((file) => /createHmac\(|subtle\.(sign|importKey)\(/.test(readFileSync(file, "utf8")))
      .map((file) => relative(root, file))
    expect(offenders).toEqual([])
  })
})

const httpSource = join(root, "packages", "adapters-http", "src")
/** adapters-http's feature folders: one per business area of the domain, plus the token, health and webhook groups. */
const httpFeatures = [
  "auth",
  "cards-and-charity",
  "companies",
  "customers",
  "health",
  "payments",
  "payouts",
  "plans",
  "webhooks",
]
/** adapters-http's machinery shared by every group: server pieces, authentication, problems, limits, OpenAPI. */
const httpMachinery = "cross-cutting"
/** The only modules at the top of adapters-http/src: the public entry and the composition of every group. */
const httpTop = ["Api.ts", "Server.ts", "index.ts"]

/** An adapters-http source path relative to its src/, with `/` separators. */
const httpPath = (file: string) => relative(httpSource, file).split(sep).join("/")

describe("adapters-http has one home per feature", () => {
  it("the top of src holds only the entry, the API definition and the server; every other module is in a feature folder or the cross-cutting one", () => {
    const entries = readdirSync(httpSource, { withFileTypes: true })
    const loose = entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name)
    const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name)
    expect(loose.sort()).toEqual(httpTop)
    expect(folders.sort()).toEqual([...httpFeatures, httpMachinery].sort())
  })

  it("a group's API definition (`XApi.ts`, HttpApiGroup.make) and its handlers (`XLive.ts`, HttpApiBuilder.group) sit side by side in a feature folder", () => {
    const files = sourceFiles(httpSource).map(httpPath)
    const declaring = (pattern: RegExp) =>
      files.filter((file) => pattern.test(readFileSync(join(httpSource, file), "utf8")))
    const apis = declaring(/HttpApiGroup\.make\(/)
    const handlers = declaring(/HttpApiBuilder\.group\(/)
    expect(apis.length).toBeGreaterThanOrEqual(httpFeatures.length)
    const misplaced = [
      ...apis.filter((api) => !api.endsWith("Api.ts") || !files.includes(api.replace(/Api\.ts$/, "Live.ts"))),
      ...handlers.filter((live) => !live.endsWith("Live.ts") || !files.includes(live.replace(/Live\.ts$/, "Api.ts"))),
      ...[...apis, ...handlers].filter((file) => !httpFeatures.includes(folderOf(file))),
    ]
    expect(misplaced).toEqual([])
  })

  it("the cross-cutting machinery imports neither a feature folder nor the composition at the top", () => {
    const outside = sourceFiles(join(httpSource, httpMachinery)).flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => specifier.startsWith("."))
        .map((specifier) => [httpPath(file), httpPath(resolve(dirname(file), specifier))] as const)
        .filter(([, to]) => folderOf(to) !== httpMachinery),
    )
    expect(outside).toEqual([])
  })
})

describe("a request's lean context leaves out only services", () => {
  it("no Context.Reference is among the services left out of a request's context (it would read its default)", () => {
    const references = packages.flatMap((pkg) => {
      const source = join(root, "packages", pkg, "src")
      return sourceFiles(source).flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(/Context\.Reference<[\s\S]*?>\(\s*"([^"]+)"/g)].map((m) => m[1]),
      )
    })
    expect(references).toContain("partnerpay/adapters-http/HttpLimits")
    expect(references.filter((key) => key !== undefined && Http.builtOnly.has(key))).toEqual([])
  })
})
