"""FinRPA policy: whether an operation may happen, may happen only after a person approves, or may not happen.

* :mod:`finrpa.policy.engine` — Cedar (cedarpy) decisions allow / deny / require_approval with reason codes;
* :mod:`finrpa.policy.service` — per-organisation policies (validated before acceptance) and the decision log
  written before every effect;
* :mod:`finrpa.policy.manifest` — the trusted compiler from a node's requested operations to a capability
  manifest, and the check skills and the browser controller call before acting;
* :mod:`finrpa.policy.tokens` — short-lived Ed25519 capability tokens bound to run, node, audience and
  manifest, with replay protection and attenuation for child agents.
"""
