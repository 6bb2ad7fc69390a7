/**
 * Money and ratios for people at a bank: amounts arrive as decimal strings (the API never sends floats for
 * money) and are grouped and rounded on the string itself, so 12345678901234.565 does not lose cents to
 * binary floating point. LLM costs are small USD figures and keep up to four decimals.
 */
import type { Locale } from "../i18n/locale";

const SYMBOLS: Record<string, string> = { CNY: "¥", USD: "$", HKD: "HK$", EUR: "€" };
const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/** Round a non-negative decimal string to `places` digits, half away from zero. Returns [integer, fraction]. */
function roundDigits(integer: string, fraction: string, places: number): [string, string] {
  const padded = fraction.padEnd(places + 1, "0");
  const kept = integer + padded.slice(0, places);
  const roundUp = Number(padded[places]) >= 5;
  let digits = kept;
  if (roundUp) {
    const chars = kept.split("");
    let i = chars.length - 1;
    while (i >= 0) {
      if (chars[i] === "9") {
        chars[i] = "0";
        i -= 1;
        continue;
      }
      chars[i] = String(Number(chars[i]) + 1);
      break;
    }
    digits = (i < 0 ? "1" : "") + chars.join("");
  }
  const cut = digits.length - places;
  return [digits.slice(0, cut) || "0", digits.slice(cut)];
}

function groupThousands(integer: string): string {
  return integer.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** "1234567.8" → "1,234,567.80". Returns null when the input is not a plain decimal number. */
export function formatDecimal(value: string | number, places = 2): string | null {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value.trim();
  const match = DECIMAL.exec(text.replace(/,/g, ""));
  if (!match) return null;
  const [, sign = "", integer = "0", fraction = ""] = match;
  const [whole, cents] = roundDigits(integer, fraction, places);
  const grouped = groupThousands(whole);
  const isZero = /^[0,]*$/.test(grouped) && /^0*$/.test(cents);
  const prefix = sign === "-" && !isZero ? "-" : "";
  return prefix + grouped + (places > 0 ? "." + cents : "");
}

/** An amount with its currency: "¥1,234.56", "-$12.00"; unknown currencies are written after the number. */
export function formatAmount(value: string | number, currency = "CNY"): string {
  const number = formatDecimal(value, 2);
  if (number === null) return String(value);
  const symbol = SYMBOLS[currency.toUpperCase()];
  if (!symbol) return `${number} ${currency.toUpperCase()}`;
  return number.startsWith("-") ? `-${symbol}${number.slice(1)}` : `${symbol}${number}`;
}

/** LLM cost in USD: two decimals from $1 up, four below so that $0.0031 stays visible. */
export function formatUsd(value: string | number): string {
  const amount = typeof value === "number" ? value : Number(value);
  const places = Number.isFinite(amount) && Math.abs(amount) < 1 && amount !== 0 ? 4 : 2;
  const number = formatDecimal(value, places);
  if (number === null) return String(value);
  return number.startsWith("-") ? `-$${number.slice(1)}` : `$${number}`;
}

/** A ratio 0…1 as a percentage with one decimal; "—" when there is nothing to divide. */
export function formatPercent(ratio: number | null | undefined, locale: Locale = "zh-CN"): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return "—";
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(ratio);
}

/** Token and call counts with grouping: 12345 → "12,345". */
export function formatCount(value: number | null | undefined, locale: Locale = "zh-CN"): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return new Intl.NumberFormat(locale).format(value);
}
