"""A value to type that may be a secret: masked in str/repr/JSON, revealed only at the moment of typing."""

from __future__ import annotations

from pydantic import SecretStr

MASK = "******"


class SecretText(SecretStr):
    """Wraps a secret (password, one-time code, card number). ``str()`` and ``repr()`` never show it."""

    def __str__(self) -> str:
        return MASK

    def __repr__(self) -> str:
        return f"SecretText('{MASK}')"

    def reveal(self) -> str:
        """The plain value; call only where it is typed into the page."""
        return self.get_secret_value()


def reveal(value: str | SecretStr) -> str:
    """The plain text of a value that may be wrapped."""
    return value.get_secret_value() if isinstance(value, SecretStr) else value
