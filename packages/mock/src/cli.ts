import { parseArgs } from "node:util";
import { startMockServer } from "./server.js";

const USAGE = `Usage: fdxkit-mock [--port 4010] [--host 127.0.0.1] [--token TOKEN]

Starts the fdxkit sandbox (notifications, consents, statements) over HTTP.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "4010" },
      host: { type: "string", default: "127.0.0.1" },
      token: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Invalid --port ${values.port}\n\n${USAGE}`);
    process.exit(2);
  }

  const mock = await startMockServer({ port, host: values.host, token: values.token });
  const { seed } = mock;
  console.log(`fdxkit mock listening
  base URL:     ${mock.baseUrl}
  products URL: ${mock.productsUrl}
  token:        ${mock.token}
  provider:     ${seed.providerId}
  accounts:     ${seed.accounts.map((a) => a.accountId).join(", ")}
  consents:     ${seed.consents.map((c) => `${c.id} (${c.status})`).join(", ")}
  maintenance:  ${seed.maintenance.map((m) => m.id).join(", ")}
Press Ctrl-C to stop.`);

  const stop = () => {
    mock.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
