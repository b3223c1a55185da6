// The two receivers compared, served side by side by one server in one
// runtime: /sdk is `createWebhookHandler` (content type, streamed body under
// the byte limit, zod validation of the notification); /bare only parses the
// JSON body, the least a receiver can do.
import { createWebhookHandler } from "@fdxkit/client/webhooks";

let received = 0;
const sdk = createWebhookHandler({
  onNotification: () => {
    received++;
  },
});

async function bare(request) {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  const body = await request.json();
  if (body && typeof body === "object") received++;
  return new Response('{"received":true}', { headers: { "content-type": "application/json" } });
}

/** Routes /sdk and /bare; anything else is 404. */
export function route(request) {
  const { pathname } = new URL(request.url);
  if (pathname === "/sdk") return sdk(request);
  if (pathname === "/bare") return bare(request);
  if (pathname === "/count") return new Response(String(received));
  return new Response("not found", { status: 404 });
}
