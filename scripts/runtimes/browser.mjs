// The scenario in a browser page, served from another 127.0.0.1 port than the
// sandbox, so every call is cross-origin (CORS). The config comes in the URL's
// fragment; the steps go to `window.__fdxkitResult` (a JSON string) for the
// driver to read. There is no server in a page: the test event is passed to
// the webhook handler directly.
import { runScenario } from "./scenario.mjs";

const config = JSON.parse(decodeURIComponent(location.hash.slice(1)));
runScenario(config).then(
  (steps) => {
    window.__fdxkitResult = JSON.stringify({ steps, userAgent: navigator.userAgent });
  },
  (error) => {
    window.__fdxkitResult = JSON.stringify({ error: String(error) });
  },
);
