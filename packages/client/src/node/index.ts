export { toNodeListener } from "./listener.js";
export { saveStatement, type SavedStatement } from "./save-statement.js";
