// Serves createWebhookHandler twice on 127.0.0.1, in one Node process: over
// plain TLS (node:https + toNodeListener, no client certificate) and over
// mutual TLS (createWebhookServer, the client certificate pinned). Prints
// both origins. Key material comes as PEM file paths in the environment.
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { createWebhookServer, toNodeListener } from "@fdxkit/client/node";
import { createWebhookHandler } from "@fdxkit/client/webhooks";

const pem = (name) => readFileSync(process.env[name], "utf8");
const tls = { key: pem("FDXKIT_BENCH_SERVER_KEY"), cert: pem("FDXKIT_BENCH_SERVER_CERT"), ca: pem("FDXKIT_BENCH_CA") };
const handler = createWebhookHandler({ onNotification: () => {} });

const plain = createServer({ key: tls.key, cert: tls.cert }, toNodeListener(handler));
const mutual = createWebhookServer({ handler, tls, clientCertificates: { fingerprints: [process.env.FDXKIT_BENCH_CLIENT_FINGERPRINT] } });
const listening = (server) => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
const [plainPort, mutualPort] = await Promise.all([listening(plain), listening(mutual)]);
console.log(`FDXKIT_BENCH_READY https://127.0.0.1:${plainPort} https://127.0.0.1:${mutualPort}`);
