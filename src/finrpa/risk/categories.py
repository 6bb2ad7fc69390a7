"""What a keyword or recogniser says about an action: the closed set of risk categories.

Keyword libraries may only use these names, so a typo in a library file is an error at load time rather than
a category that no rule ever looks at.
"""

from __future__ import annotations

from enum import StrEnum


class Category(StrEnum):
    # Operations that the default rules raise to at least high when written (SPEC C10).
    MONEY_MOVEMENT = "money_movement"
    CREDENTIAL_CHANGE = "credential_change"
    ACCOUNT_CLOSURE = "account_closure"
    CLAIM_PAYOUT = "claim_payout"
    POLICY_SURRENDER = "policy_surrender"
    BENEFICIARY_CHANGE = "beneficiary_change"
    SECURITIES_ORDER = "securities_order"
    FINANCING = "financing"
    SECURITY_SETTING = "security_setting"
    DELETION = "deletion"
    # Context that matters in combination with other facts.
    EXPORT = "export"
    CUSTOMER_DATA = "customer_data"
    CONFIRMATION = "confirmation"
    APPLICATION = "application"
    GENERIC_CHANGE = "generic_change"
    # Markers that speak for a harmless action.
    READ_INTENT = "read_intent"
    DISMISS = "dismiss"
    # Text that tries to talk the detector down; recorded, never obeyed.
    INJECTION = "injection"
    # Recognisers (not keywords).
    AMOUNT = "amount"
    CARD_NUMBER = "card_number"
    PRC_ID = "prc_id"
    ACCOUNT_NUMBER = "account_number"
    RECORD_COUNT = "record_count"


# Categories whose presence in a state-changing action sets a floor of at least HIGH by default.
HIGH_IMPACT = frozenset(
    {
        Category.MONEY_MOVEMENT,
        Category.CREDENTIAL_CHANGE,
        Category.ACCOUNT_CLOSURE,
        Category.CLAIM_PAYOUT,
        Category.POLICY_SURRENDER,
        Category.BENEFICIARY_CHANGE,
        Category.SECURITIES_ORDER,
        Category.FINANCING,
        Category.SECURITY_SETTING,
        Category.DELETION,
    }
)

# Categories that never raise a level by themselves.
INFORMATIONAL = frozenset({Category.READ_INTENT, Category.DISMISS, Category.INJECTION})

# Verbs that say *that* something is committed or changed, not *what*: they never name the operation.
GENERIC = frozenset({Category.CONFIRMATION, Category.GENERIC_CHANGE})
