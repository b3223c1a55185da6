import { formatError } from "../errors.js";
import { formatBytes, printable, stripControls, type Output } from "../output.js";

/** What happened to one statement. */
export type ItemEvent =
  | { kind: "saved"; file: string; bytes: number }
  | { kind: "present"; file: string }
  | { kind: "unavailable"; label: string; status: string }
  | { kind: "failed"; label: string; message: string };

/** Progress display of an export. The total grows as pages arrive (the list is read lazily). */
export interface Progress {
  addTotal(count: number): void;
  item(event: ItemEvent): void;
  /** A notice that must not garble the bar. */
  note(text: string): void;
  /** A failure beyond one statement (an account's list), with its error in the usual form. */
  failure(text: string, error: unknown): void;
  stop(): void;
}

export interface Counts {
  done: number;
  saved: number;
  skipped: number;
  failed: number;
  bytes: number;
}

function count(counts: Counts, event: ItemEvent): void {
  counts.done++;
  if (event.kind === "saved") {
    counts.saved++;
    counts.bytes += event.bytes;
  } else if (event.kind === "failed") counts.failed++;
  else counts.skipped++;
}

function describe(event: ItemEvent): string {
  switch (event.kind) {
    case "saved":
      return `saved    ${event.file} (${formatBytes(event.bytes)})`;
    case "present":
      return `exists   ${event.file} (already complete, skipped)`;
    case "unavailable":
      return `skipped  ${printable(event.label)} (${printable(event.status)})`;
    case "failed":
      return `FAILED   ${printable(event.label)}: ${printable(event.message)}`;
  }
}

/** One line per statement on stderr: for logs, pipes and CI (no terminal). */
export function lineProgress(output: Output): Progress {
  const counts: Counts = { done: 0, saved: 0, skipped: 0, failed: 0, bytes: 0 };
  let total = 0;
  return {
    addTotal(n) {
      total += n;
    },
    item(event) {
      count(counts, event);
      output.info(`[${counts.done}/${total}] ${describe(event)}`);
    },
    note(text) {
      output.info(text);
    },
    failure(text, error) {
      output.info(text);
      output.error(error);
    },
    stop() {},
  };
}

/** A progress bar on the terminal (stderr), with failures printed above it. */
export async function barProgress(output: Output, stream: NodeJS.WritableStream = process.stderr): Promise<Progress> {
  // Loaded when a bar is shown: every other command would pay for it at start-up.
  const { default: cliProgress } = await import("cli-progress");
  const counts: Counts = { done: 0, saved: 0, skipped: 0, failed: 0, bytes: 0 };
  const payload = () => ({ saved: counts.saved, skipped: counts.skipped, failed: counts.failed, size: formatBytes(counts.bytes) });
  const multi = new cliProgress.MultiBar(
    {
      stream,
      // Fits an 80-column terminal.
      format: "{bar} {value}/{total} | {saved} saved, {skipped} skipped, {failed} failed | {size} {duration_formatted}",
      barsize: 20,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  const bar = multi.create(0, 0, payload());
  let total = 0;
  let stopped = false;
  return {
    addTotal(n) {
      total += n;
      bar.setTotal(total);
    },
    item(event) {
      count(counts, event);
      if (event.kind === "failed") multi.log(`${output.redact(stripControls(describe(event)))}\n`);
      bar.update(counts.done, payload());
    },
    note(text) {
      if (stopped) output.info(text);
      else multi.log(`${output.redact(stripControls(text))}\n`);
    },
    failure(text, error) {
      if (stopped || output.json) {
        output.info(text);
        output.error(error);
      } else multi.log(`${output.redact(stripControls(`${text}\n${formatError(error)}`))}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      // The bar writes logged lines at its next redraw, and stopping does not redraw: without this,
      // a failure logged in the last tenth of a second never reached the terminal.
      multi.update();
      multi.stop();
    },
  };
}
