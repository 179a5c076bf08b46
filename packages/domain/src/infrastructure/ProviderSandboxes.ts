/**
 * What the in-memory provider sandboxes share: a bounded, expiring store
 * (`BoundedStore`, sized by `SandboxLimits`), so that a sandbox running for
 * weeks keeps a fixed amount of memory. The sandboxes themselves live with
 * their ports in the areas (`customers/CustomerProviderSandboxes.ts`; the
 * app's own sandboxes use the store too). They never run in production.
 */

/** How much a sandbox keeps, and for how long. */
export interface SandboxLimits {
  readonly maxEntries: number
  readonly ttlMillis: number
}

/**
 * An insertion-ordered store of at most `maxEntries` values, each expiring
 * `ttlMillis` after it was (last) stored. Pure: every operation takes the time.
 */
export class BoundedStore<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly storedAt: number }>()
  readonly limits: SandboxLimits
  constructor(limits: SandboxLimits) {
    this.limits = limits
  }

  /** Stores `value` under `key` as the newest entry; evicts what expired, then the oldest beyond the limit. */
  set(key: string, value: V, now: number): void {
    this.entries.delete(key)
    this.entries.set(key, { value, storedAt: now })
    this.evict(now)
  }

  /** The value under `key`, unless absent or expired. */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (now - entry.storedAt >= this.limits.ttlMillis) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value
  }

  /** The live values, oldest first. */
  values(now: number): ReadonlyArray<V> {
    this.evict(now)
    return Array.from(this.entries.values(), (entry) => entry.value)
  }

  get size(): number {
    return this.entries.size
  }

  private evict(now: number): void {
    // Insertion order is storage order, so expired entries are at the front.
    for (const [key, entry] of this.entries) {
      if (this.entries.size > this.limits.maxEntries || now - entry.storedAt >= this.limits.ttlMillis) {
        this.entries.delete(key)
      } else break
    }
  }
}
