/**
 * JSON with the keys of every object in sorted order: two values that are
 * equal but for the order their keys were written in give the same text. The
 * specifications compare expected and actual values by it, and print it.
 */

/** `value` as JSON, its objects' keys sorted (`space`: indentation, as `JSON.stringify`'s). */
export const stable = (value: unknown, space?: number): string =>
  JSON.stringify(
    value,
    (_key, v) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
        : v,
    space,
  )
