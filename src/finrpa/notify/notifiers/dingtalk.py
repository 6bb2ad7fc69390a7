"""钉钉 (DingTalk) group robot with 加签 signing: markdown message, signed ``timestamp``/``sign`` query."""

from __future__ import annotations

from finrpa.notify.masking import mask_endpoint
from finrpa.notify.notifiers.base import Delivery, Notifier, SendContext
from finrpa.notify.notifiers.http import check_robot_reply, json_bytes, post_json, truncate_utf8
from finrpa.notify.schemas import ChannelKind, DingTalkConfig
from finrpa.notify.signing import dingtalk_signed_url

MAX_TEXT_BYTES = 20000
# -1 system busy; 130101 sending too fast (20 messages a minute per robot).
RETRYABLE_ERRCODES = frozenset({-1, 130101})


class DingTalkNotifier(Notifier):
    kind = ChannelKind.DINGTALK

    def __init__(self, config: DingTalkConfig) -> None:
        self.config = config

    def endpoint(self) -> str:
        return self.config.url

    async def send(self, delivery: Delivery, context: SendContext) -> None:
        url = await context.reveal(delivery.org_id, self.config.url)
        secret = await context.reveal(delivery.org_id, self.config.secret)
        # The signature is valid for one hour around its timestamp, so it is made per attempt.
        timestamp_ms = int(context.clock().timestamp() * 1000)
        text = truncate_utf8(delivery.message.markdown, MAX_TEXT_BYTES)
        body = json_bytes(
            {"msgtype": "markdown", "markdown": {"title": delivery.message.title, "text": text}}
        )
        response = await post_json(context, dingtalk_signed_url(url, secret, timestamp_ms), body)
        check_robot_reply(response, mask_endpoint(url), RETRYABLE_ERRCODES)
