import type { ConsentGrant } from "@fdxkit/client";
import type { Command } from "commander";
import type { FdxCommand } from "../command.js";
import { contextFor, type RunState } from "../context.js";
import { cell, keyValues, table } from "../output.js";

function consentText(consent: ConsentGrant): string {
  const { parties, resources, ...rest } = consent as ConsentGrant & { parties?: unknown; resources?: unknown };
  const parts = [keyValues(rest as Record<string, unknown>, ["id", "status", "createdTime"])];
  if (Array.isArray(parties) && parties.length > 0) {
    const rows = parties.map((p: Record<string, unknown>) => [p.type, p.name, p.registeredEntityId]);
    parts.push(`\nParties\n${table(["type", "name", "registeredEntityId"], rows)}`);
  }
  if (Array.isArray(resources) && resources.length > 0) {
    const rows = resources.map((r: Record<string, unknown>) => [r.resourceType, r.resourceId, cell(r.dataClusters)]);
    parts.push(`\nResources\n${table(["resourceType", "resourceId", "dataClusters"], rows)}`);
  }
  return parts.join("\n");
}

export function registerConsents(program: FdxCommand, state: RunState): void {
  const consents = program.command("consents").description("consent grants");
  consents
    .command("get")
    .description("show a consent grant (its status says whether the account may still be used)")
    .argument("<id>", "consent id")
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextFor(command, state);
      const consent = await ctx.client().consents.get(id);
      ctx.output.data(consent, () => consentText(consent));
    });
}
