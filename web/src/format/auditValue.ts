/** Audit values (already masked by the server) as one line of text: strings as they are, objects as JSON. */
export function formatAuditValue(value: unknown, maxLength = 200): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}
