import { it, expect } from "vitest"; import * as mock from "../src/index.js"; it("loads", () => { expect(typeof mock).toBe("object"); });
