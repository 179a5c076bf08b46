/**
 * Module resolution hooks of the Context benchmark (`bench/context.ts`): with
 * CONTEXT_VARIANT_DIR set, effect's `dist/Context.js` is loaded from that directory instead (a copy
 * of the file as another version of the patch leaves it); the copy's relative imports resolve in
 * effect's own `dist/`, so every other module is the installed one.
 */
const variantDir = process.env.CONTEXT_VARIANT_DIR
const variantUrl = variantDir === undefined ? undefined : new URL(`file://${variantDir}/Context.js`).href
let effectDistContextUrl

export async function resolve(specifier, context, next) {
  if (variantUrl !== undefined && context.parentURL === variantUrl && specifier.startsWith(".")) {
    return next(specifier, { ...context, parentURL: effectDistContextUrl })
  }
  const resolved = await next(specifier, context)
  if (variantUrl !== undefined && /\/effect\/dist\/Context\.js$/.test(resolved.url)) {
    effectDistContextUrl = resolved.url
    return { ...resolved, url: variantUrl }
  }
  return resolved
}
