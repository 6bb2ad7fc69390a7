"""SecretText: a credential value that does not show itself — the one type every domain passes secrets in.

``str()``, ``repr()``, f-strings, ``format()``, logging and Pydantic serialisation all see ``******``;
pickling is refused. ``.reveal()`` returns the value and is meant to be called only at the moment of typing
it into a portal. It is a Pydantic ``SecretStr``, so models typed ``str | SecretStr`` accept it.
"""

from __future__ import annotations

from typing import NoReturn

from pydantic import SecretStr

MASK = "******"


class SecretText(SecretStr):
    def __str__(self) -> str:
        return MASK

    def __repr__(self) -> str:
        return f"SecretText('{MASK}')"

    def __format__(self, _spec: str) -> str:
        return MASK

    def __reduce__(self) -> NoReturn:
        raise TypeError("A SecretText cannot be pickled or copied out of the process.")

    def _display(self) -> str:
        return MASK

    def reveal(self) -> str:
        """The plain value; call only where it is typed into the page."""
        return self.get_secret_value()


def reveal(value: str | SecretStr) -> str:
    """The plain text of a value that may be wrapped."""
    return value.get_secret_value() if isinstance(value, SecretStr) else value
