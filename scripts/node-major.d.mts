/** A Node binary of one major, from the npm registry, cached under node_modules/.cache/fdxkit-node/<major>. */
export declare function ensureNode(major: string): { bin: string; version: string; cached: boolean };
