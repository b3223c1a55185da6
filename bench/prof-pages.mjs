import { startServer, TOKEN, PROVIDER_ID, ACCOUNT_ID } from "./src/server.mjs";
import { createClient } from "@fdxkit/client";
const server = await startServer({ pages: 300, perPage: 50 });
const client = createClient({ baseUrl: server.origin, token: TOKEN });
async function loop() { let seen = 0; for await (const s of client.statements.list({ providerId: PROVIDER_ID, accountId: ACCOUNT_ID, limit: 50 })) if (s.statementId) seen++; return seen; }
for (let i = 0; i < 5; i++) await loop();
for (let i = 0; i < 60; i++) await loop();
await server.close();
