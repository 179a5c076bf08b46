/**
 * The shape of the cross-cutting steps (`CrossCutting.ts` lists them in order): a step is given
 * what comes after it (`next`) and answers for the request, calling `next` to go on, or not (a
 * refusal). The chain is built once, when the middleware is made; a request costs one `Incoming`
 * record, which the steps read and fill in as they go (the caller, then the body).
 */
import { Effect, Option, type Types } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { CallerIdentity } from "./Caller.ts"
import * as Problem from "./Problem.ts"
import { correlationIdOf } from "./RequestRecord.ts"

/** A route's answer, or the answer of a step in front of it. */
export type App = Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>

const emptyBody = new Uint8Array()

/** One request as the steps see it: the route it goes to, and what the steps before learnt. */
export class Incoming {
  readonly request: HttpServerRequest.HttpServerRequest
  /** The matched route's handler (the end of the chain). */
  readonly route: App
  /** The caller a valid token names (`CallerResolution`). */
  caller: Option.Option<CallerIdentity> = Option.none()
  /** The request body, once read (`BodyLimit`; empty for methods without a body). */
  body: Uint8Array = emptyBody
  /** The request's path, without its query. */
  readonly path: string

  constructor(request: HttpServerRequest.HttpServerRequest, route: App) {
    this.request = request
    this.route = route
    const q = request.url.indexOf("?")
    this.path = q === -1 ? request.url : request.url.slice(0, q)
  }
}

/** What answers for a request. */
export type Handler = (incoming: Incoming) => App

/** A cross-cutting step: given what comes after it, what answers for the request. */
export type Step = (next: Handler) => Handler

/** The end of every chain: the route itself. */
const toRoute: Handler = (incoming) => incoming.route

/** The steps in order, first outermost: the first step runs first and sees every answer last. */
export const chain = (steps: ReadonlyArray<Step>): Handler =>
  steps.reduceRight<Handler>((next, step) => step(next), toRoute)

/** The problem+json answer of a refusal, with the request's correlation id. */
export const respond = (problem: Problem.Problem): App =>
  Effect.withFiber((fiber) => Problem.toResponse(problem, correlationIdOf(fiber)))
