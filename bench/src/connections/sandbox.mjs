// The sandbox (@fdxkit/mock, `requireUserTokens: true`) in a process of its
// own, forked by connections.mjs, so its work never shares an event loop with
// the client being measured. It sends its URLs once listening, and answers
// each `{ authorize: url }` with the callback URL the user's browser would
// land on (mock.authorize).
import { startMockServer } from "@fdxkit/mock";

const mock = await startMockServer({ requireUserTokens: true });
process.on("message", async (message) => {
  try {
    process.send({ callbackUrl: await mock.authorize(message.authorize) });
  } catch (error) {
    process.send({ error: String(error) });
  }
});
process.on("disconnect", () => void mock.close().finally(() => process.exit(0)));
process.send({
  baseUrl: mock.baseUrl,
  productsUrl: mock.productsUrl,
  idpUrl: mock.idpUrl,
  clientId: mock.clientId,
  clientSecret: mock.clientSecret,
  serviceToken: mock.token,
  accountId: mock.seed.users[0].accounts[0],
});
