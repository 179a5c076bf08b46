/**
 * US bank routing numbers (ABA routing transit numbers): nine digits whose
 * first two name a Federal Reserve routing symbol (01-12 banks, 21-32 thrifts,
 * 61-72 electronic transactions, 80 traveller's cheques; 00 the government)
 * and whose last one is a check digit: 3·(d1+d4+d7) + 7·(d2+d5+d8) +
 * (d3+d6+d9) is a multiple of 10. A mistyped digit always breaks the check,
 * as do most swapped neighbours.
 */

/** Why a routing number is refused, or undefined when it is a valid one. */
export const problemOf = (routingNumber: string): string | undefined => {
  if (!/^\d{9}$/.test(routingNumber)) return "must be nine digits"
  const prefix = Number(routingNumber.slice(0, 2))
  const validPrefix = prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80
  if (!validPrefix) return "must start with a Federal Reserve routing symbol (00-12, 21-32, 61-72 or 80)"
  const d = [...routingNumber].map(Number)
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)
  return sum % 10 === 0 ? undefined : "is not a valid routing number (its check digit does not match)"
}

/** True for a valid routing number. */
export const isValid = (routingNumber: string): boolean => problemOf(routingNumber) === undefined
