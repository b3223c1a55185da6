// The shapes this package stores are the client's, so a store made here is a
// `ConnectionStore` for `createConnections` with no adapter.
export type { Connection, ConnectionLease, ConnectionStatus, ConnectionStore } from "@fdxkit/client/auth";
