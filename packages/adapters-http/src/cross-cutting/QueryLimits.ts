/**
 * The `limit` query parameter of every list, declared in the OpenAPI document as the integer it is (its
 * Schema decodes the query's text, so the generated document would say "string" and a typed client would
 * take `limit: "20"`): `{ type: "integer", minimum: 1 }` with its description (which states its range).
 * Runs among the OpenAPI transforms of Api.ts.
 */
type Json = { [key: string]: unknown }

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

export const openApiTransform = (spec: Json): Json => {
  const paths = spec.paths
  if (!isObject(paths)) return spec
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue
    for (const operation of Object.values(item)) {
      if (!isObject(operation) || !Array.isArray(operation.parameters)) continue
      for (const parameter of operation.parameters as Array<unknown>) {
        if (!isObject(parameter) || parameter.in !== "query" || parameter.name !== "limit") continue
        const schema = isObject(parameter.schema) ? parameter.schema : {}
        parameter.schema = {
          type: "integer",
          minimum: 1,
          ...(typeof schema.description === "string" ? { description: schema.description } : {}),
        }
      }
    }
  }
  return spec
}
