// The app's own session, kept in the browser rather than on the server: an
// HttpOnly, SameSite=Lax cookie holding the user id and the CSRF token,
// signed with HMAC-SHA256 under a secret every instance shares. Any instance
// can read it, so nothing about a session lives in one process's memory.
// The values are not secret (the CSRF token is in every form the user sees);
// what the signature stops is a browser choosing another user id.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "connect_bank_session";
/** A secret shorter than this is refused: a guessable one would let anyone sign a session as any user. */
export const MIN_SECRET_LENGTH = 32;
const TOKEN = /^[A-Za-z0-9_-]{22,64}$/;

/**
 * @typedef {object} Session
 * @property {string} userId the app user this browser is; the bank connection is stored under it
 * @property {string} csrf the token every POST form must carry
 */

/**
 * Signs and reads session cookies.
 * @param {{ secret: string; secure: boolean }} options `secure`: the app is served over https, so the cookie is `Secure`
 */
export function createSessions({ secret, secure }) {
  if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`The session secret must be at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -base64 32).`);
  }
  /** @param {string} payload */
  const sign = (payload) => createHmac("sha256", secret).update(`${SESSION_COOKIE}|${payload}`).digest("base64url");

  return {
    /**
     * The session a cookie value holds, or undefined when it is missing, malformed or not signed with this secret.
     * @param {string | undefined} value
     * @returns {Session | undefined}
     */
    read(value) {
      if (!value) return undefined;
      const dot = value.indexOf(".");
      if (dot < 1) return undefined;
      const payload = value.slice(0, dot);
      const sent = Buffer.from(value.slice(dot + 1));
      const expected = Buffer.from(sign(payload));
      if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) return undefined;
      const [userId, csrf] = payload.split("~");
      if (!userId || !csrf || !TOKEN.test(userId) || !TOKEN.test(csrf)) return undefined;
      return { userId: `user-${userId}`, csrf };
    },

    /**
     * A new session (a new app user) and the Set-Cookie header that hands it to the browser.
     * @returns {{ session: Session; setCookie: string }}
     */
    issue() {
      const id = randomBytes(16).toString("base64url");
      const csrf = randomBytes(32).toString("base64url");
      const payload = `${id}~${csrf}`;
      return {
        session: { userId: `user-${id}`, csrf },
        setCookie: serializeCookie(SESSION_COOKIE, `${payload}.${sign(payload)}`, { secure }),
      };
    },
  };
}

/**
 * A Set-Cookie header value: HttpOnly and SameSite=Lax always, Secure over https.
 * @param {string} name
 * @param {string} value
 * @param {{ secure: boolean; path?: string; maxAgeSeconds?: number }} options no `maxAgeSeconds`: a browser-session cookie
 */
export function serializeCookie(name, value, { secure, path = "/", maxAgeSeconds }) {
  const maxAge = maxAgeSeconds === undefined ? "" : `; Max-Age=${maxAgeSeconds}`;
  return `${name}=${value}; Path=${path}${maxAge}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/**
 * One cookie's value from a Cookie request header.
 * @param {string | undefined} header
 * @param {string} name
 */
export function readCookie(header, name) {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
