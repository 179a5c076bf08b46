/**
 * Every cross-aggregate policy of the domain. Each policy module adds itself
 * here; use cases call `apply` with what a command just recorded, inside
 * their unit of work.
 */
import type * as CommandHandler from "./infrastructure/CommandHandler.ts"
import * as Policy from "./infrastructure/Policy.ts"
import { policy as transferOutcome } from "./payments/TransferOutcomePolicy.ts"
import { policy as consentAnswer } from "./plans/ConsentAnswerPolicy.ts"
import { policy as instalmentOutcome } from "./plans/InstalmentOutcomePolicy.ts"

export const all: ReadonlyArray<Policy.AnyPolicy> = [consentAnswer, transferOutcome, instalmentOutcome]

/** Applies every policy reacting to `source` to the events it just recorded (see `Policy.apply`). */
export const apply = (
  source: { readonly name: string },
  handled: { readonly events: ReadonlyArray<{ readonly _tag: string }>; readonly state: unknown },
  options?: CommandHandler.HandleOptions,
) => Policy.apply(all, source, handled, options)
