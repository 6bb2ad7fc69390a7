/**
 * Reference data many pages show by name: templates and departments. Loaded once per sign-in and shared;
 * a page that needs fresh data after a change calls `forgetReferenceData()`.
 */
import { useEffect, useState } from "react";
import { api, call, type Schemas } from "../api/client";

export type Template = Schemas["Template"];
export type OrgUnit = Schemas["OrgUnit"];

let templates: Promise<Template[]> | null = null;
let departments: Promise<OrgUnit[]> | null = null;

export function loadTemplates(): Promise<Template[]> {
  templates ??= call(api.GET("/api/v1/templates")).catch((error: unknown) => {
    templates = null;
    throw error;
  });
  return templates;
}

export function loadDepartments(): Promise<OrgUnit[]> {
  departments ??= call(api.GET("/api/v1/departments")).catch((error: unknown) => {
    departments = null;
    throw error;
  });
  return departments;
}

export function forgetReferenceData(): void {
  templates = null;
  departments = null;
}

function useShared<T>(load: () => Promise<T[]>): T[] {
  const [items, setItems] = useState<T[]>([]);
  useEffect(() => {
    let live = true;
    load()
      .then((value) => live && setItems(value))
      .catch(() => live && setItems([])); // names fall back to ids; the page's own request reports errors
    return () => {
      live = false;
    };
  }, [load]);
  return items;
}

export function useTemplates(): Template[] {
  return useShared(loadTemplates);
}

export function useDepartments(): OrgUnit[] {
  return useShared(loadDepartments);
}
