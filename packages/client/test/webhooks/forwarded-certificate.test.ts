import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toNodeListener } from "../../src/node/index.js";
import { FdxValidationError, verifyForwardedClientCertificate, type ForwardedClientCertificateOptions } from "../../src/webhooks/index.js";
import { makeCertificates, type TestCertificates } from "../support/certificates.js";

let certs: TestCertificates;
beforeAll(() => {
  certs = makeCertificates();
});

const hex = (fingerprint: string) => fingerprint.replace(/:/g, "").toLowerCase();

function request(headers: Record<string, string> = {}): Request {
  return new Request("https://receiver.test/webhooks", { method: "POST", headers });
}

function verify(headers: Record<string, string>, options: Partial<ForwardedClientCertificateOptions> = {}) {
  return verifyForwardedClientCertificate(request(headers), { fingerprints: [certs.client.fingerprint256], fromProxy: true, ...options });
}

describe("verifyForwardedClientCertificate", () => {
  describe("x-forwarded-client-cert (Envoy, Istio)", () => {
    it("verifies the Hash of a pinned certificate", async () => {
      const xfcc = `By=spiffe://cluster.local/ns/hooks/sa/receiver;Hash=${hex(certs.client.fingerprint256)};Subject="CN=fdx-sender,O=fdxkit test";URI=`;
      expect(await verify({ "x-forwarded-client-cert": xfcc })).toEqual({ verified: true, fingerprint256: certs.client.fingerprint256 });
    });

    it("refuses a certificate that is not pinned", async () => {
      expect(await verify({ "x-forwarded-client-cert": `Hash=${hex(certs.secondClient.fingerprint256)}` })).toEqual({ verified: false, reason: "not-pinned" });
    });

    it("reads the last element, the one the nearest proxy added", async () => {
      const pinned = `Hash=${hex(certs.client.fingerprint256)}`;
      const other = `Hash=${hex(certs.secondClient.fingerprint256)}`;
      expect(await verify({ "x-forwarded-client-cert": `${pinned},${other}` })).toEqual({ verified: false, reason: "not-pinned" });
      expect((await verify({ "x-forwarded-client-cert": `${other},${pinned}` })).verified).toBe(true);
    });

    it("keeps commas, semicolons and escaped quotes inside quoted values", async () => {
      const xfcc = `Subject="CN=x\\",Hash=00;O=y,z";Hash=${hex(certs.client.fingerprint256)};DNS=a`;
      expect((await verify({ "x-forwarded-client-cert": xfcc })).verified).toBe(true);
    });

    it("hashes the Cert when there is no Hash", async () => {
      const xfcc = `By=spiffe://x;Cert="${encodeURIComponent(certs.client.cert)}";Subject="CN=fdx-sender"`;
      expect(await verify({ "x-forwarded-client-cert": xfcc })).toEqual({ verified: true, fingerprint256: certs.client.fingerprint256 });
    });

    it.each([["Hash=zz"], ['By=spiffe://x;Subject="CN=a"'], ["Hash"], ["Cert=%E0%A4%A"]])("calls %s malformed", async (xfcc) => {
      expect(await verify({ "x-forwarded-client-cert": xfcc })).toEqual({ verified: false, reason: "malformed" });
    });
  });

  describe("forged by the client, behind a proxy that appends instead of replacing", () => {
    // The sender holds secondClient's certificate (the proxy verifies it: it comes from the CA) but writes
    // the pinned client's fingerprint into the header itself; Istio's element has an empty quoted Subject.
    const proxyElement = () =>
      `By=spiffe://cluster.local/ns/hooks/sa/receiver;Hash=${hex(certs.secondClient.fingerprint256)};Subject="";URI=spiffe://cluster.local/ns/fdx/sa/sender`;
    const pinnedHash = () => `Hash=${hex(certs.client.fingerprint256)}`;
    const joined = (lines: string[]) => {
      const headers = new Headers();
      for (const line of lines) headers.append("x-forwarded-client-cert", line);
      return new Request("https://receiver.test/webhooks", { method: "POST", headers });
    };
    const verifyRequest = (r: Request, options: Partial<ForwardedClientCertificateOptions> = {}) =>
      verifyForwardedClientCertificate(r, { fingerprints: [certs.client.fingerprint256], fromProxy: true, ...options });

    it("calls an unclosed quote that swallows the proxy's element malformed (Envoy APPEND_FORWARD)", async () => {
      const value = `${pinnedHash()};Subject="${","}${proxyElement()}`;
      expect(await verify({ "x-forwarded-client-cert": value })).toEqual({ verified: false, reason: "malformed" });
    });

    it("calls a trailing backslash inside a quote malformed, which would escape the proxy's comma", async () => {
      const value = `${pinnedHash()};Subject="CN=x\\${","}${proxyElement()}`;
      expect(await verify({ "x-forwarded-client-cert": value })).toEqual({ verified: false, reason: "malformed" });
    });

    it("calls the client's line and a proxy-added second line malformed, in either order", async () => {
      expect(await verifyRequest(joined([proxyElement(), pinnedHash()]))).toEqual({ verified: false, reason: "malformed" });
      expect(await verifyRequest(joined([pinnedHash(), proxyElement()]))).toEqual({ verified: false, reason: "malformed" });
      expect(await verifyRequest(joined([`${pinnedHash()};Subject="`, proxyElement()]))).toEqual({ verified: false, reason: "malformed" });
    });

    it("calls junk before a pinned PEM malformed, a second line included", async () => {
      const options = { header: "x-client-cert", format: "pem" } as const;
      const pinned = encodeURIComponent(certs.client.cert);
      const proxyLine = encodeURIComponent(certs.secondClient.cert);
      const broken = encodeURIComponent("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n");
      expect(await verify({ "x-client-cert": `junk${pinned}` }, options)).toEqual({ verified: false, reason: "malformed" });
      expect(await verify({ "x-client-cert": `${broken}${pinned}` }, options)).toEqual({ verified: false, reason: "malformed" });
      expect(await verify({ "x-client-cert": `${pinned}junk` }, options)).toEqual({ verified: false, reason: "malformed" });
      const r = new Request("https://receiver.test/webhooks", {
        method: "POST",
        headers: [
          ["x-client-cert", "-"],
          ["x-client-cert", pinned],
        ],
      });
      expect(await verifyRequest(r, options)).toEqual({ verified: false, reason: "malformed" });
      const lines = new Request("https://receiver.test/webhooks", {
        method: "POST",
        headers: [
          ["x-client-cert", pinned],
          ["x-client-cert", proxyLine],
        ],
      });
      expect(await verifyRequest(lines, options)).toEqual({ verified: false, reason: "malformed" });
    });

    describe("through toNodeListener, header lines as they come off the wire", () => {
      let server: http.Server;
      let url: string;
      beforeAll(async () => {
        // Answers with what verifyForwardedClientCertificate found in the Request the listener built.
        const pem = { header: "x-client-cert", format: "pem" } as const;
        server = http.createServer(toNodeListener(async (r) => Response.json(await verifyRequest(r, r.headers.has(pem.header) ? pem : {}))));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      });
      afterAll(() => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      });

      const send = (name: string, lines: string[]) =>
        new Promise<unknown>((resolve, reject) => {
          // An array value is sent as that many header lines, as a client and an appending proxy would.
          const outgoing = http.request(url, { method: "POST", headers: { [name]: lines } }, (res) => {
            let text = "";
            res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
            res.on("end", () => resolve(JSON.parse(text)));
          });
          outgoing.on("error", reject).end();
        });

      it("gets the same answers as a Request built by hand", async () => {
        const pinned = encodeURIComponent(certs.client.cert);
        expect(await send("x-forwarded-client-cert", [proxyElement(), pinnedHash()])).toEqual({ verified: false, reason: "malformed" });
        expect(await send("x-forwarded-client-cert", [`${pinnedHash()};Subject="`, proxyElement()])).toEqual({ verified: false, reason: "malformed" });
        expect(await send("x-forwarded-client-cert", [`${pinnedHash()};Subject=",${proxyElement()}`])).toEqual({ verified: false, reason: "malformed" });
        expect(await send("x-client-cert", [pinned, encodeURIComponent(certs.secondClient.cert)])).toEqual({ verified: false, reason: "malformed" });
        // One line, well formed: still verified.
        expect(await send("x-forwarded-client-cert", [pinnedHash()])).toEqual({ verified: true, fingerprint256: certs.client.fingerprint256 });
      });
    });

    it("still verifies the proxy's own element appended to a well-formed client value", async () => {
      // APPEND_FORWARD with nothing forged: the last element is the proxy's, whatever the client wrote before it.
      const pinnedElement = `By=spiffe://x;${pinnedHash()};Subject=""`;
      expect((await verify({ "x-forwarded-client-cert": `${proxyElement()},${pinnedElement}` })).verified).toBe(true);
      expect(await verify({ "x-forwarded-client-cert": `${pinnedHash()},${proxyElement()}` })).toEqual({ verified: false, reason: "not-pinned" });
    });
  });

  describe("pem (nginx $ssl_client_escaped_cert, AWS ALB)", () => {
    it("hashes a URL-encoded PEM certificate with Web Crypto", async () => {
      const options = { header: "x-client-cert", format: "pem" } as const;
      expect(await verify({ "x-client-cert": encodeURIComponent(certs.client.cert) }, options)).toEqual({
        verified: true,
        fingerprint256: certs.client.fingerprint256,
      });
      expect(await verify({ "x-client-cert": encodeURIComponent(certs.foreignClient.cert) }, options)).toEqual({ verified: false, reason: "not-pinned" });
      // The leaf is the first certificate of a chain.
      expect((await verify({ "x-client-cert": encodeURIComponent(certs.client.cert + certs.ca.cert) }, options)).verified).toBe(true);
    });

    it.each([["not a certificate"], [encodeURIComponent("-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----")], ["%ZZ"]])(
      "calls %j malformed",
      async (value) => {
        expect(await verify({ "x-client-cert": value }, { header: "x-client-cert", format: "pem" })).toEqual({ verified: false, reason: "malformed" });
      },
    );
  });

  describe("sha256", () => {
    it("compares a forwarded fingerprint, with or without colons", async () => {
      const options = { header: "x-client-sha256", format: "sha256" } as const;
      expect((await verify({ "x-client-sha256": hex(certs.client.fingerprint256) }, options)).verified).toBe(true);
      expect((await verify({ "x-client-sha256": ` ${certs.client.fingerprint256} ` }, options)).verified).toBe(true);
      // A SHA-1 fingerprint (nginx's $ssl_client_fingerprint) is not a SHA-256 one.
      expect(await verify({ "x-client-sha256": "a".repeat(40) }, options)).toEqual({ verified: false, reason: "malformed" });
    });
  });

  describe("fromProxy", () => {
    const pinnedHeader = () => ({ "x-forwarded-client-cert": `Hash=${hex(certs.client.fingerprint256)}`, "x-proxy-secret": "s3cret" });

    it("believes no header on a request that did not come through the proxy", async () => {
      expect(await verify(pinnedHeader(), { fromProxy: false })).toEqual({ verified: false, reason: "not-from-proxy" });
    });

    it("asks the function with the request, and awaits it", async () => {
      const seen: Request[] = [];
      const fromProxy = async (r: Request) => (seen.push(r), r.headers.get("x-proxy-secret") === "s3cret");
      const r = request(pinnedHeader());
      expect((await verifyForwardedClientCertificate(r, { fingerprints: [certs.client.fingerprint256], fromProxy })).verified).toBe(true);
      expect(seen).toEqual([r]);
      const direct = request({ "x-forwarded-client-cert": pinnedHeader()["x-forwarded-client-cert"] });
      expect(await verifyForwardedClientCertificate(direct, { fingerprints: [certs.client.fingerprint256], fromProxy })).toEqual({
        verified: false,
        reason: "not-from-proxy",
      });
    });

    it("takes only true, not a truthy value", async () => {
      const fromProxy = (() => "yes") as unknown as () => boolean;
      expect(await verify(pinnedHeader(), { fromProxy })).toEqual({ verified: false, reason: "not-from-proxy" });
    });
  });

  it("says when the proxy forwarded no certificate", async () => {
    expect(await verify({})).toEqual({ verified: false, reason: "missing" });
    expect(await verify({ "x-forwarded-client-cert": " " })).toEqual({ verified: false, reason: "missing" });
  });

  it.each([
    [{ fingerprints: [], fromProxy: true }, ["fingerprints"]],
    [{ fingerprints: ["AB"], fromProxy: "yes" }, ["fingerprints.0", "fromProxy"]],
    [{ fingerprints: ["a".repeat(64)], fromProxy: true, header: "bad header", format: "der" }, ["header", "format"]],
  ])("refuses options it cannot use %#", async (options, paths) => {
    const error = await verifyForwardedClientCertificate(request(), options as unknown as ForwardedClientCertificateOptions).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues.map((i) => i.path)).toEqual(paths);
  });

  it("refuses options that are not an object", async () => {
    await expect(verifyForwardedClientCertificate(request(), undefined as unknown as ForwardedClientCertificateOptions)).rejects.toThrow(FdxValidationError);
  });
});
