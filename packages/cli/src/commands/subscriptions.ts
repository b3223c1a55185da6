import type { Subscription, SubscriptionInput, SubscriptionUpdate } from "@fdxkit/client";
import type { Command } from "commander";
import type { FdxCommand } from "../command.js";
import { contextFor, type RunState } from "../context.js";
import { keyValues, table } from "../output.js";

const COLUMNS = ["subscriptionId", "category", "type", "callbackUrl", "effectiveDate", "callbackEmail"] as const;

function subscriptionText(subscription: Subscription): string {
  return keyValues(subscription as unknown as Record<string, unknown>, COLUMNS);
}

export function registerSubscriptions(program: FdxCommand, state: RunState): void {
  const subscriptions = program.command("subscriptions").description("notification subscriptions: list, get, create, update, delete, test");

  subscriptions
    .command("list")
    .description("list all subscriptions")
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextFor(command, state);
      const list = await ctx.client().subscriptions.list();
      ctx.output.data(list, () =>
        list.length === 0
          ? "No subscriptions."
          : table(
              COLUMNS,
              list.map((s) => COLUMNS.map((c) => (s as Record<string, unknown>)[c])),
            ),
      );
    });

  subscriptions
    .command("get")
    .description("show one subscription")
    .argument("<id>", "subscription id")
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextFor(command, state);
      const subscription = await ctx.client().subscriptions.get(id);
      ctx.output.data(subscription, () => subscriptionText(subscription));
    });

  subscriptions
    .command("create")
    .description("subscribe a callback URL to a category and type of notification")
    .needs("--category <category>", "MAINTENANCE or CONSENT")
    .needs("--type <type>", "SERVICE, PLANNED_OUTAGE, CONSENT_UPDATED or CONSENT_REVOKED")
    .needs("--callback-url <url>", "https:// URL the notifications are posted to (http://localhost with --allow-insecure-callback-urls)")
    .option("--effective-date <YYYY-MM-DD>", "when the subscription takes effect")
    .option("--callback-email <email>", "contact e-mail address")
    .action(async (options: { category: string; type: string; callbackUrl: string; effectiveDate?: string; callbackEmail?: string }, command: Command) => {
      const ctx = contextFor(command, state);
      // The SDK checks every field (FdxValidationError, exit 2) before anything is sent.
      const input = {
        category: options.category,
        type: options.type,
        callbackUrl: options.callbackUrl,
        ...(options.effectiveDate !== undefined ? { effectiveDate: options.effectiveDate } : {}),
        ...(options.callbackEmail !== undefined ? { callbackEmail: options.callbackEmail } : {}),
      } as SubscriptionInput;
      const subscription = await ctx.client().subscriptions.create(input);
      ctx.output.data(subscription, () => subscriptionText(subscription));
    });

  subscriptions
    .command("update")
    .description("change a subscription's callback URL, effective date and/or e-mail")
    .argument("<id>", "subscription id")
    .option("--callback-url <url>", "new callback URL")
    .option("--effective-date <YYYY-MM-DD>", "new effective date")
    .option("--callback-email <email>", "new contact e-mail address")
    .action(async (id: string, options: { callbackUrl?: string; effectiveDate?: string; callbackEmail?: string }, command: Command) => {
      const ctx = contextFor(command, state);
      const patch: SubscriptionUpdate = {
        ...(options.callbackUrl !== undefined ? { callbackUrl: options.callbackUrl } : {}),
        ...(options.effectiveDate !== undefined ? { effectiveDate: options.effectiveDate } : {}),
        ...(options.callbackEmail !== undefined ? { callbackEmail: options.callbackEmail } : {}),
      };
      const subscription = await ctx.client().subscriptions.update(id, patch);
      ctx.output.data(subscription, () => subscriptionText(subscription));
    });

  subscriptions
    .command("delete")
    .description("delete a subscription")
    .argument("<id>", "subscription id")
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextFor(command, state);
      await ctx.client().subscriptions.delete(id);
      ctx.output.data({ deleted: true, subscriptionId: id }, () => `Deleted subscription ${id}.`);
    });

  subscriptions
    .command("test")
    .description("ask the service to post a test notification to the subscription's callback URL (sandbox)")
    .argument("<id>", "subscription id")
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextFor(command, state);
      const notification = await ctx.client().subscriptions.sendTestEvent(id);
      ctx.output.data(notification, () =>
        keyValues(notification as unknown as Record<string, unknown>, ["notificationId", "category", "type", "sentOn", "notificationPayload", "url"]),
      );
    });
}
