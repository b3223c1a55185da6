export { toNodeListener } from "./listener.js";
