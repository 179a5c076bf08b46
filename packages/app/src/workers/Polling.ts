/**
 * A background worker as a scoped fiber started by a Layer: runs `step`
 * repeatedly; when a step did no work (returned 0) it waits `idle` before the
 * next one. A failing step is logged and retried after `idle` (the worker
 * never dies); interruption (shutdown) stops it between or inside steps.
 * It reports to the `Readiness.Workers` registry (when one is provided):
 * started when forked, stopped when its fiber ends; each step is counted in
 * `partnerpay_worker_runs_total` (Metrics.ts).
 */
import { Cause, type Duration, Effect, Layer } from "effect"
import { Workers } from "../http/Readiness.ts"
import * as Metrics from "../observability/Metrics.ts"

export const worker = <E, R>(
  name: string,
  idle: Duration.Input,
  step: Effect.Effect<number, E, R>,
): Layer.Layer<never, never, R> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      yield* Effect.logInfo("worker started").pipe(Effect.annotateLogs({ worker: name }))
      const loop = Effect.gen(function* () {
        while (true) {
          const done = yield* step.pipe(
            Effect.tap((done) => Metrics.workerRun(name, done === 0 ? "idle" : "work")),
            Effect.catchCause((cause) =>
              Cause.hasInterruptsOnly(cause)
                ? Effect.failCause(cause)
                : Effect.logWarning("worker step failed", cause).pipe(
                    Effect.andThen(Metrics.workerRun(name, "failed")),
                    Effect.as(0),
                  ),
            ),
          )
          if (done === 0) yield* Effect.sleep(idle)
        }
      }).pipe(Effect.annotateLogs({ worker: name }))
      const fiber = yield* Effect.forkScoped(loop)
      const registry = yield* Workers
      if (registry !== undefined) {
        registry.started(name)
        fiber.addObserver(() => registry.stopped(name))
      }
    }),
  ) as Layer.Layer<never, never, R>
