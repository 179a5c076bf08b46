/**
 * The field validation of a new PaymentRequest (`CreatePaymentRequest`): the
 * amount, description and due date, the autopay / debit-authorization limits,
 * the invoice (number and lines adding up to the amount) and the metadata.
 * Every bad field is named.
 */
import { DateTime, type Result } from "effect"
import * as CalendarDate from "../kernel/CalendarDate.ts"
import type { ValidationFailed } from "../kernel/DomainError.ts"
import * as FieldChecks from "../kernel/FieldChecks.ts"
import * as Metadata from "../kernel/Metadata.ts"
import * as Money from "../kernel/Money.ts"
import type { CreatePaymentRequest } from "./PaymentRequestCommands.ts"
import type { InvoiceLineItem } from "./TransferEvents.ts"

/** The total of invoice lines, in minor units. */
export const lineItemsTotal = (lineItems: ReadonlyArray<InvoiceLineItem>): number =>
  lineItems.reduce((total, item) => total + item.quantity * item.unitAmount.minorUnits, 0)

/** Longest invoice number. */
export const maxInvoiceNumberLength = 64
/** Most invoice lines. */
export const maxLineItems = 100
/** Largest quantity of one invoice line. */
export const maxQuantity = 1_000_000

const validateLimit = (
  issues: FieldChecks.Issues,
  command: CreatePaymentRequest,
  enabled: boolean | undefined,
  limit: Money.Money | undefined,
  enableField: string,
  limitField: string,
): void => {
  if (limit === undefined) {
    if (enabled === true) issues.push({ field: limitField, message: `is required when ${enableField} is true` })
    return
  }
  if (enabled !== true) issues.push({ field: limitField, message: `is only allowed when ${enableField} is true` })
  FieldChecks.positiveMoney(issues, limitField, limit)
  FieldChecks.sameCurrency(issues, limitField, limit, command.amount)
}

const validateInvoice = (issues: FieldChecks.Issues, command: CreatePaymentRequest): void => {
  const number = command.invoiceNumber
  if (number !== undefined) {
    if (number === "" || number.length > maxInvoiceNumberLength || number !== number.trim())
      issues.push({
        field: "invoiceNumber",
        message: `must be 1 to ${maxInvoiceNumberLength} characters, without leading or trailing blanks`,
      })
  }
  const lines = command.lineItems
  if (lines === undefined) return
  if (lines.length === 0 || lines.length > maxLineItems) {
    issues.push({ field: "lineItems", message: `must have 1 to ${maxLineItems} lines` })
    return
  }
  let valid = true
  lines.forEach((line, index) => {
    const field = `lineItems[${index}]`
    const before = issues.length
    FieldChecks.requiredText(issues, `${field}.description`, line.description, FieldChecks.maxNameLength)
    if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > maxQuantity)
      issues.push({ field: `${field}.quantity`, message: `must be a whole number from 1 to ${maxQuantity}` })
    FieldChecks.positiveMoney(issues, `${field}.unitAmount`, line.unitAmount)
    FieldChecks.sameCurrency(issues, `${field}.unitAmount`, line.unitAmount, command.amount)
    if (issues.length > before) valid = false
  })
  if (!valid) return
  const total = lineItemsTotal(lines)
  if (total !== command.amount.minorUnits)
    issues.push({
      field: "lineItems",
      message: `add up to ${Money.toDecimalString({ minorUnits: total, currency: command.amount.currency })} ${command.amount.currency}, not the amount ${Money.toDecimalString(command.amount)}`,
    })
}

/**
 * The field validation of CreatePaymentRequest (every bad field named), as the decider applies it; the
 * use case applies it first too, so that no rule checked before the decision (the payer limit) hides a
 * bad field.
 */
export const validateCreate = (command: CreatePaymentRequest): Result.Result<never, ValidationFailed> | undefined => {
  const issues: FieldChecks.Issues = []
  FieldChecks.positiveMoney(issues, "amount", command.amount)
  FieldChecks.requiredText(issues, "description", command.description, FieldChecks.maxTextLength)
  const createdOn = CalendarDate.fromEpochMillis(DateTime.toEpochMillis(command.at))
  if (CalendarDate.compare(command.dueDate, createdOn) < 0)
    issues.push({ field: "dueDate", message: `must not be before the creation date ${createdOn}` })
  if (command.attachmentUrl !== undefined)
    FieldChecks.attachmentUrl(issues, "attachmentUrl", command.attachmentUrl, command.sandboxAttachmentUrl === true)
  if (command.enableAutoPay === true && command.enableDebitAuth === true) {
    const message = "autopay and a debit authorization cannot both be enabled: choose one"
    issues.push({ field: "enableAutoPay", message }, { field: "enableDebitAuth", message })
  }
  validateLimit(issues, command, command.enableAutoPay, command.autoPayLimit, "enableAutoPay", "autoPayLimit")
  validateLimit(issues, command, command.enableDebitAuth, command.debitCeiling, "enableDebitAuth", "debitAuthLimit")
  validateInvoice(issues, command)
  if (command.metadata !== undefined) issues.push(...Metadata.issues("metadata", command.metadata))
  return FieldChecks.refusal(issues)
}
