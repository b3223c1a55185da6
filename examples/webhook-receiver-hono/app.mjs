// The Hono app. Only Fetch APIs here, so the same app runs on Bun, Deno,
// Cloudflare Workers or any other Hono adapter; server.mjs serves it on Node.
import { Hono } from "hono";
import { createReceiver } from "./receiver.mjs";

/** @param {Parameters<typeof createReceiver>[0]} options */
export function createApp(options) {
  const webhooks = createReceiver(options);
  const app = new Hono();
  // The handler reads the raw body itself (with its size limit): pass the
  // Request through, with no body-parsing middleware in front.
  app.all("/webhooks", (c) => webhooks(c.req.raw));
  return app;
}
