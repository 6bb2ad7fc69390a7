/**
 * Which language the dashboard speaks: zh-CN first, en second. The choice is persisted in localStorage and
 * otherwise taken from the browser's languages; anything else falls back to zh-CN.
 */
export type Locale = "zh-CN" | "en";

export const LOCALES: readonly Locale[] = ["zh-CN", "en"];
export const DEFAULT_LOCALE: Locale = "zh-CN";
export const LOCALE_STORAGE_KEY = "finrpa.locale";

/** The supported locale closest to a BCP 47 tag ("en-GB" → en, "zh-Hans-CN" → zh-CN), or null. */
export function matchLocale(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  const lower = tag.toLowerCase();
  if (lower.startsWith("zh")) return "zh-CN";
  if (lower.startsWith("en")) return "en";
  return null;
}

/** The locale to start with: the stored choice, then the browser's first supported language, then zh-CN. */
export function resolveLocale(stored: string | null, browserLanguages: readonly string[]): Locale {
  const chosen = matchLocale(stored);
  if (chosen) return chosen;
  for (const tag of browserLanguages) {
    const match = matchLocale(tag);
    if (match) return match;
  }
  return DEFAULT_LOCALE;
}
