"""E-mail over SMTP (stdlib ``smtplib`` in a worker thread): STARTTLS, implicit TLS or plain, optional login.

The Message-ID is derived from the idempotency key, so a message that does arrive twice (a retry after an
ambiguous timeout) is recognisable as the same message by mail systems and people alike.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import smtplib
import ssl
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime

from finrpa.notify.errors import DeliveryFailedError
from finrpa.notify.notifiers.base import Delivery, Notifier, SendContext
from finrpa.notify.schemas import ChannelKind, EmailConfig, is_email_address

logger = logging.getLogger(__name__)
# Lines up to 120 characters (RFC 5322 allows 998) so that X-FinRPA-Delivery is never folded.
_POLICY = policy.default.clone(max_line_length=120)


class EmailNotifier(Notifier):
    kind = ChannelKind.EMAIL

    def __init__(self, config: EmailConfig) -> None:
        self.config = config

    def endpoint(self) -> str:
        return self.config.endpoint()

    async def send(self, delivery: Delivery, context: SendContext) -> None:
        password = None
        if self.config.password is not None:
            password = await context.reveal(delivery.org_id, self.config.password)
        message = build_email(self.config, delivery, context)
        await asyncio.to_thread(_send_sync, self.config, message, password, context.timeout_s)


def recipients(config: EmailConfig, delivery: Delivery) -> list[str]:
    """The channel's fixed recipients, then the event's own (e.g. eligible approvers), without repeats."""
    extra = [address for address in delivery.event.recipients if is_email_address(address)]
    if len(extra) != len(delivery.event.recipients):
        logger.warning("notify.email.recipients_skipped", extra={"delivery": delivery.idempotency_key})
    return list(dict.fromkeys([*config.to, *extra]))


def build_email(config: EmailConfig, delivery: Delivery, context: SendContext) -> EmailMessage:
    message = EmailMessage(policy=_POLICY)
    message["Subject"] = delivery.message.title
    message["From"] = config.from_address
    message["To"] = ", ".join(recipients(config, delivery))
    message["Date"] = format_datetime(context.clock())
    domain = config.from_address.rpartition("@")[2]
    digest = hashlib.sha256(delivery.idempotency_key.encode()).hexdigest()[:32]
    message["Message-ID"] = f"<{digest}@{domain}>"
    message["Auto-Submitted"] = "auto-generated"
    message["X-FinRPA-Event"] = str(delivery.event.kind)
    message["X-FinRPA-Delivery"] = delivery.idempotency_key
    message.set_content(delivery.message.text)
    return message


def _send_sync(config: EmailConfig, message: EmailMessage, password: str | None, timeout_s: float) -> None:
    where = config.endpoint()
    try:
        _converse(config, message, password, timeout_s)
    except smtplib.SMTPAuthenticationError as exc:
        raise DeliveryFailedError(
            f"{where} refused the login (SMTP {exc.smtp_code}). Check the username and the password secret.",
            retryable=False,
        ) from exc
    except smtplib.SMTPRecipientsRefused as exc:
        raise DeliveryFailedError(
            f"{where} refused every recipient. Check the channel's addresses.", retryable=False
        ) from exc
    except smtplib.SMTPNotSupportedError as exc:
        raise DeliveryFailedError(
            f"{where} does not offer STARTTLS. Use security 'ssl', or another relay.", retryable=False
        ) from exc
    except smtplib.SMTPResponseException as exc:
        transient = 400 <= exc.smtp_code < 500
        raise DeliveryFailedError(
            f"{where} answered SMTP {exc.smtp_code}.", retryable=transient or exc.smtp_code < 0
        ) from exc
    except ssl.SSLCertVerificationError as exc:
        raise DeliveryFailedError(
            f"{where} presented a certificate that is not trusted ({exc.verify_message}). Set ca_file to the "
            "CA bundle that signed it.",
            retryable=False,
        ) from exc
    except (smtplib.SMTPException, OSError) as exc:  # disconnects, timeouts, refused connections, TLS errors
        raise DeliveryFailedError(
            f"Could not talk to {where} ({type(exc).__name__}).", retryable=True
        ) from exc


def _converse(config: EmailConfig, message: EmailMessage, password: str | None, timeout_s: float) -> None:
    tls = ssl.create_default_context(cafile=config.ca_file)
    host, port = config.host, config.effective_port
    if config.security == "ssl":
        client: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=timeout_s, context=tls)
    else:
        client = smtplib.SMTP(host, port, timeout=timeout_s)
    with client:
        if config.security == "starttls":
            client.starttls(context=tls)
        if config.username and password is not None:
            client.login(config.username, password)
        refused = client.send_message(message)
    if refused:
        logger.warning("notify.email.some_recipients_refused", extra={"refused": len(refused)})
