// Registers `variant-hooks.mjs` (node --import ./bench/context/variant.mjs).
import { register } from "node:module"

register("./variant-hooks.mjs", import.meta.url)
