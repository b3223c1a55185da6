// node:http, loaded when a command starts a server. Imported as an ES module,
// newer Node builds its whole export list on load, WebSocket included, which
// loads undici: a cost every command paid at start-up, server or not.
export const nodeHttp = (): typeof import("node:http") => process.getBuiltinModule("node:http") as typeof import("node:http");
