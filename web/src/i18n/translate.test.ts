import { describe, expect, it } from "vitest";
import { matchLocale, resolveLocale } from "./locale";
import { en } from "./messages.en";
import { zhCN } from "./messages.zh-CN";
import { interpolate, localizedName, translate, type MessageTable } from "./translate";

describe("locale choice", () => {
  it("keeps a stored choice over the browser's languages", () => {
    expect(resolveLocale("en", ["zh-CN"])).toBe("en");
    expect(resolveLocale("zh-CN", ["en-US"])).toBe("zh-CN");
  });

  it("takes the browser's first supported language when nothing is stored", () => {
    expect(resolveLocale(null, ["fr-FR", "en-GB", "zh-CN"])).toBe("en");
    expect(resolveLocale(null, ["zh-Hans-CN"])).toBe("zh-CN");
  });

  it("falls back to zh-CN for unknown or corrupted values", () => {
    expect(resolveLocale("klingon", ["de-DE"])).toBe("zh-CN");
    expect(resolveLocale("", [])).toBe("zh-CN");
    expect(matchLocale(undefined)).toBeNull();
  });
});

describe("translate", () => {
  it("answers in the asked language", () => {
    expect(translate("zh-CN", "login.submit")).toBe("登录");
    expect(translate("en", "login.submit")).toBe("Sign in");
  });

  it("falls back to zh-CN, then to the key, when a table lacks a message", () => {
    const tables: Record<"zh-CN" | "en", MessageTable> = {
      "zh-CN": { "login.submit": "登录" },
      en: {},
    };
    expect(translate("en", "login.submit", undefined, tables)).toBe("登录");
    expect(translate("en", "login.title", undefined, tables)).toBe("login.title");
  });

  it("fills placeholders and leaves unknown ones visible", () => {
    expect(translate("en", "login.required", { field: "Username" })).toBe("Enter the Username");
    expect(interpolate("{a} of {b}", { a: 1 })).toBe("1 of {b}");
  });

  it("has an English message for every Chinese key and no empty message", () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(zhCN).sort());
    for (const [key, text] of [...Object.entries(zhCN), ...Object.entries(en)]) {
      expect(text.trim(), key).not.toBe("");
    }
  });

  it("uses the placeholders of the Chinese message in the English one", () => {
    const names = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(zhCN) as (keyof typeof zhCN)[]) {
      expect(names(en[key]), key).toEqual(names(zhCN[key]));
    }
  });

  it("picks a bilingual name for the locale, falling back to the other language", () => {
    expect(localizedName("en", "银行流水下载", "Bank statement download")).toBe("Bank statement download");
    expect(localizedName("zh-CN", "银行流水下载", "Bank statement download")).toBe("银行流水下载");
    expect(localizedName("en", "银行流水下载", "")).toBe("银行流水下载");
    expect(localizedName("zh-CN", null, "Only English")).toBe("Only English");
  });
});
