import { isPlainObject } from "./validation.js";

/** The request body as a JSON object, or `undefined` when it is anything else (unparseable JSON included). */
export async function readJsonObject(request: Request): Promise<Record<string, unknown> | undefined> {
  const text = await request.text();
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
