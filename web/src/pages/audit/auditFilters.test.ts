import { describe, expect, it } from "vitest";
import { exportFileName, exportRequest, searchQuery } from "./auditFilters";

describe("audit filters", () => {
  it("sends only the filters that are set, trimmed", () => {
    expect(searchQuery({ taskId: "  abc ", userId: "", actionTypes: [] })).toEqual({
      task_id: "abc",
      user_id: undefined,
      dept_id: undefined,
      action_type: undefined,
      since: undefined,
      until: undefined,
    });
  });

  it("exports exactly the rows the search shows", () => {
    const filters = {
      deptId: "d1",
      actionTypes: ["CLICK", "INPUT_TEXT"],
      since: "2026-01-01T00:00:00.000Z",
      until: "2026-02-01T00:00:00.000Z",
    };
    const query = searchQuery(filters);
    const body = exportRequest(filters);
    expect(body).toEqual({
      task_id: null,
      user_id: null,
      dept_id: query.dept_id,
      action_types: query.action_type,
      since: query.since,
      until: query.until,
    });
  });

  it("names the export after the organisation and the time", () => {
    expect(exportFileName("demo-bank", new Date("2026-03-04T05:06:07Z"))).toBe("finrpa-audit-demo-bank-20260304-050607.zip");
  });
});
