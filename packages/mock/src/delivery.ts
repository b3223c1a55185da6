import type { Notification } from "./types.js";

/** One webhook delivery of a test event, as the mock attempted it. */
export interface WebhookDelivery {
  subscriptionId: string;
  /** The callback URL posted to. */
  url: string;
  /** The JSON body posted (the same object the test event call answered). */
  notification: Notification;
  /** `pending` until the last attempt settles. */
  status: "pending" | "delivered" | "failed";
  /** Attempts made so far (at most `maxAttempts`). */
  attempts: number;
  /** HTTP status of the last attempt that got a response. */
  responseStatus?: number;
  /** Message of the last network error, if an attempt got no response. */
  error?: string;
}

/** How test events are delivered to callback URLs. */
export interface DeliveryOptions {
  /** Attempts per delivery, the first included. Default 3. */
  maxAttempts?: number;
  /** Wait before the second attempt, doubled for each later one. Default 100 ms. */
  backoffMs?: number;
  /** Time limit of one attempt. Default 5000 ms. */
  timeoutMs?: number;
  /** The fetch used to post webhooks. Default: `globalThis.fetch`, looked up at each attempt (so msw can intercept it). */
  fetch?: typeof fetch;
}

/** Records kept: a shared sandbox must not grow with every test event it ever sent (DESIGN.md §6). */
export const MAX_DELIVERY_RECORDS = 1000;

/**
 * Posts webhooks in the background and keeps a record of each (the last
 * {@link MAX_DELIVERY_RECORDS}). Retries happen
 * on a non-2xx answer or a network error; redirects count as failures, as a
 * webhook sender should not follow them blindly.
 */
export class DeliveryQueue {
  #records: WebhookDelivery[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  // Plain sets instead of listeners on one shared AbortSignal, which would
  // pile up (and warn) with many deliveries in flight.
  readonly #attempts = new Set<AbortController>();
  readonly #sleepers = new Set<() => void>();
  #disposed = false;
  readonly #options: Required<Omit<DeliveryOptions, "fetch">> & Pick<DeliveryOptions, "fetch">;

  constructor(options: DeliveryOptions = {}) {
    this.#options = {
      maxAttempts: Math.max(1, options.maxAttempts ?? 3),
      backoffMs: options.backoffMs ?? 100,
      timeoutMs: options.timeoutMs ?? 5000,
      fetch: options.fetch,
    };
  }

  /** Snapshots of the last 1,000 deliveries since the start (or the last `clear`), oldest first. */
  get records(): WebhookDelivery[] {
    return this.#records.map((record) => ({ ...record }));
  }

  enqueue(subscriptionId: string, url: string, notification: Notification): void {
    const record: WebhookDelivery = { subscriptionId, url, notification, status: "pending", attempts: 0 };
    // The oldest record goes; its delivery, if still in flight, finishes unlisted.
    if (this.#records.push(record) > MAX_DELIVERY_RECORDS) this.#records.shift();
    // deliver() never rejects, so no rejection can go unhandled.
    const task = this.#deliver(record).finally(() => this.#inFlight.delete(task));
    this.#inFlight.add(task);
  }

  /** Resolves once no delivery is pending (including ones started meanwhile). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** Forgets the records; deliveries in flight finish but are no longer listed. */
  clear(): void {
    this.#records = [];
  }

  /** Stops retries and aborts attempts in flight; they end as `failed`. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const attempt of this.#attempts) attempt.abort(new Error("The mock was closed"));
    for (const wake of this.#sleepers) wake();
    await this.idle();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }

  /** One POST; its response, or the reason it got none. */
  async #post(url: string, body: string): Promise<Response> {
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new Error(`No response within ${this.#options.timeoutMs} ms`)), this.#options.timeoutMs);
    this.#attempts.add(attempt);
    try {
      const fetchImpl = this.#options.fetch ?? globalThis.fetch;
      const response = await fetchImpl(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "*/*" },
        body,
        redirect: "manual",
        signal: attempt.signal,
      });
      void response.body?.cancel().catch(() => undefined); // not awaited: under msw (2.13, Node) cancelling a mocked body never settles
      return response;
    } finally {
      clearTimeout(timer);
      this.#attempts.delete(attempt);
    }
  }

  async #deliver(record: WebhookDelivery): Promise<void> {
    const { maxAttempts, backoffMs } = this.#options;
    const body = JSON.stringify(record.notification);
    for (let attempt = 1; attempt <= maxAttempts && !this.#disposed; attempt++) {
      record.attempts = attempt;
      try {
        const response = await this.#post(record.url, body);
        record.responseStatus = response.status;
        delete record.error;
        if (response.ok) {
          record.status = "delivered";
          return;
        }
      } catch (error) {
        record.error = error instanceof Error ? error.message : String(error);
      }
      if (attempt < maxAttempts && !this.#disposed) await this.#sleep(backoffMs * 2 ** (attempt - 1));
    }
    record.status = "failed";
  }
}
