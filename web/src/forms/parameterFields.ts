/**
 * Turns a template's parameter JSON Schema (as the API publishes it from `describe_template`) into the
 * fields of the "start a task" form, checks values the way the server's binding will, and converts the
 * form's values into the run's arguments.
 *
 * Kinds: string, date (`format: date`), url (`format: uri`), path (`format: path` or `x-param-type: path`),
 * number / integer (kept as decimal strings: amounts never pass through floats), boolean, enum, and secret
 * (`writeOnly` / `x-sensitive`): a password input that only accepts a `secret://…` reference, because a
 * credential typed into a run form would travel in the run's arguments instead of staying in the vault.
 */

export type FieldKind = "string" | "date" | "url" | "path" | "number" | "integer" | "boolean" | "enum" | "secret";

export interface ParameterSchemaProperty {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  writeOnly?: boolean;
  "x-sensitive"?: boolean;
  "x-param-type"?: string;
  "x-title-en"?: string;
}

export interface ParameterSchema {
  type?: string;
  properties?: Record<string, ParameterSchemaProperty>;
  required?: string[];
}

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  title: string;
  titleEn: string | null;
  description: string | null;
  required: boolean;
  defaultValue: string | boolean | null;
  options: string[];
}

/** Why a value is refused; the page turns these into sentences in the user's language. */
export type FieldProblem =
  | "required"
  | "not_a_date"
  | "not_a_url"
  | "not_a_number"
  | "not_an_integer"
  | "not_a_secret_reference"
  | "path_outside_run_folder"
  | "not_an_option";

export const SECRET_SCHEME = "secret://";

function kindOf(property: ParameterSchemaProperty): FieldKind {
  if (property.writeOnly || property["x-sensitive"]) return "secret";
  if (property.enum && property.enum.length > 0) return "enum";
  const declared = property["x-param-type"];
  if (declared === "path" || property.format === "path") return "path";
  if (declared === "date" || property.format === "date") return "date";
  if (declared === "url" || property.format === "uri" || property.format === "url") return "url";
  if (property.type === "integer") return "integer";
  if (property.type === "number") return "number";
  if (property.type === "boolean") return "boolean";
  return "string";
}

function defaultOf(kind: FieldKind, value: unknown): string | boolean | null {
  if (value === undefined || value === null) return null;
  if (kind === "boolean") return value === true || value === "true";
  return String(value);
}

/** The form's fields in the schema's order (the template author's order is the order a person fills in). */
export function fieldsFromSchema(schema: ParameterSchema | null | undefined): FieldSpec[] {
  const properties = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const kind = kindOf(property);
    return {
      name,
      kind,
      title: property.title || name,
      titleEn: property["x-title-en"] ?? null,
      description: property.description ?? null,
      required: required.has(name),
      defaultValue: defaultOf(kind, property.default),
      options: (property.enum ?? []).map(String),
    };
  });
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

function isIsoDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

function isRunRelativePath(text: string): boolean {
  if (text.startsWith("/") || text.startsWith("\\") || /^[A-Za-z]:/.test(text) || text.startsWith("~")) {
    return false;
  }
  return !text.split(/[\\/]/).includes("..");
}

function problemOfText(field: FieldSpec, text: string): FieldProblem | null {
  switch (field.kind) {
    case "secret":
      return text.startsWith(SECRET_SCHEME) && text.length > SECRET_SCHEME.length ? null : "not_a_secret_reference";
    case "date":
      return isIsoDate(text) ? null : "not_a_date";
    case "url":
      return isHttpUrl(text) ? null : "not_a_url";
    case "path":
      return isRunRelativePath(text) ? null : "path_outside_run_folder";
    case "number":
      return /^[+-]?\d+(\.\d+)?$/.test(text.replace(/,/g, "")) ? null : "not_a_number";
    case "integer":
      return /^[+-]?\d+$/.test(text.replace(/,/g, "")) ? null : "not_an_integer";
    case "enum":
      return field.options.includes(text) ? null : "not_an_option";
    default:
      return null;
  }
}

/** The first problem with a value, or null when the server's binding will accept it. */
export function checkField(field: FieldSpec, value: unknown): FieldProblem | null {
  if (isEmpty(value)) return field.required && field.defaultValue === null ? "required" : null;
  if (field.kind === "boolean") return null;
  return problemOfText(field, dateText(value));
}

/** A date picker's value (dayjs or Date) or a typed string, as text. */
function dateText(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (value && typeof value === "object" && "format" in value && typeof value.format === "function") {
    return String((value as { format: (pattern: string) => string }).format("YYYY-MM-DD"));
  }
  return String(value);
}

export type ArgumentValue = string | boolean;

/**
 * The run's arguments from the form's values: dates as YYYY-MM-DD, numbers without thousands separators,
 * empty optional fields left out (the server applies defaults), every value checked first.
 */
export function toArguments(
  fields: readonly FieldSpec[],
  values: Record<string, unknown>,
): { arguments: Record<string, ArgumentValue>; problems: Record<string, FieldProblem> } {
  const args: Record<string, ArgumentValue> = {};
  const problems: Record<string, FieldProblem> = {};
  for (const field of fields) {
    const value = values[field.name];
    const problem = checkField(field, value);
    if (problem) {
      problems[field.name] = problem;
      continue;
    }
    if (isEmpty(value)) continue;
    if (field.kind === "boolean") {
      args[field.name] = value === true || value === "true";
    } else if (field.kind === "number" || field.kind === "integer") {
      args[field.name] = dateText(value).replace(/,/g, "");
    } else {
      args[field.name] = dateText(value);
    }
  }
  return { arguments: args, problems };
}

/** Initial form values: each field's default (dates stay strings; the component converts them). */
export function initialValues(fields: readonly FieldSpec[]): Record<string, string | boolean> {
  const values: Record<string, string | boolean> = {};
  for (const field of fields) {
    if (field.defaultValue !== null) values[field.name] = field.defaultValue;
  }
  return values;
}
