"""企业微信 (WeCom) group robot: a markdown message, accepted when the reply's ``errcode`` is 0."""

from __future__ import annotations

from finrpa.notify.masking import mask_endpoint
from finrpa.notify.notifiers.base import Delivery, Notifier, SendContext
from finrpa.notify.notifiers.http import check_robot_reply, json_bytes, post_json, truncate_utf8
from finrpa.notify.schemas import ChannelKind, WeComConfig

MAX_CONTENT_BYTES = 4096  # WeCom's limit for markdown content
# -1 system busy; 45009 and 45033: the robot's rate limit (20 messages a minute) or concurrency limit.
RETRYABLE_ERRCODES = frozenset({-1, 45009, 45033})


class WeComNotifier(Notifier):
    kind = ChannelKind.WECOM

    def __init__(self, config: WeComConfig) -> None:
        self.config = config

    def endpoint(self) -> str:
        return self.config.url

    async def send(self, delivery: Delivery, context: SendContext) -> None:
        url = await context.reveal(delivery.org_id, self.config.url)
        content = truncate_utf8(delivery.message.markdown, MAX_CONTENT_BYTES)
        body = json_bytes({"msgtype": "markdown", "markdown": {"content": content}})
        response = await post_json(context, url, body)
        check_robot_reply(response, mask_endpoint(url), RETRYABLE_ERRCODES)
