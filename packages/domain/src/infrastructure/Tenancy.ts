/**
 * Tenancy: the partner whose request the current fiber serves.
 *
 * Every request of the API is one partner's (a partner's own token, or one of
 * its customers'). The HTTP adapter sets `CurrentPartner` once it knows the
 * caller; the storage adapters read it to file what they write under that
 * partner and to filter what they read by it (the partner id is the
 * distribution column of a sharded deployment, docs/scaling.md). Background
 * work (workers, the CLI) runs without it: what it writes takes its partner
 * from the stream or row it works on.
 */
import { Context } from "effect"

/** The partner whose request the current fiber serves; undefined outside a partner's request. */
export const CurrentPartner = Context.Reference<string | undefined>("partnerpay/domain/CurrentPartner", {
  defaultValue: () => undefined,
})

/**
 * The owner of system-wide read-model documents (the workers' work lists, e.g. plans due to
 * collect): the nil UUID, which no partner can have. A partner's unit writes such documents beside
 * its own, so a partner's request may read them too.
 */
export const systemTenant = "00000000-0000-0000-0000-000000000000"
