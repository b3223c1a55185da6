import type { Command } from "commander";
import type { FdxCommand } from "../command.js";
import { contextFor, type RunState } from "../context.js";
import { keyValues } from "../output.js";

export function registerMaintenance(program: FdxCommand, state: RunState): void {
  const maintenance = program.command("maintenance").description("maintenance notices");
  maintenance
    .command("get")
    .description("show the maintenance notice a notification points to")
    .argument("<id>", "notificationPayload.id of a MAINTENANCE notification")
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextFor(command, state);
      const notice = await ctx.client().maintenance.get(id);
      ctx.output.data(notice, () =>
        keyValues(notice as unknown as Record<string, unknown>, [
          "id",
          "category",
          "type",
          "title",
          "institutionId",
          "startTime",
          "endTime",
          "message",
          "impactedService",
        ]),
      );
    });
}
