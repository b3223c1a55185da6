/** One request the mock received, as `mock.requests()` lists it. */
export interface RecordedRequest {
  method: string;
  /** The path and query of the request, as sent. */
  path: string;
  /** The `FDX-API-Actor-Type` header as sent (`"USER"`, `"BATCH"`), or `undefined` without one. */
  actorType: string | undefined;
}

/** Requests kept, the last ones only: a shared sandbox must not grow without end. */
export const MAX_RECORDED_REQUESTS = 1000;

/** The last {@link MAX_RECORDED_REQUESTS} requests an instance received, oldest first. */
export class RequestLog {
  #records: RecordedRequest[] = [];

  add(request: Request): void {
    const url = new URL(request.url);
    this.#records.push({ method: request.method, path: url.pathname + url.search, actorType: request.headers.get(ACTOR_TYPE) ?? undefined });
    if (this.#records.length > MAX_RECORDED_REQUESTS) this.#records.shift();
  }

  /** Copies: changing them changes nothing recorded. */
  get records(): RecordedRequest[] {
    return this.#records.map((r) => ({ ...r }));
  }

  clear(): void {
    this.#records = [];
  }
}

/** FDX's header saying who is asking: an end user waiting (`USER`) or a job (`BATCH`). */
export const ACTOR_TYPE = "FDX-API-Actor-Type";
/** The values FDX defines for it. */
export const ACTOR_TYPES: readonly string[] = ["USER", "BATCH"];
