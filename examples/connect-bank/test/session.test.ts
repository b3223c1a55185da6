// The signed session cookie: any instance with the secret reads it; a
// browser cannot pick its own user id, and another secret's cookie is a
// stranger's.
import { expect, it } from "vitest";
import { createSessions, readCookie, serializeCookie, SESSION_COOKIE } from "../session.mjs";

const secret = "s".repeat(32);

function cookieValue(setCookie: string): string {
  return readCookie(setCookie.split(";")[0], SESSION_COOKIE)!;
}

it("a session issued by one instance is read by another with the same secret", () => {
  const { session, setCookie } = createSessions({ secret, secure: false }).issue();
  expect(session.userId).toMatch(/^user-[A-Za-z0-9_-]{22}$/);
  expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(setCookie).toBe(`${SESSION_COOKIE}=${cookieValue(setCookie)}; Path=/; HttpOnly; SameSite=Lax`);
  expect(createSessions({ secret, secure: false }).read(cookieValue(setCookie))).toEqual(session);
});

it("a cookie with another user id, another signature or another secret is no session", () => {
  const sessions = createSessions({ secret, secure: false });
  const value = cookieValue(sessions.issue().setCookie);
  const [payload, mac] = value.split(".") as [string, string];
  const other = cookieValue(sessions.issue().setCookie);
  const [otherPayload] = other.split(".") as [string, string];
  // Another user's id under this cookie's signature: refused.
  expect(sessions.read(`${otherPayload}.${mac}`)).toBeUndefined();
  // One character of the signature changed.
  expect(sessions.read(`${payload}.${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`)).toBeUndefined();
  expect(sessions.read(payload)).toBeUndefined();
  expect(sessions.read("")).toBeUndefined();
  expect(sessions.read(undefined)).toBeUndefined();
  expect(createSessions({ secret: "t".repeat(32), secure: false }).read(value)).toBeUndefined();
});

it("over https the cookie is Secure; a short secret is refused", () => {
  expect(createSessions({ secret, secure: true }).issue().setCookie).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  expect(() => createSessions({ secret: "short", secure: false })).toThrow("The session secret must be at least 32 characters");
  expect(serializeCookie("n", "", { secure: false, path: "/callback", maxAgeSeconds: 0 })).toBe("n=; Path=/callback; Max-Age=0; HttpOnly; SameSite=Lax");
});
