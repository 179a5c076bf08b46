/**
 * Pagination over the API's lists: a GET with `limit` / `startingAfter` query parameters that
 * answers `{ data: [...], hasMore }` (or `{ items: [...], hasMore }`, /Transaction/Report).
 * `paginate` requests page after page, `startingAfter` = the cursor of the previous page's last
 * item, and yields the items one by one until `hasMore` is false. Breaking out of the loop stops
 * the requests.
 */
import type { paths } from "./generated/openapi.ts"
import { unwrap } from "./PartnerpayError.ts"

type GetOperation<P extends keyof paths> = NonNullable<paths[P]["get"]>

/** The paths of the lists that take `startingAfter`. */
export type ListPath = {
  [P in keyof paths]: paths[P]["get"] extends { parameters: { query?: infer Q } }
    ? "startingAfter" extends keyof NonNullable<Q>
      ? P
      : never
    : never
}[keyof paths]

type ListAnswer<P extends ListPath> =
  GetOperation<P> extends {
    responses: { 200: { content: { "application/json": infer A } } }
  }
    ? A
    : never

/** The type of one item of the list at `P`. */
export type ListItem<P extends ListPath> =
  ListAnswer<P> extends { data: ReadonlyArray<infer I> }
    ? I
    : ListAnswer<P> extends { items: ReadonlyArray<infer I> }
      ? I
      : never

/** The query of the list at `P`, without the cursor (the helper sets it). */
export type ListQuery<P extends ListPath> = Omit<
  NonNullable<GetOperation<P> extends { parameters: { query?: infer Q } } ? Q : never>,
  "startingAfter"
>

export interface PaginateOptions<Item> {
  /** The cursor of an item (the id `startingAfter` takes); known lists have theirs, else `id`. */
  readonly cursor?: (item: Item) => string
  /** Passed on to every page request (e.g. an `AbortSignal`). */
  readonly signal?: AbortSignal
}

/** The id field each known list pages by (`startingAfter` takes it); other lists: `id`. */
export const cursorFields: Readonly<Record<string, string>> = {
  "/Payment/History": "paymentRequestId",
  "/Consent/List": "consentId",
  "/Transaction/Report": "externalTransferId",
}

interface Page {
  readonly data?: ReadonlyArray<unknown>
  readonly items?: ReadonlyArray<unknown>
  readonly hasMore: boolean
}

/** The GET a list needs (an openapi-fetch client's `GET`, loosely typed here). */
export type GetPage = (
  path: string,
  init: { params: { query: Record<string, unknown> }; signal?: AbortSignal },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>

export async function* paginate<Item>(
  get: GetPage,
  path: string,
  query: Record<string, unknown>,
  options: PaginateOptions<Item> = {},
): AsyncGenerator<Item, void, undefined> {
  const field = cursorFields[path] ?? "id"
  const cursor = options.cursor ?? ((item: Item) => String((item as Record<string, unknown>)[field]))
  let startingAfter: string | undefined
  for (;;) {
    const page = unwrap(
      (await get(path, {
        params: { query: startingAfter === undefined ? query : { ...query, startingAfter } },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      })) as { data: Page; response: Response },
    )
    const items = (page.data ?? page.items ?? []) as ReadonlyArray<Item>
    for (const item of items) yield item
    const last = items.at(-1)
    if (!page.hasMore || last === undefined) return
    startingAfter = cursor(last)
  }
}
