/**
 * The personal data of the customers area, and whose it is.
 *
 * A customer (subject `customer:<registrationId>`): the phone number they
 * registered with (`CustomerRegistered`), the identity data confirmed by KYC
 * (`KycVerified.personalData`: names, birth date, SSN last four, e-mail,
 * phone), their devices' push tokens (`PushTokenRegistered`,
 * `PushTokenRemoved`: a device address that reaches the person) and their
 * linked bank accounts' names (`BankAccountsLinked`: a name the holder may
 * have given, such as "Jane's savings"), in events, in the Customer snapshot
 * and in the `customers` read model. The payer's name on a transfer belongs
 * to the same subject (`payments/PaymentPersonalData.ts`).
 *
 * A login challenge is one phone number at one partner; its stream id holds
 * the phone's keyed hash (`PhoneIndex`), never the number, and the number in
 * its events belongs to the subject `login:<challenge stream id>`, erased with
 * the customer who logged in with it.
 */
import type { FieldsOf } from "../infrastructure/PersonalData.ts"

/** The data subject of a customer. */
export const customerSubject = (registrationId: string): string => `customer:${registrationId}`

/**
 * The data subject of the recipients (phone, push tokens, e-mail) in the log of messages sent to a
 * customer (the sandbox message log): its own key, erased with the customer's.
 */
export const messagesSubject = (registrationId: string): string => `messages:${registrationId}`

/** The data subject of the phone number of a login challenge stream. */
export const loginSubject = (challengeStreamId: string): string => `login:${challengeStreamId}`

const personalDataFields = [
  "profileName",
  "firstName",
  "lastName",
  "birthDate",
  "ssnLastFourDigits",
  "emailAddress",
  "phoneNumber",
].map((field) => `personalData.${field}`)

const ofCustomer =
  (paths: ReadonlyArray<string>): FieldsOf =>
  (data) =>
    typeof data.registrationId === "string" ? [{ subject: customerSubject(data.registrationId), paths }] : []

/** Personal fields of Customer events, by event type. */
export const customerEvents: Readonly<Record<string, FieldsOf>> = {
  CustomerRegistered: ofCustomer(["phoneNumber"]),
  KycVerified: ofCustomer(personalDataFields),
  BankAccountsLinked: ofCustomer(["accounts.*.name"]),
  PushTokenRegistered: ofCustomer(["token"]),
  PushTokenRemoved: ofCustomer(["token"]),
}

/** The personal fields of the customer's state, in the snapshot and in the read model alike. */
const stateFields = ["phoneNumber", ...personalDataFields, "bankAccounts.*.name", "pushTokens.*.token"]

const ofChallenge: FieldsOf = (_data, streamId) => [{ subject: loginSubject(streamId), paths: ["phoneNumber"] }]

/** Personal fields of LoginChallenge events, by event type: the phone number in all of them. */
export const loginChallengeEvents: Readonly<Record<string, FieldsOf>> = {
  LoginCodeIssued: ofChallenge,
  LoginCodeVerified: ofChallenge,
  LoginCodeRejected: ofChallenge,
  LoginLocked: ofChallenge,
}

/** Personal fields of the Customer snapshot (its state as JSON). */
export const customerSnapshot: FieldsOf = ofCustomer(stateFields)

/** Personal fields of a `customers` read-model document. */
export const customerDocument: FieldsOf = ofCustomer(stateFields)
