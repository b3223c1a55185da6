import { beforeAll, describe, expect, it } from "vitest";
import {
  FdxValidationError,
  verifyForwardedClientCertificate,
  type ForwardedClientCertificateOptions,
} from "../../src/webhooks/index.js";
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

    it.each([["Hash=zz"], ["By=spiffe://x;Subject=\"CN=a\""], ["Hash"], ["Cert=%E0%A4%A"]])("calls %s malformed", async (xfcc) => {
      expect(await verify({ "x-forwarded-client-cert": xfcc })).toEqual({ verified: false, reason: "malformed" });
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

    it.each([["not a certificate"], [encodeURIComponent("-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----")], ["%ZZ"]])("calls %j malformed", async (value) => {
      expect(await verify({ "x-client-cert": value }, { header: "x-client-cert", format: "pem" })).toEqual({ verified: false, reason: "malformed" });
    });
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
