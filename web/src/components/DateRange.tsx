/** A day range (UTC days, as the metrics routes take them), last 30 days by default. */
import { DatePicker } from "antd";
import dayjs, { type Dayjs } from "dayjs";
import { useState } from "react";
import { useI18n } from "../i18n/I18nProvider";

export interface DayRange {
  since: string;
  until: string;
}

export function defaultRange(days = 30): DayRange {
  const until = dayjs();
  return { since: until.subtract(days - 1, "day").format("YYYY-MM-DD"), until: until.format("YYYY-MM-DD") };
}

export function useDayRange(days = 30): [DayRange, (range: DayRange) => void] {
  return useState<DayRange>(() => defaultRange(days));
}

export function DayRangePicker({ value, onChange }: { value: DayRange; onChange: (range: DayRange) => void }) {
  const { t } = useI18n();
  return (
    <DatePicker.RangePicker
      allowClear={false}
      value={[dayjs(value.since), dayjs(value.until)]}
      onChange={(range) => {
        const [start, end] = (range ?? []) as [Dayjs | null, Dayjs | null];
        if (start && end) onChange({ since: start.format("YYYY-MM-DD"), until: end.format("YYYY-MM-DD") });
      }}
      aria-label={t("range.label")}
    />
  );
}
