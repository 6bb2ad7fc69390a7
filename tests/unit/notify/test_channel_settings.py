"""Channel settings refuse what would leak a secret: literal secrets, clear-text logins, bad addresses."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from finrpa.notify.events import SUBSCRIBABLE_EVENTS, EventKind
from finrpa.notify.masking import mask_endpoint, scrub
from finrpa.notify.schemas import ChannelCreate, EmailConfig, parse_channel_config


def test_signing_secret_must_be_a_reference_not_the_value() -> None:
    with pytest.raises(ValidationError, match="secret:// reference"):
        parse_channel_config(
            {"kind": "dingtalk", "url": "https://oapi.dingtalk.com/robot/send", "secret": "SEC1"}
        )
    config = parse_channel_config(
        {
            "kind": "webhook",
            "url": "https://hooks.bank.example/x",
            "secret": "secret://env/FINRPA_NOTIFY_SECRET_A",
        }
    )
    assert config.kind == "webhook"


def test_robot_url_may_itself_be_a_secret_reference() -> None:
    config = parse_channel_config({"kind": "wecom", "url": "secret://env/FINRPA_NOTIFY_SECRET_WECOM_URL"})
    assert config.endpoint() == "secret://env/FINRPA_NOTIFY_SECRET_WECOM_URL"
    with pytest.raises(ValidationError, match="http"):
        parse_channel_config({"kind": "wecom", "url": "ftp://example.com"})


def test_email_login_needs_tls_and_valid_addresses() -> None:
    base = {"host": "smtp.bank.example", "from_address": "finrpa@bank.example", "to": ["ops@bank.example"]}
    with pytest.raises(ValidationError, match="starttls"):
        EmailConfig(
            **base, security="none", username="finrpa", password="secret://env/FINRPA_NOTIFY_SECRET_SMTP"
        )
    with pytest.raises(ValidationError, match="both username and password"):
        EmailConfig(**base, username="finrpa")
    with pytest.raises(ValidationError, match="not an e-mail address"):
        EmailConfig(**{**base, "to": ["ops@bank.example\r\nBcc: x@evil.example"]})
    assert EmailConfig(**base, security="ssl").effective_port == 465
    assert EmailConfig(**base).effective_port == 587


def test_channels_subscribe_to_all_real_events_by_default_and_never_to_the_test_message() -> None:
    create = ChannelCreate(name="ops", config={"kind": "wecom", "url": "https://qyapi.weixin.qq.com/x"})
    assert set(create.events) == set(SUBSCRIBABLE_EVENTS)
    assert EventKind.CHANNEL_TEST not in create.events
    with pytest.raises(ValidationError, match="on demand"):
        ChannelCreate(
            name="ops", events=[EventKind.CHANNEL_TEST], config={"kind": "wecom", "url": "https://x.example/"}
        )


def test_endpoints_are_shown_without_their_keys() -> None:
    wecom = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=test-key-not-real"
    assert mask_endpoint(wecom) == "https://qyapi.weixin.qq.com/…"
    assert mask_endpoint("https://hooks.bank.example:8443/") == "https://hooks.bank.example:8443/"
    assert mask_endpoint("not a url") == "<invalid URL>"
    assert scrub(f"failed for {wecom}", ["test-key-not-real"]) == (
        "failed for https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=***"
    )
