import { nodeHttp } from "../node-http.js";
import type { AddressInfo } from "node:net";
import { toNodeListener } from "@fdxkit/client/node";
import { createWebhookHandler, type Notification } from "@fdxkit/client/webhooks";
import type { Command } from "commander";
import type { FdxCommand } from "../command.js";
import { integerOption } from "../config.js";
import { contextFor, type RunState } from "../context.js";
import { UsageError } from "../errors.js";
import { cell, printable } from "../output.js";

interface ListenOptions {
  port: string;
  host: string;
}

function notificationLine(n: Notification): string {
  const payload = n.notificationPayload as { id?: unknown; idType?: unknown } | undefined;
  const fields = [
    n.sentOn ?? new Date().toISOString(),
    `${cell(n.category)}/${cell(n.type)}`,
    `notificationId=${cell(n.notificationId)}`,
    `payload=${cell(payload?.idType)}:${cell(payload?.id)}`,
  ];
  return printable(fields.join("  "));
}

export function registerListen(program: FdxCommand, state: RunState): void {
  program
    .command("listen")
    .description("receive webhooks locally: prints each notification as it arrives, until Ctrl-C")
    .needs("--port <n>", "port to listen on (0: any free port)")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .action(async (options: ListenOptions, command: Command) => {
      const ctx = contextFor(command, state);
      const output = ctx.output;
      const port = integerOption("--port", options.port, 0)!;
      if (port > 65535) throw new UsageError("--port must be at most 65535");

      const handler = createWebhookHandler({
        onNotification: (notification) => {
          output.line(notification, () => notificationLine(notification));
        },
      });
      const server = nodeHttp().createServer(toNodeListener(handler));
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, options.host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      output.info(`Listening for webhooks on http://${host}:${address.port}/ (any path). Press Ctrl-C to stop.`);
      if (ctx.options.verbose) output.info("Each notification is printed on stdout; requests that are not valid notifications are answered 4xx.");

      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          server.close(() => resolve());
          server.closeAllConnections();
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      output.info("Stopped.");
    });
}
