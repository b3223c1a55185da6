// Certificates made for the test run with the openssl CLI: two CAs, a server
// certificate for 127.0.0.1, and client certificates good, foreign, expired.
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A key and certificate in PEM, with the certificate's SHA-256 fingerprint as Node prints it. */
export interface KeyPair {
  key: string;
  cert: string;
  fingerprint256: string;
}

export interface TestCertificates {
  /** The CA that signs the server's and the good clients' certificates. */
  ca: KeyPair;
  /** Another CA, unknown to the server. */
  otherCa: KeyPair;
  /** For 127.0.0.1 and localhost, signed by `ca`. */
  server: KeyPair;
  /** Signed by `ca`. */
  client: KeyPair;
  /** Also signed by `ca`, another key: passes the CA check, fails a pin on `client`. */
  secondClient: KeyPair;
  /** Signed by `otherCa`. */
  foreignClient: KeyPair;
  /** Signed by `ca`, expired yesterday. */
  expiredClient: KeyPair;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}

function pair(dir: string, name: string): KeyPair {
  const cert = readFileSync(join(dir, `${name}.pem`), "utf8");
  return { key: readFileSync(join(dir, `${name}.key`), "utf8"), cert, fingerprint256: new X509Certificate(cert).fingerprint256 };
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** Makes a fresh set in a temporary directory (removed before returning). About 0.2 s. */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "fdxkit-certs-"));
  try {
    for (const ca of ["ca", "otherCa"]) {
      openssl(dir, ["req", "-x509", ...EC, "-keyout", `${ca}.key`, "-out", `${ca}.pem`, "-days", "2", "-subj", `/CN=fdxkit test ${ca}`]);
    }
    writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    const issue = (name: string, ca: string, days: string, subject: string, ext?: string) => {
      openssl(dir, ["req", ...EC, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
      openssl(dir, [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        `${ca}.pem`,
        "-CAkey",
        `${ca}.key`,
        "-CAcreateserial",
        "-days",
        days,
        "-out",
        `${name}.pem`,
        ...(ext ? ["-extfile", ext] : []),
      ]);
    };
    issue("server", "ca", "2", "/CN=127.0.0.1", "server.ext");
    issue("client", "ca", "2", "/CN=fdx-sender/O=fdxkit test");
    issue("secondClient", "ca", "2", "/CN=fdx-sender-2");
    issue("foreignClient", "otherCa", "2", "/CN=fdx-sender");
    // A negative validity: notAfter lies a day before notBefore (now), so it is expired from the start.
    issue("expiredClient", "ca", "-1", "/CN=fdx-sender-expired");
    return {
      ca: pair(dir, "ca"),
      otherCa: pair(dir, "otherCa"),
      server: pair(dir, "server"),
      client: pair(dir, "client"),
      secondClient: pair(dir, "secondClient"),
      foreignClient: pair(dir, "foreignClient"),
      expiredClient: pair(dir, "expiredClient"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
