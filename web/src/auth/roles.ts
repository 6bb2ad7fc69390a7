/**
 * What the signed-in user may see in the menu, from `/auth/me`. Only a hint for the interface: every action
 * is checked again by the server's permission chain.
 */
import type { Schemas } from "../api/client";

type Me = Schemas["Me"];
export type Role = Me["departments"][number]["roles"][number];

export function hasRole(me: Me, role: Role): boolean {
  return me.is_org_admin || me.is_super_admin || me.departments.some((d) => d.roles.includes(role));
}

export function isAdmin(me: Me): boolean {
  return me.is_org_admin || me.is_super_admin || me.departments.some((d) => d.roles.includes("dept_admin"));
}

export function canApprove(me: Me): boolean {
  return hasRole(me, "approver") || me.grants.some((g) => g.kind === "CROSS_DEPT_APPROVE");
}

export function canAudit(me: Me): boolean {
  return hasRole(me, "auditor");
}
