"""The seeded policy book: unique numbers, valid holder IDs, search by number or holder."""

from __future__ import annotations

from finrpa.sandbox.policies import find_policy, policy_book, search_policies
from finrpa.sandbox.validation import is_valid_prc_id


def test_book_has_unique_numbers_valid_ids_and_sane_periods() -> None:
    book = policy_book(42)
    assert len({p.policy_no for p in book}) == len(book) == 80
    assert all(is_valid_prc_id(p.holder_id) and p.start < p.end for p in book)


def test_search_matches_number_fragments_and_holder_names() -> None:
    policy = policy_book(42)[3]
    assert policy in search_policies(42, policy.policy_no[:8].lower())
    assert all(policy.holder in p.holder for p in search_policies(42, policy.holder))
    assert search_policies(42, "   ") == []
    assert find_policy(42, policy.policy_no.lower()) == policy
