/**
 * Methods for the common resources beside the raw paths: `client.companies.create(body)`,
 * `client.paymentRequests.get(id)`, `client.paymentPlans.setMetadata(id, metadata)`... Each sends
 * the typed request and answers its data, or throws a `PartnerpayError` carrying the problem
 * (`unwrap`), with the client's token, idempotency keys and retries.
 */
import type { Client } from "openapi-fetch"
import type { paths } from "./generated/openapi.ts"
import { unwrap } from "./PartnerpayError.ts"

type Body<P extends keyof paths, M extends "post" | "put"> = paths[P][M] extends {
  readonly requestBody?: { readonly content: { readonly "application/json": infer B } }
}
  ? B
  : never

/** The partner's own key-value pairs on a company, a payment request or a payment plan. */
export type Metadata = Record<string, string>

/** The resource methods of a client built on `api`. */
export const resources = (api: Client<paths>) => ({
  companies: {
    create: async (body: Body<"/Company/Create", "post">) => unwrap(await api.POST("/Company/Create", { body })),
    status: async (companyId: string) => unwrap(await api.GET("/company/status", { params: { query: { companyId } } })),
    setMetadata: async (companyId: string, metadata: Metadata) =>
      unwrap(await api.PUT("/Company/{companyId}/Metadata", { params: { path: { companyId } }, body: { metadata } })),
  },
  paymentRequests: {
    create: async (body: Body<"/Payment/Create", "post">) => unwrap(await api.POST("/Payment/Create", { body })),
    get: async (paymentRequestId: string) =>
      unwrap(await api.GET("/Payment/{paymentRequestId}", { params: { path: { paymentRequestId } } })),
    cancel: async (paymentRequestId: string) =>
      unwrap(await api.PUT("/Payment/{paymentRequestId}/Cancel", { params: { path: { paymentRequestId } } })),
    setMetadata: async (paymentRequestId: string, metadata: Metadata) =>
      unwrap(
        await api.PUT("/Payment/{paymentRequestId}/Metadata", {
          params: { path: { paymentRequestId } },
          body: { metadata },
        }),
      ),
  },
  paymentPlans: {
    create: async (body: Body<"/PaymentPlan/Create", "post">) =>
      unwrap(await api.POST("/PaymentPlan/Create", { body })),
    get: async (paymentPlanId: string) =>
      unwrap(await api.GET("/PaymentPlan/{paymentPlanId}", { params: { path: { paymentPlanId } } })),
    activate: async (paymentPlanId: string) =>
      unwrap(await api.PUT("/PaymentPlan/{paymentPlanId}/Activate", { params: { path: { paymentPlanId } } })),
    pause: async (paymentPlanId: string) =>
      unwrap(await api.PUT("/PaymentPlan/{paymentPlanId}/Pause", { params: { path: { paymentPlanId } } })),
    resume: async (paymentPlanId: string) =>
      unwrap(await api.PUT("/PaymentPlan/{paymentPlanId}/Resume", { params: { path: { paymentPlanId } } })),
    cancel: async (paymentPlanId: string) =>
      unwrap(await api.PUT("/PaymentPlan/{paymentPlanId}/Cancel", { params: { path: { paymentPlanId } } })),
    setMetadata: async (paymentPlanId: string, metadata: Metadata) =>
      unwrap(
        await api.PUT("/PaymentPlan/{paymentPlanId}/Metadata", {
          params: { path: { paymentPlanId } },
          body: { metadata },
        }),
      ),
  },
})

export type Resources = ReturnType<typeof resources>
