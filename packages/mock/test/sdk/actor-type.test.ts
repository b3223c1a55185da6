// The SDK against the sandbox, on the real server and under msw: actorType where a provider requires it
// (as the sandbox records it), and an account without statements as an empty list.
import { FdxBadRequestError, FdxNotFoundError } from "@fdxkit/client";
import { describe, expect, it } from "vitest";
import { isPdf, sdkClient } from "./helpers.js";
import { useEitherMock } from "../helpers.js";

const PROVIDER = "sandbox-bank";

const start = useEitherMock();

describe.each(["server", "msw"] as const)("%s", (kind) => {
  it("a provider that requires the actor type refuses a client without one, and serves one with it", async () => {
    const mock = await start(kind, { requireActorType: [PROVIDER] });
    const { client } = sdkClient(mock);
    const error = await client.statements
      .list({ providerId: PROVIDER, accountId: "ACC-1001" })
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxBadRequestError);
    expect(error).toMatchObject({
      status: 400,
      code: "401",
      message: "Invalid Input",
      debugMessage: `FDX-API-Actor-Type is required by provider "${PROVIDER}"`,
    });

    mock.reset();
    const batch = client.withOptions({ actorType: "batch" });
    const statements = await batch.statements.list({ providerId: PROVIDER, accountId: "ACC-1001", limit: 10 }).toArray();
    expect(statements).toHaveLength(24);
    const available = statements.find((s) => s.status === "AVAILABLE")!;
    expect(isPdf(new Uint8Array(await (await batch.statements.download(available)).arrayBuffer()))).toBe(true);
    // A user's call in between: the call's actor type wins over the client's.
    await batch.statements.list({ providerId: PROVIDER, accountId: "ACC-1002", limit: 24 }, { actorType: "user" }).toArray();
    const consentId = String(mock.seed.consents[0]!.id);
    await batch.consents.get(consentId);
    const seen = mock.requests().map((r) => `${r.method} ${r.path.replace(/\?.*/, "")} ${r.actorType ?? "-"}`);
    const list = `/products/statements/v2/${PROVIDER}`;
    expect(seen).toEqual([
      `GET ${list}/ACC-1001 BATCH`,
      `GET ${list}/ACC-1001 BATCH`,
      `GET ${list}/ACC-1001 BATCH`,
      `GET ${list}/ACC-1001/${encodeURIComponent(String(available.statementId))} BATCH`,
      `GET ${list}/ACC-1002 USER`,
      `GET /consents/v1/${consentId} -`,
    ]);
  });

  it("the account without statements (404 1108) lists as empty; an unknown account still throws 701", async () => {
    const mock = await start(kind);
    const { client, requests } = sdkClient(mock);
    expect(await client.statements.list({ providerId: PROVIDER, accountId: "ACC-1005" }).toArray()).toEqual([]);
    expect(requests).toHaveLength(1);
    const unknown = await client.statements
      .list({ providerId: PROVIDER, accountId: "ACC-404" })
      .toArray()
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(FdxNotFoundError);
    expect(unknown).toMatchObject({ status: 404, code: "701", message: "Account not found" });
  });
});
