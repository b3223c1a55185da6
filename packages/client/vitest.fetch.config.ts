import { defineProject, mergeConfig } from "vitest/config";
import node from "./vitest.config.js";

// The client's whole suite again, through globalThis.fetch (what a client gets outside Node, or with `fetch` given).
export default mergeConfig(node, defineProject({ test: { name: "client-fetch", env: { FDXKIT_TRANSPORT: "fetch" } } }));
