"""Errors of the notification domain.

Tree (all derive from :class:`finrpa.exceptions.FinRPAError`)::

    ChannelConfigError      (ValidationFailedError, 422)  a channel's settings are invalid; fix and save again
    ChannelNotFoundError    (NotFoundError, 404)          no such channel in this organisation
    SecretUnavailableError  (ConfigurationError)          a ``secret://`` reference cannot be resolved
    DeliveryFailedError     (ExternalServiceError, 502)   a robot, webhook or mail server refused or failed;
                                                          ``retryable`` says whether the outbox tries again

Messages never contain a secret or a full endpoint URL (robot URLs carry their access key): endpoints are
shown as ``scheme://host/…``.
"""

from __future__ import annotations

from finrpa.exceptions import ConfigurationError, ExternalServiceError, NotFoundError, ValidationFailedError


class ChannelConfigError(ValidationFailedError):
    code = "notify_channel_invalid"


class ChannelNotFoundError(NotFoundError):
    code = "notify_channel_not_found"


class SecretUnavailableError(ConfigurationError):
    code = "notify_secret_unavailable"


class DeliveryFailedError(ExternalServiceError):
    """Sending failed. ``retryable`` is True for timeouts, connection errors, 5xx/429 and rate limits."""

    code = "notify_delivery_failed"
