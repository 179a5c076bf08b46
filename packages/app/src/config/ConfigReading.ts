/**
 * Reading the configuration: every setting read at once (`readAll`: each its
 * value or the issue naming its variable; reading never fails), and the issues
 * the validation names (`Issues`), which `Config.load` reports all together.
 */
import { Config } from "effect"
import * as Settings from "./Settings.ts"

/** Every setting read at once: each its value or the issue naming its variable. */
export const readAll = Config.all({ settings: Settings.read(Settings.settings), bridges: Settings.readBridges })

export type Read = Config.Success<typeof readAll>

/**
 * The issues of the settings consulted, in the order they are consulted: a bad value is named where its
 * setting matters (PARTNERPAY_DB_STATEMENTS_PER_SESSION only with DATABASE_URL, a bridge's timeout only
 * with its URL or secret...), between the issues of the rules that tie settings together.
 */
export class Issues {
  readonly list: Array<Settings.ConfigIssue> = []
  add(variable: string, message: string): void {
    this.list.push({ variable, message })
  }
  /** The setting's value (its default, or `None`, once its issue is named). */
  take<A>(reading: Settings.Reading<A>): A {
    if (reading.issue !== undefined) this.list.push(reading.issue)
    return reading.value
  }
  /** Whether any issue names a variable starting with `prefix`. */
  names(prefix: string): boolean {
    return this.list.some((issue) => issue.variable.startsWith(prefix))
  }
}
