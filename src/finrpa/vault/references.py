"""``secret://<name>`` references: how templates, skills and plans name a credential without holding it."""

from __future__ import annotations

import re

from finrpa.exceptions import ValidationFailedError

SCHEME = "secret://"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")


def secret_name(ref_or_name: str) -> str:
    """The name in ``secret://name`` (a bare name is accepted too); raises if it is not a valid name."""
    name = ref_or_name.removeprefix(SCHEME)
    if not _NAME.match(name):
        raise ValidationFailedError(
            f"{ref_or_name!r} is not a secret reference; use secret://<name> where the name has letters, "
            "digits, '.', '_', '-' or '/' (up to 200 characters)."
        )
    return name


def secret_ref(name: str) -> str:
    return SCHEME + secret_name(name)


def is_secret_ref(value: str) -> bool:
    return value.startswith(SCHEME)
