/** Drops trailing slashes so `${base}${path}` never doubles one. */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, "");
}
