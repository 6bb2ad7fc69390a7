import { describe, expect, it } from "vitest";
import { ApiProblem } from "../api/problem";
import { translate } from "../i18n/translate";
import type { MessageKey } from "../i18n/messages.zh-CN";
import { describeProblem } from "./problemText";

const zh = (key: MessageKey) => translate("zh-CN", key);
const en = (key: MessageKey) => translate("en", key);

describe("problem sentences", () => {
  const wrongPassword = ApiProblem.from(401, {
    detail: "The organisation, username or password is not right.",
    code: "authentication_failed",
    request_id: "r1",
  });

  it("says a wrong password in Chinese for zh-CN users, keeping the request id", () => {
    expect(describeProblem(wrongPassword, zh, "zh-CN")).toBe("机构代码、用户名或密码不正确。 (r1)");
  });

  it("keeps the server's own sentence in English", () => {
    expect(describeProblem(wrongPassword, en, "en")).toBe("The organisation, username or password is not right. (r1)");
  });

  it("reports an expired session and an unreachable server as such", () => {
    expect(describeProblem(ApiProblem.from(401, { code: "token_expired", detail: "x" }), zh, "zh-CN")).toBe("登录已过期，请重新登录。");
    expect(describeProblem(ApiProblem.network(), en, "en")).toBe(en("app.error.network"));
    expect(describeProblem(new TypeError("fetch failed"), zh, "zh-CN")).toBe(zh("app.error.network"));
  });

  it("shows the server's detail for problems without a sentence of ours", () => {
    const invalid = ApiProblem.from(422, { code: "invalid_arguments", detail: "Template cannot start: missing start_date." });
    expect(describeProblem(invalid, zh, "zh-CN")).toBe("Template cannot start: missing start_date.");
    expect(describeProblem(ApiProblem.from(502, "<html>bad gateway</html>"), en, "en")).toBe("HTTP 502");
    expect(describeProblem(ApiProblem.from(503, "upstream timed out"), en, "en")).toBe("upstream timed out");
  });
});
