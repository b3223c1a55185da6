export { FdxWebhookError } from "../core/errors/index.js";
