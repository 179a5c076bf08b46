/**
 * The methods a path is served with, for the 405 answer of a known path
 * called with a method it does not serve (`DELETE /Payment/{id}`: 405,
 * `Allow: GET, HEAD`). The table is the API's endpoints (from the `Api`
 * definition, so it cannot drift from the routes) plus the document and
 * reference routes; matching is case-sensitive like the router (a path in
 * other casing stays 404), and a `:param` segment matches any one non-empty
 * segment. A GET route also serves HEAD (the router answers HEAD with GET).
 */
import { HttpApi, type HttpApiGroup } from "effect/http-api"

/** One route: its method and path template (`/Payment/:paymentRequestId`). */
export interface RouteTemplate {
  readonly method: string
  readonly path: string
}

/** The order methods are listed in `Allow`. */
const methodOrder = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

const segmentsOf = (path: string): ReadonlyArray<string> => path.split("/").slice(1)

const matches = (template: ReadonlyArray<string>, path: ReadonlyArray<string>): boolean =>
  template.length === path.length &&
  template.every((segment, i) => (segment.startsWith(":") ? path[i]!.length > 0 : segment === path[i]))

/** The routes of an HttpApi definition, with `extra` ones. */
export const routesOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extra: ReadonlyArray<RouteTemplate> = [],
): ReadonlyArray<RouteTemplate> => {
  const out: Array<RouteTemplate> = [...extra]
  HttpApi.reflect(api, {
    onGroup() {},
    onEndpoint({ endpoint }) {
      out.push({ method: endpoint.method, path: endpoint.path })
    },
  })
  return out
}

/**
 * The methods of `routes` that serve `url` (its query string ignored), in `Allow` order; empty when no
 * route has this path (a 404).
 */
export const allowedMethods = (routes: ReadonlyArray<RouteTemplate>, url: string): ReadonlyArray<string> => {
  const query = url.search(/[?#]/)
  const path = segmentsOf(query === -1 ? url : url.slice(0, query))
  const methods = new Set<string>()
  for (const route of routes) {
    if (!matches(segmentsOf(route.path), path)) continue
    methods.add(route.method)
    if (route.method === "GET") methods.add("HEAD")
  }
  return methodOrder.filter((method) => methods.has(method))
}
