// Which redirect URIs the IdP sends users back to (RFC 8252 §7.3 for loopback ones, exact otherwise).
import { expect, it } from "vitest";
import { isRegisteredRedirectUri } from "../src/idp/idp.js";

const registered = [
  "http://127.0.0.1/callback",
  "http://[::1]/cb",
  "http://localhost/callback?x=1",
  "https://app.example.com/callback",
  "http://127.0.0.1:9000/fixed",
];

it.each([
  "http://127.0.0.1/callback",
  "http://127.0.0.1:1/callback",
  "http://127.0.0.1:65535/callback",
  "http://[::1]:8080/cb",
  "http://localhost:3000/callback?x=1",
  "https://app.example.com/callback",
  "http://127.0.0.1:9000/fixed",
  "http://127.0.0.1:9001/fixed",
])("accepts %s", (uri) => {
  expect(isRegisteredRedirectUri(uri, registered)).toBe(true);
});

it.each([
  "http://127.0.0.1:8080/callback/",
  "http://127.0.0.1:8080/Callback",
  "http://127.0.0.1:8080/callback?x=1",
  "http://127.0.0.1:8080/callback#",
  "http://127.0.0.1:8080/a/../callback",
  "http://user@127.0.0.1:8080/callback",
  "http://127.0.0.2:8080/callback",
  "https://127.0.0.1:8080/callback",
  "http://LOCALHOST:3000/callback?x=1",
  "http://localhost:3000/callback",
  "http://localhost:3000/callback?x=2",
  "http://[::1]:8080/callback",
  "https://app.example.com:443/callback",
  "https://app.example.com/callback?x=1",
  "https://APP.example.com/callback",
  "http://app.example.com/callback",
  "",
  "/callback",
])("refuses %s", (uri) => {
  expect(isRegisteredRedirectUri(uri, registered)).toBe(false);
});
