export * from "./core/errors/index.js";
