"""Notifications (SPEC §C16): WeCom and DingTalk group robots, signed webhooks and SMTP email.

Callers enqueue a typed event in their own transaction (:func:`finrpa.notify.outbox.enqueue`); a dispatcher
(:func:`finrpa.notify.dispatcher.dispatch_due`, or the :func:`~finrpa.notify.dispatcher.run_dispatcher`
loop) sends it to every channel of the organisation subscribed to the event, with retries, backoff and one
idempotency key per event and channel. A failing channel never blocks or fails the caller.
"""
