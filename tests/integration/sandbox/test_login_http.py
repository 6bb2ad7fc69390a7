"""Login on every portal: wrong passwords counted and locked out at five, captcha, TOTP, idle timeout."""

from __future__ import annotations

import pyotp
import pytest

from finrpa.sandbox.directory import find_user
from tests.integration.sandbox.portal import FakeClock, alerts, login, notices, sandbox_client


@pytest.mark.parametrize(("portal", "username"), [("bank", "corp_demo"), ("insurance", "agent_demo")])
def test_right_password_opens_the_portal_home(portal: str, username: str) -> None:
    client = sandbox_client()
    response = login(client, portal, username)
    assert response.url.path == f"/{portal}/"
    assert "安全退出" in response.text


def test_wrong_password_is_rejected_and_counted() -> None:
    client = sandbox_client()
    response = login(client, "bank", "corp_demo", "wrong")
    assert response.url.path == "/bank/login"
    assert alerts(response.text) == ["用户名或密码错误，您还可以尝试 4 次。"]
    assert client.get("/__sandbox__/state").json()["login_failures"] == {"bank:corp_demo": 1}


def test_five_wrong_passwords_lock_the_account_until_reset() -> None:
    client = sandbox_client()
    for _ in range(5):
        last = login(client, "bank", "corp_demo", "wrong")
    assert "账户已锁定" in alerts(last.text)[0]
    refused = login(client, "bank", "corp_demo")  # even the right password now
    assert refused.url.path == "/bank/login"
    assert "账户已锁定" in alerts(refused.text)[0]
    assert client.get("/__sandbox__/state").json()["locked"] == ["bank:corp_demo"]
    client.post("/__sandbox__/reset")
    assert login(client, "bank", "corp_demo").url.path == "/bank/"


def test_a_good_login_clears_the_failure_count() -> None:
    client = sandbox_client()
    login(client, "bank", "corp_demo", "wrong")
    login(client, "bank", "corp_demo")
    assert client.get("/__sandbox__/state").json()["login_failures"] == {}


def test_wrong_captcha_is_rejected_without_counting_a_password_failure() -> None:
    client = sandbox_client(captcha=True)
    image = client.get("/bank/captcha.png")
    assert image.headers["content-type"] == "image/png"
    assert image.content.startswith(b"\x89PNG")
    response = client.post(
        "/bank/login", data={"username": "corp_demo", "password": "demo123", "captcha": "0000"}
    )
    assert alerts(response.text) == ["验证码错误，请重新输入。"]
    assert client.get("/__sandbox__/state").json()["login_failures"] == {}


def test_right_captcha_typed_in_lower_case_is_accepted_once() -> None:
    client = sandbox_client(captcha=True)
    client.get("/bank/captcha.png")
    code = client.get("/__sandbox__/state").json()["last_captcha"]["bank"]
    form = {"username": "corp_demo", "password": "demo123", "captcha": code.lower()}
    assert client.post("/bank/login", data=form).url.path == "/bank/"
    client.get("/bank/logout")
    assert alerts(client.post("/bank/login", data=form).text) == ["验证码错误，请重新输入。"]


def test_totp_second_step_accepts_the_documented_seed_and_refuses_a_wrong_code() -> None:
    client = sandbox_client(totp=True)
    step = login(client, "securities", "broker_demo")
    assert step.url.path == "/securities/login/otp"
    assert client.get("/securities/").url.path == "/securities/login"  # not logged in yet
    wrong = client.post("/securities/login/otp", data={"otp": "000000"})
    assert alerts(wrong.text) == ["动态口令错误或已过期，请重新输入。"]
    user = find_user("securities", "broker_demo")
    assert user is not None
    done = client.post("/securities/login/otp", data={"otp": pyotp.TOTP(user.totp_secret).now()})
    assert done.url.path == "/securities/"


def test_idle_session_times_out_back_to_login_with_a_message() -> None:
    clock = FakeClock()
    client = sandbox_client(clock, session_timeout_s=300)
    login(client, "bank", "corp_demo")
    clock.advance(299)
    assert client.get("/bank/statement").url.path == "/bank/statement"  # activity resets the idle timer
    clock.advance(301)
    expired = client.get("/bank/statement")
    assert expired.url.path == "/bank/login"
    assert notices(expired.text) == ["会话已超时，请重新登录。"]
    assert client.get("/bank/").url.path == "/bank/login"


def test_pages_need_a_login() -> None:
    client = sandbox_client()
    response = client.get("/insurance/apply")
    assert response.url.path == "/insurance/login"
    assert notices(response.text) == ["请先登录。"]


def test_english_is_sticky_once_chosen() -> None:
    client = sandbox_client()
    assert "Username" in client.get("/bank/login?lang=en").text
    assert "Username" in client.get("/bank/login").text
    assert "用户名" in client.get("/bank/login?lang=zh").text
