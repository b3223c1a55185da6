// The SDK against the sandbox IdP's results: the consent of an approval
// through `client.consents.get`, statements with the user's id token, and
// the 602 and 701 of `requireUserTokens` as the SDK's typed errors.
import { FdxNotFoundError, FdxUnauthorizedError } from "@fdxkit/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";
import { authorizationRequest, claimsOf, exchange } from "../idp-helpers.js";
import { sdkClient } from "./helpers.js";

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ requireUserTokens: true });
});
afterAll(() => mock?.close());

it("reads an approval's consent with client.consents.get and the user's statements with their id token", async () => {
  const request = authorizationRequest(mock);
  const tokens = await exchange(mock, await mock.authorize(request.url, { accounts: ["ACC-1002"] }), request);
  const consentId = claimsOf(tokens.id_token).grant_id as string;

  const { client } = sdkClient(mock);
  const consent = await client.consents.get(consentId);
  expect(consent).toMatchObject({ id: consentId, status: "ACTIVE", resources: [{ resourceType: "ACCOUNT", resourceId: "ACC-1002" }] });

  const { client: user } = sdkClient(mock, { token: tokens.id_token });
  const statements = await user.statements.list({ providerId: "sandbox-bank", accountId: "ACC-1002" }).toArray();
  expect(statements).toHaveLength(24);

  const outside = await user.statements
    .list({ providerId: "sandbox-bank", accountId: "ACC-1001" })
    .toArray()
    .catch((e: unknown) => e);
  expect(outside).toBeInstanceOf(FdxNotFoundError);
  expect((outside as FdxNotFoundError).code).toBe("701");

  await mock.revokeConsent(consentId);
  const revoked = await user.statements
    .list({ providerId: "sandbox-bank", accountId: "ACC-1002" })
    .toArray()
    .catch((e: unknown) => e);
  expect(revoked).toBeInstanceOf(FdxUnauthorizedError);
  expect((revoked as FdxUnauthorizedError).code).toBe("602");
  expect((await client.consents.get(consentId)).status).toBe("REVOKED");
});
