import { FdxError } from "./FdxError.js";

/** A link returned by the server that must not be followed (foreign origin, non-http(s) scheme, loop). Nothing was sent. */
export class FdxLinkError extends FdxError {
  static override readonly kind: string = "FdxLinkError";
  declare readonly href: string;

  constructor(message: string, href: string) {
    super(message);
    this.href = href;
  }
}
