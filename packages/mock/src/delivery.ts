import type { Notification } from "./types.js";

/** One attempt of a webhook delivery. */
export interface DeliveryAttempt {
  /** When the attempt started (ISO 8601). */
  at: string;
  /** HTTP status of the answer, when there was one. */
  responseStatus?: number;
  /** Why there was no answer: a network or TLS error, or no answer within the attempt's time limit. */
  error?: string;
}

/** One webhook delivery (a notification to a callback URL), as the mock attempted it. */
export interface WebhookDelivery {
  subscriptionId: string;
  /** The callback URL posted to. */
  url: string;
  /** The notification's id: the same on every attempt and on a redelivery. */
  notificationId: string;
  /** The JSON body posted (the same object the test event call answered). */
  notification: Notification;
  /** `pending` until the last attempt settles; `delivered` after a 2xx; `failed` when no attempt got one. */
  status: "pending" | "delivered" | "failed";
  /** Attempts made so far: the first, then one per retry. */
  attempts: number;
  /** Each attempt, oldest first. */
  attemptLog: DeliveryAttempt[];
  /** HTTP status of the last attempt that got a response. */
  responseStatus?: number;
  /** Message of the last network error, if the last attempt got no response. */
  error?: string;
  /** `true` for a delivery `mock.redeliver(notificationId)` started. */
  redelivery: boolean;
}

/** How webhooks are delivered to callback URLs. */
export interface DeliveryOptions {
  /**
   * The waits before each retry, in milliseconds: a delivery without a 2xx
   * answer is retried once per entry. Default `[1000, 5000, 25000]` (three
   * retries, as the real service). The `deliveryRetryDelaysMs` option of the
   * mock sets the same.
   */
  retryDelaysMs?: readonly number[];
  /** Time limit of one attempt (until the answer's status). Default 10 000 ms. */
  timeoutMs?: number;
  /** The fetch used to post webhooks. Default: `globalThis.fetch`, looked up at each attempt (so msw can intercept it). */
  fetch?: typeof fetch;
  /** @deprecated Use `retryDelaysMs`. Attempts per delivery, the first included (with `backoffMs`: waits doubling from it). */
  maxAttempts?: number;
  /** @deprecated Use `retryDelaysMs`. Wait before the second attempt, doubled for each later one. */
  backoffMs?: number;
}

/** The client certificate the sandbox presents to `https:` callback URLs (mutual TLS), and what it trusts. */
export interface WebhookTlsOptions {
  /** Client certificate chain (PEM) presented to receivers. */
  cert: string | Uint8Array;
  /** Its private key (PEM). */
  key: string | Uint8Array;
  /** CA certificate(s) (PEM) trusted for the receivers' server certificates. Default: Node's root certificates. */
  ca?: string | Uint8Array | (string | Uint8Array)[];
  /** Passphrase of an encrypted `key`. */
  passphrase?: string;
}

/**
 * Posts one webhook and resolves with the answer's status; rejects when there
 * is none. It must stop when `signal` aborts.
 */
export type WebhookPoster = (url: string, body: string, signal: AbortSignal) => Promise<number>;

/** A way to post webhooks other than fetch (the real server's mutual TLS), for some URLs. */
export interface DeliveryTransport {
  /** Whether this transport posts to `url` (else fetch does). */
  handles(url: string): boolean;
  post: WebhookPoster;
  /** Frees what the transport holds (kept-alive connections). */
  close?(): void;
}

/** The real service's waits before its three retries. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 5000, 25000];
/** The records kept: the last this many deliveries. */
export const MAX_DELIVERY_RECORDS = 1000;

function retryDelays(options: DeliveryOptions): readonly number[] {
  if (options.retryDelaysMs !== undefined) {
    const delays = options.retryDelaysMs;
    if (!Array.isArray(delays) || !delays.every((ms) => typeof ms === "number" && Number.isFinite(ms) && ms >= 0)) {
      throw new RangeError("deliveryRetryDelaysMs must be an array of finite numbers >= 0");
    }
    return [...delays];
  }
  if (options.maxAttempts === undefined && options.backoffMs === undefined) return DEFAULT_RETRY_DELAYS_MS;
  const backoffMs = options.backoffMs ?? 100;
  return Array.from({ length: Math.max(1, options.maxAttempts ?? 3) - 1 }, (_, i) => backoffMs * 2 ** i);
}

/**
 * Posts webhooks in the background and keeps a record of the last 1,000.
 * Delivery is at least once, as the real service's: an attempt without a 2xx
 * answer within the time limit is retried after each of `retryDelaysMs`, with
 * the same body (and so the same `notificationId`). Redirects count as
 * failures, as a webhook sender should not follow them blindly.
 */
export class DeliveryQueue {
  #records: WebhookDelivery[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  // Plain sets instead of listeners on one shared AbortSignal, which would
  // pile up (and warn) with many deliveries in flight.
  readonly #attempts = new Set<AbortController>();
  readonly #sleepers = new Set<() => void>();
  #disposed = false;
  readonly #delays: readonly number[];
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch | undefined;
  readonly #transport: DeliveryTransport | undefined;

  constructor(options: DeliveryOptions = {}, transport?: DeliveryTransport) {
    this.#delays = retryDelays(options);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#fetch = options.fetch;
    this.#transport = transport;
  }

  /** Snapshots of the last 1,000 deliveries since the start (or the last `clear`), oldest first. */
  get records(): WebhookDelivery[] {
    return this.#records.map((record) => ({ ...record, attemptLog: record.attemptLog.map((attempt) => ({ ...attempt })) }));
  }

  /** Starts delivering `notification` to `url` in the background. */
  enqueue(subscriptionId: string, url: string, notification: Notification): void {
    this.#start(subscriptionId, url, notification, false);
  }

  /**
   * Delivers the notification of the latest record with this id once more (a
   * new delivery, retried like any), and resolves with its record once it
   * settles. Rejects when no kept record has that id.
   */
  async redeliver(notificationId: string): Promise<WebhookDelivery> {
    let found: WebhookDelivery | undefined;
    for (let i = this.#records.length - 1; i >= 0 && !found; i--) {
      if (this.#records[i]!.notificationId === notificationId) found = this.#records[i];
    }
    if (!found) throw new RangeError(`No delivery of notification ${JSON.stringify(notificationId)} is on record`);
    const { record, task } = this.#start(found.subscriptionId, found.url, found.notification, true);
    await task;
    return { ...record, attemptLog: record.attemptLog.map((attempt) => ({ ...attempt })) };
  }

  #start(subscriptionId: string, url: string, notification: Notification, redelivery: boolean) {
    const record: WebhookDelivery = {
      subscriptionId,
      url,
      notificationId: notification.notificationId ?? "",
      notification,
      status: "pending",
      attempts: 0,
      attemptLog: [],
      redelivery,
    };
    this.#records.push(record);
    if (this.#records.length > MAX_DELIVERY_RECORDS) this.#records.shift();
    // deliver() never rejects, so no rejection can go unhandled.
    const task = this.#deliver(record).finally(() => this.#inFlight.delete(task));
    this.#inFlight.add(task);
    return { record, task };
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
    this.#transport?.close?.();
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

  /** One POST: the answer's status, or the reason there was none. */
  async #post(url: string, body: string): Promise<number> {
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new Error(`No response within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    this.#attempts.add(attempt);
    try {
      if (this.#transport?.handles(url)) return await this.#transport.post(url, body, attempt.signal);
      const fetchImpl = this.#fetch ?? globalThis.fetch;
      const response = await fetchImpl(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "*/*" },
        body,
        redirect: "manual",
        signal: attempt.signal,
      });
      void response.body?.cancel().catch(() => undefined); // not awaited: under msw (2.13, Node) cancelling a mocked body never settles
      return response.status;
    } catch (error) {
      // The abort's own reason says more than the transport's generic AbortError.
      throw attempt.signal.aborted ? attempt.signal.reason : error;
    } finally {
      clearTimeout(timer);
      this.#attempts.delete(attempt);
    }
  }

  async #deliver(record: WebhookDelivery): Promise<void> {
    const body = JSON.stringify(record.notification);
    for (let retry = 0; !this.#disposed; retry++) {
      const attempt: DeliveryAttempt = { at: new Date().toISOString() };
      record.attemptLog.push(attempt);
      record.attempts = record.attemptLog.length;
      try {
        const status = await this.#post(record.url, body);
        attempt.responseStatus = record.responseStatus = status;
        delete record.error;
        if (status >= 200 && status < 300) {
          record.status = "delivered";
          return;
        }
      } catch (error) {
        attempt.error = record.error = error instanceof Error ? error.message : String(error);
      }
      const delay = this.#delays[retry];
      if (delay === undefined || this.#disposed) break;
      await this.#sleep(delay);
    }
    record.status = "failed";
  }
}
