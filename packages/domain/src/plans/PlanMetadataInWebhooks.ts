/**
 * The partner's metadata of a payment plan in its webhooks' Data (`Metadata`, `{}` when none), as
 * payment requests and companies carry theirs: read from the `payment_plans` read model, already
 * updated by the same append, so a webhook carries the metadata the plan has when it is announced.
 */
import { Effect, Option } from "effect"
import { decodeDocument, ReadModelStore } from "../infrastructure/ReadModel.ts"
import type { WebhookRule } from "../infrastructure/WebhookRule.ts"
import * as PaymentPlansProjection from "./PaymentPlansProjection.ts"

/** `rule` with `Metadata` added to the Data of each notification it makes (before `Timestamp`). */
export const withPlanMetadata = (
  rule: WebhookRule<PaymentPlansProjection.PaymentPlanEnvelope>,
): WebhookRule<PaymentPlansProjection.PaymentPlanEnvelope> => ({
  streamTypes: rule.streamTypes,
  webhooks: (envelope) =>
    Effect.flatMap(rule.webhooks(envelope), (webhooks) =>
      webhooks.length === 0
        ? Effect.succeed(webhooks)
        : Effect.gen(function* () {
            const store = yield* ReadModelStore
            const stored = yield* store.get(
              PaymentPlansProjection.paymentPlans.collection,
              envelope.event.paymentPlanId,
            )
            const metadata = Option.isNone(stored)
              ? {}
              : (decodeDocument(PaymentPlansProjection.paymentPlans, stored.value).metadata ?? {})
            return webhooks.map((notification) => {
              const { Timestamp, ...data } = notification.data as Readonly<Record<string, unknown>>
              return { ...notification, data: { ...data, Metadata: metadata, Timestamp } }
            })
          }),
    ),
})
