// The browser every Chromium test here drives: Debian's package (never a
// downloaded build), started with the flags that work on these machines
// (without the background-networking ones, Chromium's own connections are
// refused by the closed network, many at a time).
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
