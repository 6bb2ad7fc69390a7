"""Resolve ``secret://…`` references in channel settings to the secret values, at send time only.

:class:`SecretResolver` is the port. Adapters:

* :class:`EnvironmentSecretResolver` — ``secret://env/FINRPA_NOTIFY_SECRET_<NAME>`` reads that environment
  variable (for deployments that inject secrets through the environment). Only variables with that prefix
  can be referenced, so a tenant administrator cannot point a channel at ``FINRPA_MASTER_KEY``.
* :class:`finrpa.notify.vault_secrets.VaultChannelSecrets` — every other ``secret://<name>`` from the
  organisation's credential vault (a permission-checked, audited credential read).

Resolved values live only for one send; they are never stored, logged or put in an error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Protocol

from finrpa.notify.errors import SecretUnavailableError

SECRET_SCHEME = "secret://"  # noqa: S105 - a URI scheme, not a password
ENV_PREFIX = "secret://env/"
ENV_VARIABLE_PREFIX = "FINRPA_NOTIFY_SECRET_"


class SecretResolver(Protocol):
    def handles(self, reference: str) -> bool:
        """Whether this resolver knows the reference's form."""
        ...

    async def resolve(self, org_id: str, reference: str) -> str:
        """The secret value, or SecretUnavailableError with a sentence naming the reference."""
        ...


def is_secret_reference(value: str) -> bool:
    return value.startswith(SECRET_SCHEME)


class EnvironmentSecretResolver:
    """``secret://env/FINRPA_NOTIFY_SECRET_*`` → the environment variable of that name."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = os.environ if environ is None else environ

    def handles(self, reference: str) -> bool:
        return reference.startswith(ENV_PREFIX)

    async def resolve(self, org_id: str, reference: str) -> str:
        name = reference.removeprefix(ENV_PREFIX)
        if not name.startswith(ENV_VARIABLE_PREFIX):
            raise SecretUnavailableError(
                f"{reference} is not allowed: environment references must name a variable starting with "
                f"{ENV_VARIABLE_PREFIX}. Rename the variable or store the secret in the vault."
            )
        value = self._environ.get(name, "")
        if not value:
            raise SecretUnavailableError(f"{reference} is not set. Set {name} in the worker's environment.")
        return value


class ChainedSecretResolver:
    """Asks each resolver in turn; the first that handles the reference answers."""

    def __init__(self, resolvers: Sequence[SecretResolver]) -> None:
        self._resolvers = tuple(resolvers)

    def handles(self, reference: str) -> bool:
        return any(resolver.handles(reference) for resolver in self._resolvers)

    async def resolve(self, org_id: str, reference: str) -> str:
        for resolver in self._resolvers:
            if resolver.handles(reference):
                return await resolver.resolve(org_id, reference)
        raise SecretUnavailableError(
            f"No secret store knows {reference}. Use secret://env/{ENV_VARIABLE_PREFIX}<NAME> or a vault "
            "reference."
        )


async def resolve_value(resolver: SecretResolver, org_id: str, value: str) -> str:
    """``value`` itself, or the secret it references when it is a ``secret://`` reference."""
    if is_secret_reference(value):
        return await resolver.resolve(org_id, value)
    return value
