"""FinRPA risk detection: decides how risky a proposed portal action is before anything touches the portal.

Stage 1 (:mod:`finrpa.risk.stage1`) is deterministic and costs nothing: keyword libraries per business domain,
identifier and amount recognisers, and level rules. Stage 2 (:mod:`finrpa.risk.stage2`) asks an analyst (an LLM)
about the context, only when stage 1 found something, and only within the bounds deterministic code allows.
:class:`finrpa.risk.service.RiskAssessor` combines both into a :class:`finrpa.risk.schemas.RiskDecision`.
"""
