/**
 * The wording of the messages partnerpay sends itself (Twilio SMS, e-mail
 * over SMTP): one subject and one text per template of
 * `Messaging.Template`. A bridge receives the template's name instead and
 * words it as the operator likes. Nothing personal goes in a text: the
 * payment request is named by its id, amounts and names stay in the app.
 */
import type { Messaging } from "@partnerpay/domain"

export interface MessageText {
  readonly subject: string
  readonly body: string
}

/** The words of `message`. */
export const textOf = (message: Messaging.OutgoingMessage): MessageText => {
  const request = message.paymentRequestId === undefined ? "" : ` (payment request ${message.paymentRequestId})`
  switch (message.template) {
    case "LoginCode":
      return { subject: "Your login code", body: "Your login code was sent by your bank's app." }
    case "PaymentDueSoon":
      return {
        subject: "A payment is due soon",
        body: `A payment is due in a few days${request}. Open the app to pay.`,
      }
    case "PaymentDueToday":
      return { subject: "A payment is due today", body: `A payment is due today${request}. Open the app to pay.` }
    case "PaymentPaid":
      return { subject: "Payment received", body: `Your payment was received${request}. Thank you.` }
    case "PaymentFailed":
      return { subject: "Payment failed", body: `Your payment failed${request}. Open the app for details.` }
  }
}
