/**
 * Times as operators read them: "2026-01-05 08:00:03" in the viewer's time zone (or a given one), durations
 * as "850 ms" / "12.4 s" / "3 min 05 s". Timestamps from the API are ISO 8601 with an offset.
 */
import type { Locale } from "../i18n/locale";

function parts(date: Date, timeZone?: string): Record<string, string> {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  const out: Record<string, string> = {};
  for (const part of format.formatToParts(date)) out[part.type] = part.value;
  return out;
}

/** "YYYY-MM-DD HH:mm:ss" (the same in both languages: it is what bank staff expect); "—" for no value. */
export function formatDateTime(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const p = parts(date, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** "YYYY-MM-DD" of a timestamp or a plain date. */
export function formatDate(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return "—";
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return iso;
  return formatDateTime(iso, timeZone).slice(0, 10);
}

export function formatDuration(ms: number | null | undefined, locale: Locale = "zh-CN"): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = String(totalSeconds % 60).padStart(2, "0");
  if (minutes < 60) return locale === "zh-CN" ? `${minutes} 分 ${seconds} 秒` : `${minutes} min ${seconds} s`;
  const hours = Math.floor(minutes / 60);
  const rest = String(minutes % 60).padStart(2, "0");
  return locale === "zh-CN" ? `${hours} 小时 ${rest} 分` : `${hours} h ${rest} min`;
}
