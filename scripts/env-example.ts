/** `./pnpm env:example`: writes `.env.example` from the configuration reference (packages/app/src/config/EnvExample.ts). */
import { writeFileSync } from "node:fs"
import { render } from "../packages/app/src/config/EnvExample.ts"

const file = new URL("../.env.example", import.meta.url)
writeFileSync(file, render())
process.stdout.write(`env:example: ${file.pathname} written\n`)
