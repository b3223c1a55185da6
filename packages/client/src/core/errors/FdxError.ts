const BRAND = Symbol.for("fdxkit.error.kinds");

/**
 * Base class of every error fdxkit throws.
 *
 * `instanceof` works across copies of the package (the ESM and the CJS build
 * loaded side by side, or two versions in one app): each instance carries the
 * kinds of its class chain under a `Symbol.for` key, and `instanceof` checks
 * that brand as well as the prototype chain.
 */
export class FdxError extends Error {
  /** Stable kind used by the cross-realm `instanceof` check. */
  static readonly kind: string = "FdxError";

  constructor(message: string, options?: { cause?: unknown }) {
    // No `cause` property at all when there is none (options with `cause: undefined` would create one).
    super(message, options?.cause === undefined ? undefined : options);
    this.name = (new.target as unknown as { kind: string }).kind;
    // Only a class's own `kind` counts: a subclass without one must not claim its parent's twice.
    const kinds: string[] = [];
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, "kind")) kinds.push((c as unknown as typeof FdxError).kind);
    }
    Object.defineProperty(this, BRAND, { value: kinds });
  }

  /** `instanceof` by prototype chain, or by the brand an instance from another copy of the package carries. */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    // The prototype check answers false for primitives; `?.` keeps null and undefined from throwing.
    const kinds = (instance as Record<symbol, unknown> | null | undefined)?.[BRAND];
    return (
      Function.prototype[Symbol.hasInstance].call(this, instance) ||
      (Object.hasOwn(this, "kind") && Array.isArray(kinds) && kinds.includes((this as { kind: string }).kind))
    );
  }

  /** Type guard equivalent of `instanceof`, for code that prefers a function. */
  static is<T extends abstract new (...args: never[]) => FdxError>(this: T, value: unknown): value is InstanceType<T> {
    return value instanceof (this as unknown as typeof FdxError);
  }

  /** `name`, `message` and the error's own fields (not `cause`), for logs and `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    const { cause: _cause, ...fields } = this as Record<string, unknown>;
    return { name: this.name, message: this.message, ...fields };
  }
}
