/** zh-CN / English switch; the choice is remembered in this browser. */
import { Segmented } from "antd";
import type { Locale } from "./locale";
import { useI18n } from "./I18nProvider";

export function LanguageSwitch() {
  const { locale, setLocale, t } = useI18n();
  return (
    <Segmented<Locale>
      aria-label={t("app.language")}
      size="small"
      value={locale}
      onChange={setLocale}
      options={[
        { label: "中文", value: "zh-CN" },
        { label: "English", value: "en" },
      ]}
      data-testid="language-switch"
    />
  );
}
