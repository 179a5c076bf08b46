/** How old a delivery may be: 5 minutes (older ones are refused as possible replays). */
export declare const toleranceSeconds: number;
export type Verdict = {
    readonly ok: true;
    readonly eventId: string;
    readonly payload: unknown;
} | {
    readonly ok: false;
    readonly reason: string;
};
type Headers = Record<string, string | ReadonlyArray<string> | undefined>;
/**
 * Checks `X-Partnerpay-Signature: t=<unix seconds>,v1=<hex>` where v1 is the
 * HMAC-SHA256, keyed with your signing secret, of `<t>.<X-Partnerpay-Event-Id>.<raw body>`.
 * Refuses a signature older (or further in the future) than 5 minutes. Several
 * v1 entries may be present (e.g. during a secret rotation): one match is enough.
 */
export declare const verifyWebhook: (rawBody: string | Uint8Array, headers: Headers, secret: string, nowSeconds?: number) => Verdict;
export {};
//# sourceMappingURL=verifyWebhook.d.ts.map