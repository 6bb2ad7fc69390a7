"""Realism switches over HTTP: injected errors, the state endpoints, runtime config changes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.integration.sandbox.portal import form_token, login, sandbox_client


def _outcomes(client: TestClient, count: int) -> list[str]:
    kinds = []
    for _ in range(count):
        response = client.get("/bank/")
        if response.status_code == 500:
            kinds.append("500")
        elif "系统繁忙，请稍后再试" in response.text:
            kinds.append("busy")
        else:
            kinds.append("ok")
    return kinds


def test_injected_errors_roughly_honour_the_rate_and_split_between_500_and_busy() -> None:
    client = sandbox_client(error_rate=0.2, seed=7)
    login(client, "bank", "corp_demo")
    kinds = _outcomes(client, 400)
    failures = kinds.count("500") + kinds.count("busy")
    assert 0.13 * 400 <= failures <= 0.27 * 400
    assert kinds.count("500") >= 0.3 * failures and kinds.count("busy") >= 0.3 * failures


def test_injected_errors_are_deterministic_for_a_seed() -> None:
    runs = []
    for _ in range(2):
        client = sandbox_client(error_rate=0.3, seed=11)
        login(client, "bank", "corp_demo")
        runs.append(_outcomes(client, 60))
    assert runs[0] == runs[1]
    other = sandbox_client(error_rate=0.3, seed=12)
    login(other, "bank", "corp_demo")
    assert _outcomes(other, 60) != runs[0]


def test_wrong_password_posts_never_fail_so_no_password_is_retyped_in_vain() -> None:
    client = sandbox_client(error_rate=1.0)
    for _ in range(3):
        response = client.post("/bank/login", data={"username": "corp_demo", "password": "wrong"})
        assert response.status_code == 200 and "用户名或密码错误" in response.text
    assert client.get("/__sandbox__/state").json()["login_failures"] == {"bank:corp_demo": 3}


def test_state_endpoints_are_404_without_the_flag() -> None:
    client = sandbox_client(expose_state=False)
    assert client.get("/__sandbox__/state").status_code == 404
    assert client.post("/__sandbox__/reset").status_code == 404
    assert client.post("/__sandbox__/config", json={"layout": "v2"}).status_code == 404


def test_layout_can_be_switched_at_runtime_and_bad_switches_are_refused() -> None:
    client = sandbox_client()
    login(client, "bank", "corp_demo")
    assert "开始日期" in client.get("/bank/statement").text
    assert client.post("/__sandbox__/config", json={"layout": "v2"}).json()["layout"] == "v2"
    assert "起始日期" in client.get("/bank/statement/form").text
    refused = client.post("/__sandbox__/config", json={"layout": "v3", "error_rate": 2})
    assert refused.status_code == 400
    assert "layout" in refused.json()["detail"] and "error_rate" in refused.json()["detail"]
    assert client.get("/__sandbox__/state").json()["config"]["layout"] == "v2"


def test_reset_forgets_submissions_and_sessions() -> None:
    client = sandbox_client()
    login(client, "bank", "corp_demo")
    client.post("/__sandbox__/reset")
    assert client.get("/bank/").url.path == "/bank/login"


def test_landing_page_links_the_portals_and_lists_the_demo_accounts() -> None:
    page = sandbox_client().get("/").text
    for link in ("/bank/login", "/insurance/login", "/securities/login"):
        assert f'href="{link}"' in page
    for username in ("corp_demo", "agent_demo", "broker_demo", "SANDBOXBANKCORPDEMOSEED234567ABC"):
        assert username in page


def test_a_500_on_a_payment_comes_after_the_effect_and_a_busy_page_before_it() -> None:
    client = sandbox_client(seed=3)
    login(client, "bank", "corp_demo")
    form = {
        "payerAcct": "1001020309000123456",
        "payeeName": "示例公司",
        "payeeAcct": "3301040160000012345",
        "payeeBank": "中国银行",
        "amount": "10.00",
        "purpose": "测试",
    }
    seen = set()
    for _ in range(12):
        client.post("/__sandbox__/config", json={"error_rate": 0.0})
        token = form_token(client.get("/bank/payment").text)
        before = len(client.get("/__sandbox__/state").json()["payments"])
        client.post("/__sandbox__/config", json={"error_rate": 1.0})
        response = client.post("/bank/payment", data=form | {"formToken": token})
        client.post("/__sandbox__/config", json={"error_rate": 0.0})
        recorded = len(client.get("/__sandbox__/state").json()["payments"]) - before
        kind = "500" if response.status_code == 500 else "busy"
        assert recorded == (1 if kind == "500" else 0)
        seen.add(kind)
    assert seen == {"500", "busy"}


def test_every_main_page_has_its_english_labels() -> None:
    client = sandbox_client()
    client.get("/?lang=en")
    for portal, username, path, label in (
        ("bank", "corp_demo", "/bank/statement", "Start date"),
        ("bank", "corp_demo", "/bank/payment", "Payee name"),
        ("insurance", "agent_demo", "/insurance/apply", "Applicant name"),
        ("insurance", "agent_demo", "/insurance/claim", "Date of loss"),
        ("securities", "broker_demo", "/securities/report", "Reporting period"),
        ("securities", "broker_demo", "/securities/trades", "Security code"),
        ("securities", "broker_demo", "/securities/order", "Limit price"),
    ):
        login(client, portal, username)
        assert label in client.get(path).text, path
