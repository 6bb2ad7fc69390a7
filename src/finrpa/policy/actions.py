"""The action catalogue: every operation a policy can speak of, and the groups it belongs to.

Operations are browser action types (C1), skills (C3) and business operations that skills and templates
declare (payment.submit, records.export …). Each belongs to one or more Cedar action groups — read, write,
irreversible, export, delete — so that the default policies hold for operations added later. A third-party
skill is added with :meth:`ActionCatalog.with_operations` (e.g. from its ``side_effect``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum


class ActionGroup(StrEnum):
    READ = "read"
    WRITE = "write"
    IRREVERSIBLE = "irreversible"
    EXPORT = "export"
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class ActionSpec:
    name: str
    groups: frozenset[ActionGroup]

    def __post_init__(self) -> None:
        if not self.name or '"' in self.name or "\\" in self.name or not self.name.isprintable():
            raise ValueError(f"{self.name!r} cannot be an operation name; use letters, digits, '.', '_' or '-'.")
        if not self.groups:
            raise ValueError(f"Operation {self.name!r} needs at least one group (read, write, …).")


def _spec(name: str, *groups: ActionGroup) -> ActionSpec:
    return ActionSpec(name, frozenset(groups))


R, W, X, E, D = (ActionGroup.READ, ActionGroup.WRITE, ActionGroup.IRREVERSIBLE, ActionGroup.EXPORT,
                 ActionGroup.DELETE)  # fmt: skip  (X: irreversible)

BROWSER_ACTIONS = (
    _spec("navigate", R), _spec("scroll", R), _spec("wait_for", R), _spec("extract", R), _spec("switch_tab", R),
    _spec("complete", R), _spec("fail", R), _spec("dismiss_dialog", R),
    _spec("click", W), _spec("fill", W), _spec("select", W), _spec("check", W), _spec("uncheck", W),
    _spec("press", W), _spec("upload", W), _spec("accept_dialog", W),
    _spec("download", R, E),
)  # fmt: skip

BUILTIN_SKILLS = (
    _spec("LoginSkill", R), _spec("SessionKeepAliveSkill", R), _spec("SearchAndSelectSkill", R),
    _spec("PaginationSkill", R), _spec("TableExtractSkill", R), _spec("FormFillSkill", W),
    _spec("FileDownloadSkill", R, E), _spec("CsvMergeSkill", R),
)  # fmt: skip

BUSINESS_OPERATIONS = (
    _spec("statement.export", R, E), _spec("records.export", E), _spec("credential.read", R),
    _spec("payment.submit", W, X), _spec("transfer.submit", W, X), _spec("claim.submit", W),
    _spec("claim.pay", W, X), _spec("policy.apply", W), _spec("policy.surrender", W, X),
    _spec("beneficiary.change", W), _spec("securities.order", W, X), _spec("financing.apply", W, X),
    _spec("credential.change", W, X), _spec("account.close", W, X), _spec("report.submit", W, X),
    _spec("record.delete", W, X, D),
)  # fmt: skip


class ActionCatalog:
    """An immutable set of operations; ``with_operations`` returns a new catalogue."""

    def __init__(self, specs: Iterable[ActionSpec]) -> None:
        self._specs = {spec.name: spec for spec in specs}

    @classmethod
    def default(cls) -> ActionCatalog:
        return cls((*BROWSER_ACTIONS, *BUILTIN_SKILLS, *BUSINESS_OPERATIONS))

    def with_operations(self, specs: Iterable[ActionSpec]) -> ActionCatalog:
        return ActionCatalog((*self._specs.values(), *specs))

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ActionSpec]:
        return iter(sorted(self._specs.values(), key=lambda spec: spec.name))

    def __len__(self) -> int:
        return len(self._specs)

    def get(self, name: str) -> ActionSpec | None:
        return self._specs.get(name)
