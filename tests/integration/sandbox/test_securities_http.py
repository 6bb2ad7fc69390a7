"""Securities portal over HTTP: report filing with an upload, trade records and export, orders."""

from __future__ import annotations

import csv
import hashlib
import io
from datetime import date

from fastapi.testclient import TestClient

from finrpa.sandbox.directory import find_security
from finrpa.sandbox.securities_order import quote
from finrpa.sandbox.trades import trade_rows
from tests.integration.sandbox.portal import FIXED_NOW, alerts, form_token, login, sandbox_client

REPORT = {"reportType": "quarterly", "period": "2024Q4", "remarks": "按期报送"}
PDF = b"%PDF-1.4\n% quarterly compliance report\n%%EOF\n"


def _securities(**switches: object) -> TestClient:
    client = sandbox_client(**switches)
    login(client, "securities", "broker_demo")
    return client


def test_report_form_is_rendered_inside_the_web_component_template() -> None:
    page = _securities().get("/securities/report").text
    assert page.index("<compliance-report-form>") < page.index("<template>") < page.index('type="file"')
    assert "2024年第四季度" in page and "季度合规报告" in page


def test_report_without_an_attachment_is_refused() -> None:
    client = _securities()
    token = form_token(client.get("/securities/report").text)
    page = client.post("/securities/report", data=REPORT | {"formToken": token}).text
    assert "请上传附件。" in alerts(page)
    assert client.get("/__sandbox__/state").json()["reports"] == []


def test_report_records_the_files_sha256_once() -> None:
    client = _securities()
    token = form_token(client.get("/securities/report").text)
    files = {"attachment": ("合规报告.pdf", PDF, "application/pdf")}
    first = client.post("/securities/report", data=REPORT | {"formToken": token}, files=files)
    assert "报告报送成功" in first.text and "BS20250616000001" in first.text
    client.post("/securities/report", data=REPORT | {"formToken": token}, files=files)
    reports = client.get("/__sandbox__/state").json()["reports"]
    assert len(reports) == 1
    assert reports[0]["sha256"] == hashlib.sha256(PDF).hexdigest()
    assert (reports[0]["filename"], reports[0]["size"], reports[0]["period"]) == (
        "合规报告.pdf",
        len(PDF),
        "2024Q4",
    )


def test_trade_records_page_and_export_match_trade_rows() -> None:
    client = _securities()
    expected = trade_rows("880012345678", date(2024, 1, 1), date(2024, 3, 31), 42)
    query = "startDate=2024-01-01&endDate=2024-03-31&code="
    page = client.get(f"/securities/trades?{query}&page=10").text
    assert len(expected) >= 200 and "<caption>成交记录</caption>" in page
    assert expected[180].trade_no in page
    exported = client.get(f"/securities/trades/export.csv?{query}")
    rows = list(csv.reader(io.StringIO(exported.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["成交日期", "成交时间", "证券代码"]
    assert [r[-1] for r in rows[1:]] == [t.trade_no for t in expected]


def test_trade_query_filters_by_code_and_reports_bad_input() -> None:
    client = _securities()
    page = client.get("/securities/trades?startDate=2024-01-01&endDate=2024-01-31&code=600100").text
    assert "示例银行" in page and "沙箱能源" not in page
    bad = client.get("/securities/trades?startDate=2024-02-01&endDate=2024-01-01&code=999999").text
    assert alerts(bad) == ["证券代码不存在，请输入 6 位有效代码。"]


def _order_form(price: str, quantity: str = "300") -> dict[str, str]:
    return {"code": "600100", "side": "buy", "price": price, "quantity": quantity}


def test_order_outside_the_daily_band_or_in_odd_lots_is_refused() -> None:
    client = _securities()
    band = quote(find_security("600100"), FIXED_NOW.date(), 42)  # type: ignore[arg-type]
    page = client.post("/securities/order", data=_order_form(str(band.limit_up + 1), "150")).text
    assert f"委托价格超出涨跌停范围（{band.limit_down} - {band.limit_up}）。" in alerts(page)
    assert "委托数量必须为 100 的整数倍。" in alerts(page)


def test_order_needs_its_confirm_step_and_is_recorded_once() -> None:
    client = _securities()
    price = str(quote(find_security("600100"), FIXED_NOW.date(), 42).last)  # type: ignore[arg-type]
    review = client.post("/securities/order", data=_order_form(price)).text
    assert "委托确认" in review and "确认下单" in review
    assert client.get("/__sandbox__/state").json()["orders"] == []
    token = form_token(review)
    placed = client.post("/securities/order/confirm", data=_order_form(price) | {"formToken": token})
    assert "委托已提交" in placed.text and "WT20250616000001" in placed.text
    client.post("/securities/order/confirm", data=_order_form(price) | {"formToken": token})
    orders = client.get("/__sandbox__/state").json()["orders"]
    assert [(o["code"], o["side"], o["price"], o["quantity"]) for o in orders] == [
        ("600100", "buy", price, 300)
    ]
