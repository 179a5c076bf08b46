/**
 * Fields a request body carries that its operation does not define, for the
 * few operations whose wire schema accepts any JSON object so that the
 * domain can list every bad value at once (company registration, locations).
 * Every other operation refuses unknown fields while decoding
 * (`onExcessProperty: "error"`, Api.ts). The precise shape is the same
 * Schema that documents the body, walked as its JSON Schema, so the check
 * and the OpenAPI document cannot disagree.
 */
import { Schema } from "effect"
import * as Problem from "./Problem.ts"

type JsonSchema = {
  readonly $ref?: string
  readonly type?: unknown
  readonly properties?: Record<string, JsonSchema>
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
}

export const message = Problem.unknownField

/** A checker for bodies of the shape `precise`: the dotted paths of the fields it does not define. */
export const checker = (precise: Schema.Top): ((body: unknown) => ReadonlyArray<string>) => {
  const document = Schema.toJsonSchemaDocument(precise)
  const definitions = document.definitions as Record<string, JsonSchema>
  const resolve = (schema: JsonSchema): JsonSchema => {
    let current = schema
    while (current.$ref !== undefined) current = definitions[current.$ref.replace(/^#\/\$defs\//, "")] ?? {}
    return current
  }
  /** The object schemas `schema` may be (an optional or nullable field is an anyOf). */
  const objectsOf = (schema: JsonSchema): ReadonlyArray<JsonSchema> => {
    const resolved = resolve(schema)
    if (resolved.anyOf !== undefined) return resolved.anyOf.flatMap(objectsOf)
    return resolved.properties !== undefined || resolved.items !== undefined ? [resolved] : []
  }
  /** `objectsOf`, worked out once per schema node (the document does not change; bodies are checked per request). */
  const known = new Map<JsonSchema, ReadonlyArray<JsonSchema>>()
  const objectsOfOnce = (schema: JsonSchema): ReadonlyArray<JsonSchema> => {
    let objects = known.get(schema)
    if (objects === undefined) {
      objects = objectsOf(schema)
      known.set(schema, objects)
    }
    return objects
  }
  const walk = (schema: JsonSchema, value: unknown, path: string, found: Array<string>): void => {
    // Only objects and arrays can hold fields: a scalar is not walked (and its dotted name not built).
    if (typeof value !== "object" || value === null) return
    for (const candidate of objectsOfOnce(schema)) {
      if (candidate.items !== undefined && Array.isArray(value)) {
        const items = candidate.items
        for (let index = 0; index < value.length; index++) walk(items, value[index], `${path}[${index}]`, found)
        return
      }
      if (candidate.properties !== undefined && !Array.isArray(value)) {
        for (const key in value) {
          // Own properties only: `constructor`, `toString` or `__proto__` are not fields because every object inherits them.
          if (!Object.hasOwn(value, key)) continue
          const field = (value as Record<string, unknown>)[key]
          if (!Object.hasOwn(candidate.properties, key)) found.push(path === "" ? key : `${path}.${key}`)
          else if (typeof field === "object" && field !== null)
            walk(candidate.properties[key]!, field, path === "" ? key : `${path}.${key}`, found)
        }
        return
      }
    }
  }
  const root = document.schema as JsonSchema
  return (body) => {
    const found: Array<string> = []
    walk(root, body, "", found)
    return found
  }
}

/** 400 naming each unknown field (the same answer as a strictly decoded body's). */
export const refusal = (fields: ReadonlyArray<string>): Problem.BadRequest =>
  new Problem.BadRequest({
    detail:
      fields.length === 1 ? "The request has an invalid value." : `The request has ${fields.length} invalid values.`,
    code: "BAD_REQUEST",
    errors: fields.map((field) => ({ field, message })),
  })
