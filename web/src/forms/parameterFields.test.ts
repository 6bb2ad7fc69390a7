import { describe, expect, it } from "vitest";
import { checkField, fieldsFromSchema, initialValues, toArguments, type ParameterSchema } from "./parameterFields";

// The schema the API publishes for bank_statement_download (finrpa.workflows.loader.describe_template).
const STATEMENT: ParameterSchema = {
  type: "object",
  properties: {
    bank_url: { type: "string", title: "网银地址", format: "uri", description: "企业网银登录页地址" },
    username: { type: "string", title: "用户名" },
    password: { type: "string", title: "密码", writeOnly: true, "x-sensitive": true },
    totp_secret: { type: "string", title: "动态口令种子", writeOnly: true, "x-sensitive": true },
    account_number: { type: "string", title: "账号" },
    start_date: { type: "string", title: "开始日期", format: "date" },
    end_date: { type: "string", title: "结束日期", format: "date" },
    output_path: { type: "string", title: "导出文件名", default: "statement.csv", "x-param-type": "path" },
  },
  required: ["bank_url", "username", "password", "account_number", "start_date", "end_date"],
};

describe("fields from a parameter schema", () => {
  const fields = fieldsFromSchema(STATEMENT);
  const byName = Object.fromEntries(fields.map((f) => [f.name, f]));

  it("keeps the template's order and titles", () => {
    expect(fields.map((f) => f.name)).toEqual(Object.keys(STATEMENT.properties ?? {}));
    expect(byName.account_number?.title).toBe("账号");
  });

  it("chooses an input kind per type and format", () => {
    expect(byName.bank_url?.kind).toBe("url");
    expect(byName.username?.kind).toBe("string");
    expect(byName.start_date?.kind).toBe("date");
    expect(byName.output_path?.kind).toBe("path");
    expect(byName.password?.kind).toBe("secret");
    expect(byName.totp_secret?.kind).toBe("secret");
  });

  it("knows which fields are required and what their defaults are", () => {
    expect(byName.password?.required).toBe(true);
    expect(byName.totp_secret?.required).toBe(false);
    expect(initialValues(fields)).toEqual({ output_path: "statement.csv" });
  });

  it("reads numbers, integers, booleans and enums", () => {
    const other = fieldsFromSchema({
      properties: {
        amount: { type: "number" },
        pages: { type: "integer", default: 10 },
        urgent: { type: "boolean", default: false },
        currency: { type: "string", enum: ["CNY", "USD"] },
      },
    });
    expect(other.map((f) => [f.kind, f.defaultValue])).toEqual([
      ["number", null],
      ["integer", "10"],
      ["boolean", false],
      ["enum", null],
    ]);
    expect(other[3]?.options).toEqual(["CNY", "USD"]);
  });

  it("survives a template without parameters", () => {
    expect(fieldsFromSchema(null)).toEqual([]);
    expect(fieldsFromSchema({ type: "object" })).toEqual([]);
  });
});

describe("checking values like the server's binding", () => {
  const [url, , password, totp, , start, , output] = fieldsFromSchema(STATEMENT);

  it("accepts only secret:// references in sensitive fields", () => {
    expect(checkField(password!, "hunter2")).toBe("not_a_secret_reference");
    expect(checkField(password!, "secret://")).toBe("not_a_secret_reference");
    expect(checkField(password!, "secret://bank/password")).toBeNull();
    expect(checkField(password!, "")).toBe("required");
    expect(checkField(totp!, "")).toBeNull();
  });

  it("refuses impossible dates and non-http addresses", () => {
    expect(checkField(start!, "2026-02-30")).toBe("not_a_date");
    expect(checkField(start!, "2026/01/01")).toBe("not_a_date");
    expect(checkField(start!, "2024-02-29")).toBeNull();
    expect(checkField(url!, "ftp://bank.example/")).toBe("not_a_url");
    expect(checkField(url!, "javascript:alert(1)")).toBe("not_a_url");
    expect(checkField(url!, "http://127.0.0.1:8001/bank/login")).toBeNull();
  });

  it("keeps output paths inside the run's folder", () => {
    expect(checkField(output!, "/etc/passwd")).toBe("path_outside_run_folder");
    expect(checkField(output!, "../other/statement.csv")).toBe("path_outside_run_folder");
    expect(checkField(output!, "C:\\Windows\\x.csv")).toBe("path_outside_run_folder");
    expect(checkField(output!, "2026/statement.csv")).toBeNull();
  });

  it("accepts date pickers' dayjs-like values", () => {
    const picked = { format: (pattern: string) => (pattern === "YYYY-MM-DD" ? "2026-01-31" : "?") };
    expect(checkField(start!, picked)).toBeNull();
  });
});

describe("arguments from the form", () => {
  const fields = fieldsFromSchema(STATEMENT);

  it("converts values and leaves empty optional fields to the server's defaults", () => {
    const result = toArguments(fields, {
      bank_url: " http://127.0.0.1:8001/bank/ ",
      username: "operator1",
      password: "secret://bank/password",
      totp_secret: "",
      account_number: "6222020200112233",
      start_date: { format: () => "2026-01-01" },
      end_date: "2026-01-31",
    });
    expect(result.problems).toEqual({});
    expect(result.arguments).toEqual({
      bank_url: "http://127.0.0.1:8001/bank/",
      username: "operator1",
      password: "secret://bank/password",
      account_number: "6222020200112233",
      start_date: "2026-01-01",
      end_date: "2026-01-31",
    });
  });

  it("reports every problem at once and sends nothing for a refused field", () => {
    const result = toArguments(fields, { password: "plain-text", start_date: "31/01/2026" });
    expect(result.problems).toMatchObject({
      bank_url: "required",
      password: "not_a_secret_reference",
      start_date: "not_a_date",
    });
    expect(result.arguments).not.toHaveProperty("password");
  });

  it("drops thousands separators from amounts and writes booleans as booleans", () => {
    const other = fieldsFromSchema({
      properties: { amount: { type: "number" }, urgent: { type: "boolean" } },
      required: ["amount"],
    });
    expect(toArguments(other, { amount: "1,500,000.00", urgent: true }).arguments).toEqual({
      amount: "1500000.00",
      urgent: true,
    });
    expect(toArguments(other, { amount: "1.2e6" }).problems).toEqual({ amount: "not_a_number" });
  });
});
