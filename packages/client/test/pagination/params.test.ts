// statements.list parameters: which times are taken and how they are sent,
// and the issue (path and message) for each bad value.
import { describe, expect, it } from "vitest";
import { FdxValidationError } from "../../src/index.js";
import { toListRequest, type StatementListParams } from "../../src/pagination/params.js";

const PA = { providerId: "P", accountId: "A" };
const issuesOf = (params: Partial<StatementListParams>): unknown => {
  try {
    toListRequest({ ...PA, ...params } as StatementListParams);
  } catch (error) {
    expect(error).toBeInstanceOf(FdxValidationError);
    return (error as FdxValidationError).issues;
  }
  throw new Error("accepted");
};
const TIME = "must be a real date (Date or ISO 8601 string)";

describe("toListRequest", () => {
  it.each([
    ["2025-01-15", "2025-01-15T00:00:00.000Z"],
    ["2025-01-15T10:30Z", "2025-01-15T10:30:00.000Z"],
    ["2025-01-15T10:30:05Z", "2025-01-15T10:30:05.000Z"],
    ["2025-01-15T10:30:05.123Z", "2025-01-15T10:30:05.123Z"],
    ["2025-01-15T10:30:05.123456789Z", "2025-01-15T10:30:05.123Z"],
    ["2025-01-15T10:30:05+02:00", "2025-01-15T08:30:05.000Z"],
    ["2025-01-15T10:30:05-0530", "2025-01-15T16:00:05.000Z"],
    ["2025-01-15t10:30:05z", "2025-01-15T10:30:05.000Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
  ])("takes startTime %s and sends %s", (startTime, sent) => {
    expect(toListRequest({ ...PA, startTime }).query.startTime).toBe(sent);
  });

  it("takes a time without an offset as local time, as Date does", () => {
    expect(toListRequest({ ...PA, endTime: "2025-01-15T10:30:05" }).query.endTime).toBe(new Date("2025-01-15T10:30:05").toISOString());
  });

  it.each([
    "2025-01-15T10:30:05Z trailing",
    "x2025-01-15",
    "2025-1-15",
    "2025-01-15T10",
    "2025-01-15T10:30:05.Z",
    "2025-01-15T10:30:05.1234567890Z",
    "2025-01-15T10:30:05+2",
    "2025-01-15 10:30:05Z",
    "2025-02-29",
    "2025-13-01",
    "2025-01-32",
    "2025-01-15T25:00Z",
    "March 5, 2025",
    "",
  ])("refuses startTime %j", (startTime) => {
    expect(issuesOf({ startTime })).toEqual([{ path: "startTime", message: TIME }]);
  });

  it.each([[42], [null], [{}], [new Date(Number.NaN)]])("refuses endTime %s", (endTime) => {
    expect(issuesOf({ endTime: endTime as never })).toEqual([{ path: "endTime", message: TIME }]);
  });

  it("refuses a start after the end, but takes equal ones", () => {
    expect(issuesOf({ startTime: "2025-02-01T00:00:00.001Z", endTime: "2025-02-01" })).toEqual([{ path: "startTime", message: "must not be after endTime" }]);
    expect(toListRequest({ ...PA, startTime: "2025-02-01", endTime: new Date("2025-02-01T00:00:00Z") }).query).toMatchObject({
      startTime: "2025-02-01T00:00:00.000Z",
      endTime: "2025-02-01T00:00:00.000Z",
    });
  });

  it.each([
    [{ offset: -1 }, "offset", "must be an integer >= 0 or a non-empty cursor string"],
    [{ offset: 1.5 }, "offset", "must be an integer >= 0 or a non-empty cursor string"],
    [{ offset: "" }, "offset", "must be an integer >= 0 or a non-empty cursor string"],
    [{ offset: Number.MAX_SAFE_INTEGER + 1 }, "offset", "must be an integer >= 0 or a non-empty cursor string"],
    [{ limit: 0 }, "limit", "must be an integer >= 1"],
    [{ limit: "5" }, "limit", "must be an integer >= 1"],
  ])("refuses %j", (params, path, message) => {
    expect(issuesOf(params as Partial<StatementListParams>)).toEqual([{ path, message }]);
  });

  it("takes offset 0, a cursor and limit 1, and leaves what is absent undefined", () => {
    expect(toListRequest({ ...PA, offset: 0, limit: 1 })).toEqual({
      path: PA,
      query: { startTime: undefined, endTime: undefined, offset: 0, limit: 1 },
    });
    expect(toListRequest({ ...PA, offset: "c-1" }).query.offset).toBe("c-1");
  });
});
