"""Policy errors. Every one is a :class:`~finrpa.exceptions.FinRPAError`; the message says what to do.

Tree::

    ValidationFailedError
    └── PolicyValidationError     a policy text does not parse or does not validate against the schema
    PermissionDeniedError
    ├── CapabilityDenied          an operation, host or argument is outside the capability manifest
    └── TokenRejected             a capability token cannot be used
        ├── TokenExpired
        ├── TokenAudienceMismatch
        ├── TokenBindingMismatch  token issued for another run or node
        ├── TokenReplayed         used more often than it allows
        ├── TokenInvalid          bad signature, malformed, or manifest hash does not match
        └── AttenuationWidening   a child token would hold more rights than its parent
"""

from __future__ import annotations

from finrpa.exceptions import PermissionDeniedError, ValidationFailedError


class PolicyValidationError(ValidationFailedError):
    code = "policy_invalid"


class CapabilityDenied(PermissionDeniedError):
    code = "capability_denied"


class TokenRejected(PermissionDeniedError):
    code = "capability_token_rejected"


class TokenExpired(TokenRejected):
    code = "capability_token_expired"


class TokenAudienceMismatch(TokenRejected):
    code = "capability_token_wrong_audience"


class TokenBindingMismatch(TokenRejected):
    code = "capability_token_wrong_binding"


class TokenReplayed(TokenRejected):
    code = "capability_token_replayed"


class TokenInvalid(TokenRejected):
    code = "capability_token_invalid"


class AttenuationWidening(TokenRejected):
    code = "capability_attenuation_widening"
