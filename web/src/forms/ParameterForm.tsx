/**
 * The "start a task" form generated from a template's parameter schema (see parameterFields.ts for the
 * rules). Each field gets the input its kind needs; values are checked as typed, and `onSubmit` receives the
 * run's arguments already converted (dates as YYYY-MM-DD, amounts as decimal strings).
 */
import { DatePicker, Form, Input, Select, Switch, Typography, type FormInstance } from "antd";
import dayjs from "dayjs";
import type { ReactNode } from "react";
import { useI18n } from "../i18n/I18nProvider";
import type { Locale } from "../i18n/locale";
import type { MessageKey } from "../i18n/messages.zh-CN";
import { checkField, initialValues, toArguments, type ArgumentValue, type FieldSpec } from "./parameterFields";

interface ParameterFormProps {
  fields: FieldSpec[];
  form: FormInstance;
  onSubmit: (args: Record<string, ArgumentValue>) => void;
  disabled?: boolean;
  children?: ReactNode;
}

function fieldLabel(field: FieldSpec, locale: Locale): ReactNode {
  const title = locale === "en" && field.titleEn ? field.titleEn : field.title;
  return (
    <span>
      {title}{" "}
      <Typography.Text type="secondary" code style={{ fontSize: 12 }}>
        {field.name}
      </Typography.Text>
    </span>
  );
}

function fieldInput(field: FieldSpec, t: (key: MessageKey) => string): ReactNode {
  switch (field.kind) {
    case "secret":
      return <Input.Password placeholder={t("form.secret.placeholder")} autoComplete="off" />;
    case "date":
      return <DatePicker format="YYYY-MM-DD" style={{ width: 200 }} />;
    case "url":
      return <Input placeholder="https://" inputMode="url" />;
    case "number":
    case "integer":
      return <Input inputMode="decimal" style={{ width: 240 }} />;
    case "boolean":
      return <Switch />;
    case "enum":
      return <Select options={field.options.map((value) => ({ value, label: value }))} style={{ width: 240 }} />;
    default:
      return <Input autoComplete="off" />;
  }
}

function fieldHelp(field: FieldSpec, t: (key: MessageKey) => string): ReactNode {
  const hints = [field.description];
  if (field.kind === "secret") hints.push(t("form.secret.help"));
  if (field.kind === "path") hints.push(t("form.path.help"));
  const lines = hints.filter((hint): hint is string => Boolean(hint));
  if (lines.length === 0) return undefined;
  return lines.map((line) => <div key={line}>{line}</div>);
}

/** Form values to start with: defaults, with dates as dayjs for the date picker. */
export function formInitialValues(fields: FieldSpec[]): Record<string, unknown> {
  const values: Record<string, unknown> = initialValues(fields);
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === "date" && typeof value === "string") values[field.name] = dayjs(value);
  }
  return values;
}

export function ParameterForm({ fields, form, onSubmit, disabled, children }: ParameterFormProps) {
  const { t, locale } = useI18n();
  const finish = (values: Record<string, unknown>) => {
    const result = toArguments(fields, values);
    if (Object.keys(result.problems).length === 0) onSubmit(result.arguments);
  };
  return (
    <Form form={form} layout="vertical" onFinish={finish} initialValues={formInitialValues(fields)} disabled={disabled}
      name="parameters" style={{ maxWidth: 640 }}>
      {fields.map((field) => (
        <Form.Item
          key={field.name}
          name={field.name}
          label={fieldLabel(field, locale)}
          required={field.required && field.defaultValue === null}
          extra={fieldHelp(field, t)}
          valuePropName={field.kind === "boolean" ? "checked" : "value"}
          rules={[
            {
              validator: async (_rule, value: unknown) => {
                const problem = checkField(field, value);
                if (problem) throw new Error(t(`form.problem.${problem}`));
              },
            },
          ]}
        >
          {fieldInput(field, t)}
        </Form.Item>
      ))}
      {children}
    </Form>
  );
}
