"""Notifiers, one per channel kind, and :func:`build_notifier` to make the one a channel needs."""

from __future__ import annotations

from finrpa.notify.notifiers.base import Delivery, Notifier, SendContext
from finrpa.notify.notifiers.dingtalk import DingTalkNotifier
from finrpa.notify.notifiers.smtp import EmailNotifier
from finrpa.notify.notifiers.webhook import WebhookNotifier
from finrpa.notify.notifiers.wecom import WeComNotifier
from finrpa.notify.schemas import ChannelConfig, DingTalkConfig, EmailConfig, WebhookConfig, WeComConfig

__all__ = ["Delivery", "Notifier", "SendContext", "build_notifier"]


def build_notifier(config: ChannelConfig) -> Notifier:
    """The notifier for a channel's settings."""
    if isinstance(config, WeComConfig):
        return WeComNotifier(config)
    if isinstance(config, DingTalkConfig):
        return DingTalkNotifier(config)
    if isinstance(config, WebhookConfig):
        return WebhookNotifier(config)
    if isinstance(config, EmailConfig):
        return EmailNotifier(config)
    raise TypeError(f"no notifier for {type(config).__name__}")  # unreachable: ChannelConfig is closed
