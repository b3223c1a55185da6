import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startMockServer } from "./server.js";

const USAGE = `Usage: fdxkit-mock [--port 4010] [--host 127.0.0.1] [--token TOKEN]
                   [--latency MS] [--faults RATE] [--fault-seed N] [--pagination links|page]
                   [--no-prev-links] [--redirect-documents] [--require-user-tokens]
                   [--require-actor-type PROVIDER ...]
                   [--provider-rate-limit PROVIDER=LIMIT[/MS] ...]
                   [--retry-delays MS,MS,...]
                   [--webhook-cert FILE --webhook-key FILE [--webhook-ca FILE]]

Starts the fdxkit sandbox (notifications, consents, statements) over HTTP,
with its identity provider (OpenID Connect) on a port of its own.

Provider variations:
  --latency MS           wait MS milliseconds before every answer
  --faults RATE          that share of requests (0-1) gets 503, 429 or a connection reset
  --fault-seed N         seed of the fault sequence (default: random)
  --pagination page      FDX page objects (page.nextOffset) instead of links
  --no-prev-links        pages carry no links.prev
  --redirect-documents   statement GETs answer 302 to a signed URL on a second origin
  --require-actor-type P statement calls to provider P need FDX-API-Actor-Type
                         (USER or BATCH; 400 without it); repeatable
  --provider-rate-limit P=LIMIT[/MS]
                         provider P serves at most LIMIT statement calls in each
                         fixed window of MS milliseconds (default 1000), then
                         429/1207 with Retry-After; repeatable (e.g. sandbox-bank=20/1000)

Identity provider:
  --require-user-tokens  statement calls need an end user's id token (401 602 otherwise)

Webhook delivery:
  --retry-delays LIST    waits before each retry of a failed delivery, in ms
                         (default 1000,5000,25000; an empty list: no retries)
  --webhook-cert FILE    client certificate (PEM) presented to https: callbacks
  --webhook-key FILE     its private key (PEM)
  --webhook-ca FILE      CA (PEM) trusted for the receivers' certificates
                         (default: Node's root certificates)`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function number(flag: string, text: string | undefined, check: (n: number) => boolean): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !check(value)) fail(`Invalid ${flag} ${text}`);
  return value;
}

/** `--provider-rate-limit` values (`P=LIMIT[/MS]`) as the `providerRateLimits` option. */
function providerRateLimits(texts: string[] | undefined): Record<string, { limit: number; windowMs: number }> | undefined {
  if (texts === undefined) return undefined;
  const limits: Record<string, { limit: number; windowMs: number }> = {};
  for (const text of texts) {
    const match = /^(.+)=(\d+)(?:\/(\d+(?:\.\d+)?))?$/.exec(text);
    const limit = Number(match?.[2]);
    const windowMs = Number(match?.[3] ?? 1000);
    if (!match || limit < 1 || windowMs <= 0) fail(`Invalid --provider-rate-limit ${text} (PROVIDER=LIMIT or PROVIDER=LIMIT/MS, LIMIT >= 1, MS > 0)`);
    limits[match[1] as string] = { limit, windowMs };
  }
  return limits;
}

/** The PEM files of the webhook client certificate, or `undefined` without `--webhook-cert`. */
function readWebhookTls(cert: string | undefined, key: string | undefined, ca: string | undefined) {
  if (cert === undefined && key === undefined && ca === undefined) return undefined;
  if (cert === undefined || key === undefined) fail("--webhook-cert and --webhook-key go together");
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch (error) {
      return fail(`Cannot read ${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  };
  return {
    cert: read("--webhook-cert", cert),
    key: read("--webhook-key", key),
    ...(ca === undefined ? {} : { ca: read("--webhook-ca", ca) }),
  };
}

function parseFlags() {
  return parseArgs({
    options: {
      port: { type: "string", default: "4010" },
      host: { type: "string", default: "127.0.0.1" },
      token: { type: "string" },
      latency: { type: "string" },
      faults: { type: "string" },
      "fault-seed": { type: "string" },
      pagination: { type: "string" },
      "no-prev-links": { type: "boolean" },
      "redirect-documents": { type: "boolean" },
      "require-user-tokens": { type: "boolean" },
      "require-actor-type": { type: "string", multiple: true },
      "provider-rate-limit": { type: "string", multiple: true },
      "retry-delays": { type: "string" },
      "webhook-cert": { type: "string" },
      "webhook-key": { type: "string" },
      "webhook-ca": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
}

async function main(): Promise<void> {
  let values: ReturnType<typeof parseFlags>;
  try {
    values = parseFlags();
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = number("--port", values.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535) as number;
  const latencyMs = number("--latency", values.latency, (n) => Number.isFinite(n) && n >= 0);
  const rate = number("--faults", values.faults, (n) => n >= 0 && n <= 1);
  const seed = number("--fault-seed", values["fault-seed"], Number.isSafeInteger);
  if (values.pagination !== undefined && values.pagination !== "links" && values.pagination !== "page") {
    fail(`Invalid --pagination ${values.pagination} (links or page)`);
  }

  const retryDelays = values["retry-delays"];
  const deliveryRetryDelaysMs =
    retryDelays === undefined
      ? undefined
      : retryDelays.trim() === ""
        ? []
        : retryDelays.split(",").map((text) => number("--retry-delays", text, (n) => Number.isFinite(n) && n >= 0) as number);
  const rateLimits = providerRateLimits(values["provider-rate-limit"]);
  const webhookTls = readWebhookTls(values["webhook-cert"], values["webhook-key"], values["webhook-ca"]);

  const mock = await startMockServer({
    port,
    host: values.host,
    token: values.token,
    latencyMs,
    faults: rate === undefined ? undefined : { rate, seed },
    pagination: values.pagination,
    prevLinks: !values["no-prev-links"],
    documents: values["redirect-documents"] ? "redirect" : "direct",
    requireUserTokens: Boolean(values["require-user-tokens"]),
    ...(values["require-actor-type"] ? { requireActorType: values["require-actor-type"] } : {}),
    ...(rateLimits ? { providerRateLimits: rateLimits } : {}),
    deliveryRetryDelaysMs,
    webhookTls,
  });
  const { seed: data } = mock;
  const variations = [
    latencyMs ? `latency ${latencyMs} ms` : "",
    rate === undefined ? "" : `faults ${rate}${seed === undefined ? "" : ` (seed ${seed})`}`,
    values.pagination === "page" ? "page objects" : "",
    values["no-prev-links"] ? "no prev links" : "",
    values["redirect-documents"] ? "documents by redirect" : "",
    values["require-user-tokens"] ? "user tokens required" : "",
    values["require-actor-type"] ? `actor type required by ${values["require-actor-type"].join(", ")}` : "",
    rateLimits
      ? `rate limits ${Object.entries(rateLimits)
          .map(([id, { limit, windowMs }]) => `${id} ${limit} per ${windowMs} ms`)
          .join(", ")}`
      : "",
    deliveryRetryDelaysMs ? `retry delays ${deliveryRetryDelaysMs.join(",") || "none"}` : "",
    webhookTls ? "webhooks over mutual TLS" : "",
  ].filter(Boolean);
  console.log(`fdxkit mock listening
  base URL:     ${mock.baseUrl}
  products URL: ${mock.productsUrl}${mock.documentsUrl ? `\n  documents:    ${mock.documentsUrl}` : ""}
  token:        ${mock.token}${variations.length ? `\n  variations:   ${variations.join(", ")}` : ""}
  IdP URL:      ${mock.idpUrl}
  client id:    ${mock.clientId}
  client secret: ${mock.clientSecret}
  users:        ${data.users.map((u) => `${u.username} / ${u.password} (${u.accounts.join(", ")})`).join("; ")}
  provider:     ${data.providerId}
  accounts:     ${data.accounts.map((a) => a.accountId).join(", ")}
  consents:     ${data.consents.map((c) => `${c.id} (${c.status})`).join(", ")}
  maintenance:  ${data.maintenance.map((m) => m.id).join(", ")}
Press Ctrl-C to stop.`);

  const stop = () => {
    mock.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
