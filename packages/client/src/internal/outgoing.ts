/**
 * The request openapi-fetch builds and the transport sends: its URL, method,
 * headers and body, without what a platform `Request` carries besides. On
 * Node a `Request` costs an `AbortSignal` and a body stream each, more than
 * the JavaScript of a whole call; the transport builds the one request that
 * goes out, per attempt. A real `Request` has the same shape, so either can
 * be sent.
 */
export interface Outgoing {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly redirect?: RequestRedirect;
  readonly body: unknown;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Given to openapi-fetch as its `Request` class. */
export class OutgoingRequest implements Outgoing {
  // `declare`d, as in the error classes: the constructor sets every field, so field definitions would only repeat the names.
  declare readonly url: string;
  declare readonly method: string;
  declare readonly headers: Headers;
  declare readonly redirect: RequestRedirect;
  declare readonly body: BodyInit | null;

  constructor(input: string | URL, init: RequestInit = {}) {
    // Parsed and serialised as a Request would, so `url` is the absolute, normalised form.
    this.url = new URL(input).href;
    this.method = (init.method ?? "GET").toUpperCase();
    // openapi-fetch hands over a Headers of its own making: taken as it is, not copied.
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.redirect = init.redirect ?? "follow";
    this.body = init.body ?? null;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return new Response(this.body).arrayBuffer();
  }
}
