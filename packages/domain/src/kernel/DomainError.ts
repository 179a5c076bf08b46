/**
 * The typed refusals a decider can return. Each names what a client can act on:
 * which fields are wrong, which state forbids the command, which rule is broken.
 * Adapters map them to HTTP (422, 409, 404) without looking inside the rules.
 */
import { Schema } from "effect"

/** One refused input field: a dotted path (`owner.emailAddress`, `employees[1].emailAddress`) and why. */
export const FieldIssue = Schema.Struct({
  field: Schema.String,
  message: Schema.String,
})
export type FieldIssue = typeof FieldIssue.Type

/** The command's input breaks a validation rule; every offending field is listed. */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  issues: Schema.Array(FieldIssue),
}) {
  override get message(): string {
    return this.issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")
  }
  static of(field: string, message: string): ValidationFailed {
    return new ValidationFailed({ issues: [{ field, message }] })
  }
}

/** The command is not allowed in the aggregate's current state (for example cancel after accept). */
export class IllegalTransition extends Schema.TaggedError<IllegalTransition>()("IllegalTransition", {
  entity: Schema.String,
  state: Schema.String,
  command: Schema.String,
  reason: Schema.String,
}) {
  override get message(): string {
    return this.reason
  }
}

/** A business rule refuses the command whatever the state (for example a debit above the authorized limit). */
export class RuleViolated extends Schema.TaggedError<RuleViolated>()("RuleViolated", {
  code: Schema.String,
  reason: Schema.String,
  /** The input field the rule refuses, when one does (e.g. `amount.currencyCode`). */
  field: Schema.optionalKey(Schema.String),
}) {
  override get message(): string {
    return this.reason
  }
}

/** The command addresses an aggregate that does not exist. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  entity: Schema.String,
}) {
  override get message(): string {
    return `${this.entity} not found`
  }
}

/** The command would create an aggregate that already exists. */
export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", {
  entity: Schema.String,
}) {
  override get message(): string {
    return `${this.entity} already exists`
  }
}

export type DomainError = ValidationFailed | IllegalTransition | RuleViolated | NotFound | AlreadyExists

/** The refusals of one aggregate's decider that name its entity, the entity written once. */
export interface Refusals {
  /** The aggregate does not exist (or is not the caller's to know of). */
  readonly notFound: NotFound
  /** The aggregate exists already. */
  readonly alreadyExists: AlreadyExists
  /** The command is not a move the aggregate's current state allows, and why. */
  readonly illegal: (
    state: { readonly _tag: string },
    command: { readonly _tag: string },
    reason: string,
  ) => IllegalTransition
}

export const refusalsOf = (entity: string): Refusals => ({
  notFound: new NotFound({ entity }),
  alreadyExists: new AlreadyExists({ entity }),
  illegal: (state, command, reason) =>
    new IllegalTransition({ entity, state: state._tag, command: command._tag, reason }),
})
