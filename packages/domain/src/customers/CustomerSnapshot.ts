/**
 * The Customer aggregate's snapshot: its state as JSON, so that loading a
 * customer does not replay a stream that grows with every login, push token
 * and preference change (see `CommandHandler.load`). Bump `schemaVersion`
 * whenever the state's shape or `evolve` changes: older snapshots are then
 * ignored and replaced on the next command.
 */
import type { SnapshotPolicy } from "../kernel/Decider.ts"
import { State } from "./CustomerState.ts"

/** A snapshot at least every 100 events; the state's schema is its JSON codec. */
export const policy: SnapshotPolicy<State> = {
  schemaVersion: 3,
  state: State,
  every: 100,
}
