/**
 * Idempotency-Key values for POSTs that create things: one key per intent (a form opened once), so a double
 * click or a retry after a timeout returns the first result instead of starting a second run. Built from
 * crypto.getRandomValues, which (unlike randomUUID) also works on plain-HTTP intranet deployments.
 */
export function newIdempotencyKey(random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b)): string {
  const bytes = random(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
