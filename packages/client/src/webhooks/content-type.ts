/** True for `application/json` or `application/<anything>+json` (RFC 6839), in any case, with any parameters. */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const essence = header.split(";", 1)[0]!.trim().toLowerCase();
  const slash = essence.indexOf("/");
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a slash first leaves an empty type, which is not "application" either
  if (slash <= 0) return false;
  const type = essence.slice(0, slash);
  const subtype = essence.slice(slash + 1);
  return type === "application" && (subtype === "json" || (subtype.endsWith("+json") && subtype.length > "+json".length));
}
