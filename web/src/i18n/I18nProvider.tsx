/** The language context: current locale, its setter (persisted) and `t`, plus antd's and dayjs's locale. */
import { ConfigProvider } from "antd";
import enUS from "antd/locale/en_US";
import zhCNAntd from "antd/locale/zh_CN";
import dayjs from "dayjs";
import "dayjs/locale/zh-cn";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { LOCALE_STORAGE_KEY, resolveLocale, type Locale } from "./locale";
import type { MessageKey } from "./messages.zh-CN";
import { translate, type Translate, type Vars } from "./translate";

interface I18nValue {
  locale: Locale;
  setLocale: (locale: Locale) => void;
  t: Translate;
}

const I18nContext = createContext<I18nValue | null>(null);

function storedLocale(): string | null {
  try {
    return window.localStorage.getItem(LOCALE_STORAGE_KEY);
  } catch {
    return null; // storage disabled by policy: the browser's language decides
  }
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [locale, setLocaleState] = useState<Locale>(() => resolveLocale(storedLocale(), navigator.languages ?? []));

  const setLocale = useCallback((next: Locale) => {
    setLocaleState(next);
    try {
      window.localStorage.setItem(LOCALE_STORAGE_KEY, next);
    } catch {
      // not persisted; the choice still holds for this page
    }
  }, []);

  useEffect(() => {
    document.documentElement.lang = locale;
    dayjs.locale(locale === "zh-CN" ? "zh-cn" : "en");
  }, [locale]);

  const value = useMemo<I18nValue>(
    () => ({ locale, setLocale, t: (key: MessageKey, vars?: Vars) => translate(locale, key, vars) }),
    [locale, setLocale],
  );
  return (
    <I18nContext.Provider value={value}>
      <ConfigProvider locale={locale === "zh-CN" ? zhCNAntd : enUS} theme={{ token: { colorPrimary: "#1f4e9c" } }}>
        {children}
      </ConfigProvider>
    </I18nContext.Provider>
  );
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useI18n must be used inside <I18nProvider>");
  return value;
}
