/**
 * The audit explorer's filters and how they become the search query and the export request (the same
 * filters for both, so an export holds exactly the rows on screen).
 */
export const AUDIT_ACTION_TYPES = [
  "NAVIGATE",
  "CLICK",
  "INPUT_TEXT",
  "SELECT",
  "CHECK",
  "PRESS_KEY",
  "UPLOAD",
  "DOWNLOAD",
  "SCROLL",
  "WAIT",
  "EXTRACT",
  "ACCEPT_DIALOG",
  "LOGIN",
  "LOGIN_FAILED",
  "LOGOUT",
  "CREDENTIAL_READ",
  "CREDENTIAL_STORED",
  "CREDENTIAL_DELETED",
  "POLICY_DECISION",
  "APPROVAL_REQUESTED",
  "APPROVAL_DECISION",
  "HUMAN_INTERVENTION",
  "NEEDS_HUMAN",
  "EFFECT",
  "EGRESS_BLOCKED",
  "RUN_FINISHED",
  "TASK_CANCELLED",
  "EXPORT",
  "LINK_ISSUED",
  "VALUE_CHECKED",
] as const;

export interface AuditFilters {
  taskId?: string;
  userId?: string;
  deptId?: string;
  actionTypes: string[];
  /** ISO 8601 instants: since inclusive, until exclusive. */
  since?: string;
  until?: string;
}

export const NO_FILTERS: AuditFilters = { actionTypes: [] };

const clean = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** Query parameters for GET /audit/records (without cursor and limit). */
export function searchQuery(filters: AuditFilters) {
  return {
    task_id: clean(filters.taskId),
    user_id: clean(filters.userId),
    dept_id: clean(filters.deptId),
    action_type: filters.actionTypes.length > 0 ? filters.actionTypes : undefined,
    since: filters.since,
    until: filters.until,
  };
}

/** Body of POST /audit/exports for the same rows (nulls for filters not set). */
export function exportRequest(filters: AuditFilters) {
  const query = searchQuery(filters);
  return {
    task_id: query.task_id ?? null,
    user_id: query.user_id ?? null,
    dept_id: query.dept_id ?? null,
    action_types: query.action_type ?? null,
    since: query.since ?? null,
    until: query.until ?? null,
  };
}

/** A readable file name for the export: finrpa-audit-<org>-<date>.zip. */
export function exportFileName(orgSlug: string, now: Date = new Date()): string {
  const stamp = now.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
  return `finrpa-audit-${orgSlug}-${stamp}.zip`;
}

interface Auditor {
  is_org_admin: boolean;
  is_super_admin: boolean;
  departments: { department_id: string; roles: string[] }[];
}

/** Departments where the user holds the auditor role (org admins audit everything: empty list). */
export function auditedDepartments(user: Auditor): string[] {
  if (user.is_org_admin || user.is_super_admin) return [];
  return user.departments.filter((d) => d.roles.includes("auditor")).map((d) => d.department_id);
}

/** Filters to start with: an auditor of exactly one department starts scoped to it (exports need one). */
export function initialFilters(user: Auditor): AuditFilters {
  const departments = auditedDepartments(user);
  return departments.length === 1 ? { ...NO_FILTERS, deptId: departments[0] } : NO_FILTERS;
}

/** An export needs a department unless the user audits the whole organisation. */
export function exportNeedsDepartment(user: Auditor, filters: AuditFilters): boolean {
  return !(user.is_org_admin || user.is_super_admin) && !filters.deptId?.trim();
}
