/**
 * Message lookup with fallbacks: the current locale's table, then zh-CN (the source of truth), then the key
 * itself, so a missing translation shows up as readable text instead of a blank. `{name}` placeholders are
 * filled from `vars`; an unfilled placeholder is left visible.
 */
import type { Locale } from "./locale";
import { en } from "./messages.en";
import { zhCN, type MessageKey } from "./messages.zh-CN";

export type MessageTable = Partial<Record<MessageKey, string>>;
export type Vars = Record<string, string | number>;

const TABLES: Record<Locale, MessageTable> = { "zh-CN": zhCN, en };

export function interpolate(template: string, vars?: Vars): string {
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}

export function translate(
  locale: Locale,
  key: MessageKey,
  vars?: Vars,
  tables: Record<Locale, MessageTable> = TABLES,
): string {
  const text = tables[locale][key] ?? tables["zh-CN"][key] ?? key;
  return interpolate(text, vars);
}

/** A name the API gives in both languages (e.g. a template's name and name_en), for the current locale. */
export function localizedName(locale: Locale, zh: string | null | undefined, english?: string | null): string {
  if (locale === "en") return english || zh || "";
  return zh || english || "";
}

export type Translate = (key: MessageKey, vars?: Vars) => string;
