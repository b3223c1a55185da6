/**
 * One signal that aborts with either of two. `AbortSignal.any` leaves no
 * listener on a long-lived caller signal (hundreds of page requests would
 * otherwise pile them up); runtimes without it get listeners instead.
 */
export function anySignal(caller: AbortSignal | undefined, own: AbortSignal): AbortSignal {
  if (!caller) return own;
  if (typeof AbortSignal.any === "function") return AbortSignal.any([caller, own]);
  const controller = new AbortController();
  const forward = (signal: AbortSignal) => () => controller.abort(signal.reason);
  caller.addEventListener("abort", forward(caller), { once: true });
  own.addEventListener("abort", forward(own), { once: true });
  return controller.signal;
}
