/**
 * Named effectful functions whose span costs nothing when tracing is off.
 *
 * `Traced.fn("Module.name")(function* (...) { ... })` is `Effect.fn("Module.name")`
 * when the calling fiber has tracing enabled (`References.TracerEnabled`, which the
 * service sets from PARTNERPAY_TRACING), and `Effect.fnUntraced` otherwise: the same
 * body, the same types, the same span names in traces. With tracing off, `Effect.fn`
 * still makes a no-op span, a call-site stack trace and two context updates per call
 * (about 4-6 µs here, against 0.3-0.5 µs untraced); a request crosses dozens of these
 * functions. The choice is made per call, so one process can trace some fibers only.
 */
import { Effect, References } from "effect"
import type { SpanOptionsNoTrace } from "effect/Tracer"

// biome-ignore lint/suspicious/noExplicitAny: the body and pipeables are passed through untouched; the result is typed as Effect.fn.Traced.
type Body = (...args: Array<any>) => unknown

/** `Effect.fn(name, options)` when the caller traces, `Effect.fnUntraced` when it does not. */
export const fn = (name: string, options?: SpanOptionsNoTrace): Effect.fn.Traced =>
  ((body: Body, ...pipeables: ReadonlyArray<Body>) => {
    const named = Effect.fn(name, options) as unknown as (body: Body, ...pipeables: ReadonlyArray<Body>) => Body
    const plain = Effect.fnUntraced as unknown as (body: Body, ...pipeables: ReadonlyArray<Body>) => Body
    const traced = named(body, ...pipeables)
    const untraced = plain(body, ...pipeables)
    return function (this: unknown, ...args: Array<unknown>) {
      return Effect.withFiber(
        (fiber) =>
          (fiber.getRef(References.TracerEnabled) ? traced : untraced).apply(this, args) as Effect.Effect<unknown>,
      )
    }
  }) as unknown as Effect.fn.Traced

/**
 * `Effect.withSpan(name, options)` when the running fiber traces, the effect itself when it does
 * not: with tracing off, `Effect.withSpan` still makes a no-op span with a call-site stack trace.
 */
export const withSpan =
  (name: string, options?: SpanOptionsNoTrace) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => (fiber.getRef(References.TracerEnabled) ? Effect.withSpan(self, name, options) : self))
