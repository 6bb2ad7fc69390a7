import { describe, expect, it } from "vitest";
import { auditedDepartments, exportFileName, exportNeedsDepartment, exportRequest, initialFilters, searchQuery } from "./auditFilters";

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

describe("audit scope of the signed-in user", () => {
  const auditor = (departments: string[]) => ({
    is_org_admin: false,
    is_super_admin: false,
    departments: departments.map((id) => ({ department_id: id, roles: ["auditor"] })),
  });

  it("starts an auditor of one department scoped to it", () => {
    expect(initialFilters(auditor(["ops"])).deptId).toBe("ops");
    expect(initialFilters(auditor(["ops", "treasury"])).deptId).toBeUndefined();
  });

  it("asks department auditors, not org admins, to choose a department before exporting", () => {
    expect(exportNeedsDepartment(auditor(["ops", "treasury"]), { actionTypes: [] })).toBe(true);
    expect(exportNeedsDepartment(auditor(["ops", "treasury"]), { actionTypes: [], deptId: "ops" })).toBe(false);
    const admin = { is_org_admin: true, is_super_admin: false, departments: [] };
    expect(exportNeedsDepartment(admin, { actionTypes: [] })).toBe(false);
    expect(initialFilters(admin)).toEqual({ actionTypes: [] });
  });

  it("ignores departments where the user is not an auditor", () => {
    const mixed = { is_org_admin: false, is_super_admin: false, departments: [{ department_id: "ops", roles: ["operator"] }] };
    expect(auditedDepartments(mixed)).toEqual([]);
  });
});
