// routes.mjs as a service-worker script (workerd through miniflare, edge-runtime).
import { route } from "./routes.mjs";

addEventListener("fetch", (event) => event.respondWith(route(event.request)));
