// What a sealed token is bound to besides its key, connection and field: the
// row's version and the plain columns that decide whose data is read. A token
// opens only in the row it was sealed for, as that row was written.
import type { Connection } from "./types.js";

/** The token fields a sealed row holds, in the order they are sealed and opened. */
export const TOKEN_FIELDS = ["idToken", "refreshToken", "accessToken"] as const;
export type TokenField = (typeof TOKEN_FIELDS)[number];

// Absent, null and "" are one value: stores differ in which of them they give
// back for an unset text column, and all three mean "none".
const text = (value: unknown): string => (typeof value === "string" ? value : "");

// Integer milliseconds: a store that keeps times as integers gives back the
// same binding as one that keeps a fraction. Anything but a finite number
// (a hand edit) is bound as null, which no written row has.
// Stryker disable next-line LogicalOperator,ConditionalExpression: a non-finite number rounds to itself, and JSON encodes NaN and Infinity as null too; Number.isFinite is false for anything not a number
const time = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? Math.round(value) : null);

// In order: the order of the accounts is part of what was granted as stored.
const accounts = (value: unknown): unknown =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value.map((a: unknown) => (typeof a === "string" ? a : null)) : null;

/** The columns of `row` a token is bound to, in a fixed order, each value normalised as above. */
export function rowBinding(row: Connection): readonly unknown[] {
  return [
    time(row.version),
    text(row.status),
    text(row.subject),
    text(row.consentId),
    accounts(row.accounts),
    text(row.connector),
    text(row.issuer),
    text(row.clientId),
    time(row.createdAt),
    time(row.expiresAt),
  ];
}

/**
 * The associated data of one sealed value, in one canonical encoding: a JSON
 * array of the purpose, key id, connection id, field and the row's binding.
 * JSON escapes every string, so no value can imitate a separator, and two
 * different rows never encode the same.
 */
export function associatedData(purpose: string, keyId: string, connectionId: string, field: TokenField, binding: readonly unknown[]): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify([purpose, keyId, connectionId, field, ...binding]));
}
