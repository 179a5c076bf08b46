#!/usr/bin/env bash
# One word per thing (issue 36): partner webhooks are `*Webhook`, a provider's incoming webhooks are
# provider callbacks (`*Callbacks`), "notification" is kept for messages to customers. Mechanical:
# `git mv` of the modules, then the identifiers and import paths everywhere but docs/decisions.md
# (history). Safe to run again after a merge that brings back an old name (it renames what is left).
set -euo pipefail
cd "$(dirname "$0")/.."

# old module path (from the repository root) -> new
moves=(
  packages/domain/src/cards-and-charity/CardDisputeNotification.ts:packages/domain/src/cards-and-charity/CardDisputeWebhook.ts
  packages/domain/src/cards-and-charity/CardPaymentNotification.ts:packages/domain/src/cards-and-charity/CardPaymentWebhook.ts
  packages/domain/src/cards-and-charity/CardRefundNotification.ts:packages/domain/src/cards-and-charity/CardRefundWebhook.ts
  packages/domain/src/payments/DebitAuthNotification.ts:packages/domain/src/payments/DebitAuthWebhook.ts
  packages/domain/src/payments/PaymentRequestStatusNotification.ts:packages/domain/src/payments/PaymentRequestStatusWebhook.ts
  packages/domain/src/payments/RefundStatusNotification.ts:packages/domain/src/payments/RefundStatusWebhook.ts
  packages/domain/src/payouts/PayoutStatusNotification.ts:packages/domain/src/payouts/PayoutStatusWebhook.ts
  packages/domain/src/plans/ConsentStatusNotification.ts:packages/domain/src/plans/ConsentStatusWebhook.ts
  packages/domain/src/plans/PaymentPlanInstalmentNotification.ts:packages/domain/src/plans/PaymentPlanInstalmentWebhook.ts
  packages/domain/src/plans/PaymentPlanStatusNotification.ts:packages/domain/src/plans/PaymentPlanStatusWebhook.ts
  packages/domain/src/infrastructure/NotificationRule.ts:packages/domain/src/infrastructure/WebhookRule.ts
  packages/domain/src/composition/Notifications.ts:packages/domain/src/composition/Webhooks.ts
  packages/app/src/http/CardProcessorNotifications.ts:packages/app/src/http/CardProcessorCallbacks.ts
  packages/app/src/http/StripeNotifications.ts:packages/app/src/http/StripeCallbacks.ts
  packages/app/src/http/MoneyMovementNotifications.ts:packages/app/src/http/MoneyMovementCallbacks.ts
  packages/app/src/http/DwollaNotifications.ts:packages/app/src/http/DwollaCallbacks.ts
  packages/adapters-pg/src/PgProviderNotifications.ts:packages/adapters-pg/src/PgProviderCallbacks.ts
  packages/app/test/CardProcessorNotifications.test.ts:packages/app/test/CardProcessorCallbacks.test.ts
  packages/app/test/StripeNotifications.test.ts:packages/app/test/StripeCallbacks.test.ts
)
for move in "${moves[@]}"; do
  from=${move%%:*} to=${move##*:}
  if [ -e "$from" ]; then git mv "$from" "$to"; fi
done

# identifiers (whole words) -> new
words=(
  CardDisputeNotification:CardDisputeWebhook
  CardPaymentNotification:CardPaymentWebhook
  CardRefundNotification:CardRefundWebhook
  DebitAuthNotification:DebitAuthWebhook
  PaymentRequestStatusNotification:PaymentRequestStatusWebhook
  RefundStatusNotification:RefundStatusWebhook
  PayoutStatusNotification:PayoutStatusWebhook
  ConsentStatusNotification:ConsentStatusWebhook
  PaymentPlanInstalmentNotification:PaymentPlanInstalmentWebhook
  PaymentPlanStatusNotification:PaymentPlanStatusWebhook
  AnyNotificationRule:AnyWebhookRule
  NotificationRule:WebhookRule
  CardProcessorNotifications:CardProcessorCallbacks
  StripeNotifications:StripeCallbacks
  MoneyMovementNotifications:MoneyMovementCallbacks
  DwollaNotifications:DwollaCallbacks
  PgProviderNotifications:PgProviderCallbacks
  refusingBankLinkNotifications:refusingBankLinkCallbacks
  BankLinkNotificationRefused:BankLinkCallbackRefused
  BankLinkNotifications:BankLinkCallbacks
  BankLinkNotification:BankLinkCallback
)
script=""
for word in "${words[@]}"; do script+="s/\\b${word%%:*}\\b/${word##*:}/g;"; done
# the registry of webhook rules: its module and namespace (not /Customer/Notifications, a wire path)
script+='s#composition/Notifications\.ts#composition/Webhooks.ts#g;'
script+='s#"\./Notifications\.ts"#"./Webhooks.ts"#g;'
script+='s#\* as Notifications from#* as Webhooks from#g;'
script+='s#\bNotifications\.rules\b#Webhooks.rules#g;'
script+='s#`Notifications`, `Policies`#`Webhooks`, `Policies`#g;'
script+='s#registered in `Notifications\.ts`#registered in `Webhooks.ts`#g;'

files=$(git ls-files packages docs README.md scripts bench faults examples production |
  grep -Ev '(^docs/decisions\.md$|/generated/|^scripts/(rename-webhooks\.sh|move-app-src\.ts)$)' |
  grep -E '\.(ts|mts|mjs|js|md|json|yml|yaml|sh)$' |
  xargs grep -lE "Notification|Notifications" || true)
[ -n "$files" ] && sed -i -E "$script" $files

# the outbox's entry is a webhook (`Outbox.Webhook`), and a rule's field says which webhooks an event
# causes (`webhooks`); in the webhook modules and their readers only (`MoneyMovements.Notification`,
# a provider's outcome, is another thing)
rules=$(git ls-files packages/domain | grep -E '(Webhooks?|WebhookRule|EventPipeline|LifecycleWebhooks\.test)\.ts$' || true)
readers=$(git ls-files packages | grep -E '\.ts$' | xargs grep -lE 'Outbox\.Notification|type \{ Notification \} from "[./]+(infrastructure|src/infrastructure)?/?Outbox\.ts"' || true)
[ -n "$rules" ] && sed -i -E 's/\bnotifications\b/webhooks/g; s/\bnotificationRules\b/webhookRules/g; s/\bNotification rules\b/Webhook rules/g' $rules
for f in $readers packages/domain/src/infrastructure/Outbox.ts; do
  sed -i -E 's/\bOutbox\.Notification\b/Outbox.Webhook/g; s/type \{ Notification \} from/type { Webhook } from/; s/\bNotification\b/Webhook/g' "$f"
done
echo "renamed; now: ./pnpm format && ./pnpm typecheck"
