"""Generic webhook: the event as JSON, signed with HMAC-SHA256 (see :mod:`finrpa.notify.signing`).

Body::

    {"delivery": "<idempotency key>", "event": "run.failed", "event_id": "…", "org_id": "…",
     "occurred_at": "…", "attempt": 1, "data": {…the event's fields…},
     "message": {"title": "…", "text": "…", "markdown": "…", "link": "https://…/tasks/…"}}

Any 2xx answer counts as delivered.
"""

from __future__ import annotations

from finrpa.notify.notifiers.base import Delivery, Notifier, SendContext
from finrpa.notify.notifiers.http import json_bytes, post_json
from finrpa.notify.schemas import ChannelKind, WebhookConfig
from finrpa.notify.signing import webhook_signature


class WebhookNotifier(Notifier):
    kind = ChannelKind.WEBHOOK

    def __init__(self, config: WebhookConfig) -> None:
        self.config = config

    def endpoint(self) -> str:
        return self.config.url

    async def send(self, delivery: Delivery, context: SendContext) -> None:
        url = await context.reveal(delivery.org_id, self.config.url)
        secret = await context.reveal(delivery.org_id, self.config.secret)
        body = json_bytes(webhook_body(delivery))
        timestamp = int(context.clock().timestamp())
        headers = {
            "X-FinRPA-Event": str(delivery.event.kind),
            "X-FinRPA-Delivery": delivery.idempotency_key,
            "X-FinRPA-Timestamp": str(timestamp),
            "X-FinRPA-Signature": webhook_signature(secret, timestamp, body),
        }
        await post_json(context, url, body, headers)


def webhook_body(delivery: Delivery) -> dict[str, object]:
    event = delivery.event
    message = delivery.message
    return {
        "delivery": delivery.idempotency_key,
        "event": str(event.kind),
        "event_id": event.event_id,
        "org_id": event.org_id,
        "occurred_at": event.occurred_at.isoformat(),
        "attempt": delivery.attempt,
        "data": event.model_dump(mode="json", exclude={"recipients", "kind", "org_id", "event_id"}),
        "message": {
            "title": message.title,
            "text": message.text,
            "markdown": message.markdown,
            "link": message.link,
        },
    }
