"""Channel settings per kind, and the views of channels and deliveries that the CLI and API show.

Robot URLs carry their access key, so ``url`` may be either the URL or a ``secret://`` reference to it;
signing secrets and SMTP passwords must be references (they are never stored in the channel row).
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_validator,
    model_validator,
)

from finrpa.notify.events import SUBSCRIBABLE_EVENTS, EventKind
from finrpa.notify.masking import mask_endpoint
from finrpa.notify.secret_refs import is_secret_reference

_EMAIL = re.compile(r"^[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;]+$")
_NAME = re.compile(r"^[\w.\- ]{1,100}$")


class ChannelKind(StrEnum):
    WECOM = "wecom"
    DINGTALK = "dingtalk"
    WEBHOOK = "webhook"
    EMAIL = "email"


class DeliveryStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    DEAD = "dead"


def _check_endpoint(value: str) -> str:
    if is_secret_reference(value):
        return value
    if not value.startswith(("https://", "http://")) or mask_endpoint(value) == "<invalid URL>":
        raise ValueError("must be an http(s) URL or a secret:// reference to one")
    return value


def _check_secret_reference(value: str) -> str:
    if not is_secret_reference(value):
        raise ValueError(
            "must be a secret:// reference (e.g. secret://env/FINRPA_NOTIFY_SECRET_DINGTALK), never the value"
        )
    return value


Endpoint = Annotated[str, AfterValidator(_check_endpoint)]
SecretReference = Annotated[str, AfterValidator(_check_secret_reference)]


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WeComConfig(_Config):
    """企业微信 group robot: ``https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…``."""

    kind: Literal[ChannelKind.WECOM] = ChannelKind.WECOM
    url: Endpoint

    def endpoint(self) -> str:
        return self.url


class DingTalkConfig(_Config):
    """钉钉 group robot with 加签: ``https://oapi.dingtalk.com/robot/send?access_token=…`` + its secret."""

    kind: Literal[ChannelKind.DINGTALK] = ChannelKind.DINGTALK
    url: Endpoint
    secret: SecretReference

    def endpoint(self) -> str:
        return self.url


class WebhookConfig(_Config):
    """Any HTTPS endpoint; requests are signed with the referenced secret (see finrpa.notify.signing)."""

    kind: Literal[ChannelKind.WEBHOOK] = ChannelKind.WEBHOOK
    url: Endpoint
    secret: SecretReference

    def endpoint(self) -> str:
        return self.url


SmtpSecurity = Literal["starttls", "ssl", "none"]
_DEFAULT_PORTS: dict[str, int] = {"starttls": 587, "ssl": 465, "none": 25}


class EmailConfig(_Config):
    """An SMTP relay. ``to`` always receives; events may add recipients (e.g. the eligible approvers)."""

    kind: Literal[ChannelKind.EMAIL] = ChannelKind.EMAIL
    host: str = Field(min_length=1, max_length=255)
    port: int | None = Field(default=None, ge=1, le=65535)
    security: SmtpSecurity = "starttls"
    username: str | None = None
    password: SecretReference | None = None
    from_address: str
    to: tuple[str, ...] = Field(min_length=1)
    ca_file: str | None = Field(default=None, description="PEM bundle of the CA that signed the server.")

    @field_validator("from_address")
    @classmethod
    def _check_from(cls, value: str) -> str:
        return _check_address(value)

    @field_validator("to")
    @classmethod
    def _check_to(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_check_address(address) for address in value)

    @model_validator(mode="after")
    def _login_needs_tls(self) -> EmailConfig:
        if (self.username or self.password) and self.security == "none":
            raise ValueError("a login needs security 'starttls' or 'ssl'; the password would cross in clear")
        if bool(self.username) != bool(self.password):
            raise ValueError("set both username and password (a secret:// reference), or neither")
        return self

    @property
    def effective_port(self) -> int:
        return self.port or _DEFAULT_PORTS[self.security]

    def endpoint(self) -> str:
        return f"smtp://{self.host}:{self.effective_port}"


def is_email_address(value: str) -> bool:
    return bool(_EMAIL.match(value))


def _check_address(value: str) -> str:
    if not is_email_address(value):
        raise ValueError(f"{value!r} is not an e-mail address")
    return value


ChannelConfig = Annotated[
    WeComConfig | DingTalkConfig | WebhookConfig | EmailConfig, Field(discriminator="kind")
]


class ChannelCreate(BaseModel):
    """What an administrator gives to add a channel."""

    model_config = ConfigDict(extra="forbid")

    name: str
    events: tuple[EventKind, ...] = Field(default=SUBSCRIBABLE_EVENTS, min_length=1)
    config: ChannelConfig
    enabled: bool = True

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("use 1–100 letters, digits, spaces, dots, dashes or underscores")
        return value.strip()

    @field_validator("events")
    @classmethod
    def _check_events(cls, value: tuple[EventKind, ...]) -> tuple[EventKind, ...]:
        if EventKind.CHANNEL_TEST in value:
            raise ValueError(f"{EventKind.CHANNEL_TEST} is sent on demand and cannot be subscribed to")
        return tuple(dict.fromkeys(value))


class ChannelView(BaseModel):
    """A channel as shown to administrators: the endpoint is masked, secrets are never shown."""

    id: str
    org_id: str
    name: str
    kind: ChannelKind
    events: tuple[EventKind, ...]
    endpoint: str
    enabled: bool
    created_at: datetime


class DeliveryView(BaseModel):
    id: str
    org_id: str
    channel_id: str
    event_kind: str
    idempotency_key: str
    status: DeliveryStatus
    attempts: int
    next_attempt_at: datetime
    last_error: str | None
    sent_at: datetime | None
    created_at: datetime


_CONFIG_ADAPTER: TypeAdapter[ChannelConfig] = TypeAdapter(ChannelConfig)


def parse_channel_config(raw: object) -> ChannelConfig:
    """A channel's stored settings as their typed model (raises pydantic.ValidationError)."""
    return _CONFIG_ADAPTER.validate_python(raw)
