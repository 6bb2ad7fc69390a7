"""Bank portal over HTTP: statement query validation, paging, CSV/JSON export, payments recorded once."""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from decimal import Decimal

from fastapi.testclient import TestClient

from finrpa.sandbox.ledger import balance_on, statement_rows
from tests.integration.sandbox.portal import FIXED_NOW, alerts, form_token, login, sandbox_client

ACCOUNT = "1001020309000123456"
QUARTER = f"acctNo={ACCOUNT}&startDate=2024-01-01&endDate=2024-03-31"


def _bank(**switches: object) -> TestClient:
    client = sandbox_client(**switches)
    login(client, "bank", "corp_demo")
    return client


def test_statement_shows_twenty_rows_a_page_over_at_least_ten_pages() -> None:
    client = _bank()
    expected = statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 3, 31), 42)
    page = client.get(f"/bank/statement?{QUARTER}&page=2").text
    assert "<caption>交易明细</caption>" in page
    assert len(expected) >= 200
    assert f"共 {len(expected)} 条记录，第 2/{(len(expected) + 19) // 20} 页" in page
    assert page.count("<tr><td>") == 20
    assert expected[20].serial in page and expected[19].serial not in page
    assert ">下一页</a>" in page and ">上一页</a>" in page


def test_statement_query_errors_are_shown_next_to_the_fields() -> None:
    client = _bank()
    reversed_range = client.get(
        f"/bank/statement?acctNo={ACCOUNT}&startDate=2024-03-01&endDate=2024-02-01"
    ).text
    assert alerts(reversed_range) == ["开始日期不能晚于结束日期。"]
    bad = client.get("/bank/statement?acctNo=999&startDate=2024-13-01&endDate=").text
    assert alerts(bad) == [
        "请选择您名下的账号。",
        "开始日期格式不正确，请按 YYYY-MM-DD 填写。",
        "结束日期不能为空，请填写。",
    ]
    future = client.get(f"/bank/statement?acctNo={ACCOUNT}&startDate=2025-06-01&endDate=2025-07-01").text
    assert alerts(future) == ["结束日期不能晚于今天。"]
    too_long = client.get(f"/bank/statement?acctNo={ACCOUNT}&startDate=2023-01-01&endDate=2024-06-01").text
    assert alerts(too_long) == ["查询区间不能超过一年，请缩短日期范围。"]


def test_other_users_accounts_cannot_be_queried() -> None:
    client = sandbox_client()
    login(client, "bank", "corp_ops")
    page = client.get(f"/bank/statement?{QUARTER}").text
    assert alerts(page) == ["请选择您名下的账号。"]


def test_csv_export_is_utf8_with_bom_and_matches_statement_rows() -> None:
    client = _bank()
    response = client.get(f"/bank/statement/export.csv?{QUARTER}")
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    disposition = response.headers["content-disposition"]
    assert disposition.startswith(
        'attachment; filename="statement_1001020309000123456_20240101-20240331.csv"'
    )
    assert "filename*=UTF-8''%E4%BA%A4%E6%98%93%E6%98%8E%E7%BB%86_" in disposition
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "交易日期",
        "交易时间",
        "摘要",
        "对方户名",
        "对方账号",
        "借方金额",
        "贷方金额",
        "余额",
        "流水号",
    ]
    expected = statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 3, 31), 42)
    assert len(rows) - 1 == len(expected)
    first = expected[0]
    assert rows[1][0] == first.date.isoformat() and rows[1][-1] == first.serial
    assert Decimal(rows[-1][7]) == expected[-1].balance


def test_json_export_for_the_pdf_has_every_row() -> None:
    client = _bank()
    body = client.get(f"/bank/statement/export.json?{QUARTER}").json()
    assert body["account"] == ACCOUNT
    assert len(body["rows"]) == len(statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 3, 31), 42))


def test_layout_v2_moves_the_query_form_into_an_iframe_with_new_names() -> None:
    client = _bank(layout="v2")
    page = client.get("/bank/statement").text
    assert '<iframe src="/bank/statement/form?' in page and 'title="检索条件"' in page
    frame = client.get("/bank/statement/form").text
    assert "起始日期" in frame and "截止日期" in frame and "账户号码" in frame and 'name="beginDt"' in frame
    assert 'target="_top"' in frame and " readonly" in frame
    results = client.get(
        f"/bank/statement?accountNumber={ACCOUNT}&beginDt=2024-01-01&finishDt=2024-03-31"
    ).text
    assert "<caption>账户交易明细</caption>" in results


def test_dynamic_ids_change_on_every_render() -> None:
    client = _bank(dynamic_ids=True)
    ids = [set(re.findall(r' id="([^"]+)"', client.get("/bank/statement").text)) for _ in range(2)]
    assert ids[0] and not ids[0] & ids[1]
    assert "开始日期" in client.get("/bank/statement").text


PAYMENT = {
    "payerAcct": ACCOUNT,
    "payeeName": "杭州示例电子商务有限公司",
    "payeeAcct": "3301040160000012345",
    "payeeBank": "招商银行",
    "amount": "12,345.60",
    "purpose": "货款",
}


def test_payment_validation_messages_are_shown_in_the_page() -> None:
    client = _bank()
    token = form_token(client.get("/bank/payment").text)
    page = client.post(
        "/bank/payment", data=PAYMENT | {"formToken": token, "amount": "12.345", "payeeAcct": "12ab"}
    )
    assert alerts(page.text) == [
        "请修正以下错误后重新提交。",
        "收款账号应为 8 至 32 位数字。",
        "金额格式不正确，请输入最多两位小数的正数。",
    ]
    over = client.post("/bank/payment", data=PAYMENT | {"formToken": token, "amount": "5000000.01"})
    assert "单笔金额不能超过 5,000,000.00 元。" in alerts(over.text)
    empty = client.post("/bank/payment", data={"formToken": token, "payerAcct": ACCOUNT})
    assert "收款人名称不能为空，请填写。" in alerts(empty.text)
    assert client.get("/__sandbox__/state").json()["payments"] == []


def test_payment_beyond_the_available_balance_is_refused() -> None:
    client = _bank()
    available = balance_on("1001020309000765432", FIXED_NOW.date(), 42)
    form = PAYMENT | {"payerAcct": "1001020309000765432", "amount": f"{available + Decimal('0.01')}"}
    page = client.post(
        "/bank/payment", data=form | {"formToken": form_token(client.get("/bank/payment").text)}
    )
    assert "付款账户可用余额不足。" in alerts(page.text)


def test_payment_is_recorded_once_even_when_submitted_twice() -> None:
    client = _bank()
    token = form_token(client.get("/bank/payment").text)
    first = client.post("/bank/payment", data=PAYMENT | {"formToken": token})
    assert re.search(r"/bank/payment/result/HX20250616\d{6}$", str(first.url))
    assert "付款提交成功" in first.text and "交易流水号" in first.text
    again = client.post("/bank/payment", data=PAYMENT | {"formToken": token})
    assert "该笔付款已提交，请勿重复提交。" in again.text
    payments = client.get("/__sandbox__/state").json()["payments"]
    assert len(payments) == 1
    assert payments[0]["amount"] == "12345.60" and payments[0]["payee_account"] == "3301040160000012345"
    assert payments[0]["reference"] in again.text


def test_payment_records_can_be_searched_to_reconcile() -> None:
    client = _bank()
    client.post("/bank/payment", data=PAYMENT | {"formToken": form_token(client.get("/bank/payment").text)})
    reference = client.get("/__sandbox__/state").json()["payments"][0]["reference"]
    assert reference in client.get("/bank/records?keyword=杭州示例").text
    assert reference in client.get("/bank/records?keyword=12345.60").text
    assert reference not in client.get("/bank/records?keyword=不存在的收款人").text


def test_a_form_token_from_another_session_is_refused() -> None:
    client = _bank()
    page = client.post("/bank/payment", data=PAYMENT | {"formToken": "forged"})
    assert alerts(page.text) == ["页面已失效，请核对信息后重新提交。"]
    assert client.get("/__sandbox__/state").json()["payments"] == []
