"""Benchmark: policy decision latency (median, p99) with the default policies plus an organisation's own, and the
cost of the other steps on the path to an effect: compiling a node's manifest, checking it, issuing and verifying
a capability token.

Decision paths differ in how many Cedar evaluations they need: allow and deny take one; require_approval takes
two (the second confirms that only approval rules forbade). Every decision validates the request against the
schema (fail closed).

Run: .venv/bin/python bench/bench_policy.py
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from decimal import Decimal

from finrpa.policy.engine import PolicyEngine
from finrpa.policy.keys import derive_signing_key
from finrpa.policy.manifest import ArgumentBounds, CallArguments, NodeRequest, PrincipalRights, compile_manifest
from finrpa.policy.policyset import PolicySource
from finrpa.policy.schemas import Decision, PolicyContext, PolicyPrincipal, PolicyRequest, PolicyResource
from finrpa.policy.token_store import InMemoryTokenUseStore
from finrpa.policy.tokens import CapabilityTokens

RUNS = 2_000
ORG_POLICIES = """
@id("org.no_payments_at_night")
@reason("Payments are not submitted between 22:00 and 06:00.")
forbid (principal, action == Action::"payment.submit", resource) when { context.hour >= 22 || context.hour < 6 };

@id("org.treasury_only")
@reason("Only the treasury department pays suppliers.")
forbid (principal, action == Action::"payment.submit", resource) unless { principal in Department::"treasury" };

@id("org.dual_control_over_500k")
@reason("Payments above 500,000 CNY need approval.")
@effect("require_approval")
forbid (principal, action == Action::"payment.submit", resource) when { context.amount_cny > 500000 };
"""
AGENT = PolicyPrincipal(
    kind="Agent", id="run-1/pay", org_id="org-bench", acting_for="u-1", run_id="run-1",
    roles=frozenset({"operator"}), departments=frozenset({"treasury"}),
)  # fmt: skip
BANK = PolicyResource(id="bank.example", host="bank.example", department="treasury")


def request(action: str, **context: object) -> PolicyRequest:
    ctx = PolicyContext.model_validate({"in_manifest": True, "at": "2026-03-02T04:00:00+00:00", **context})
    return PolicyRequest(principal=AGENT, action=action, resource=BANK, context=ctx)


def report(label: str, samples: list[float]) -> None:
    samples.sort()
    p99 = samples[int(len(samples) * 0.99) - 1]
    print(f"  {label:<52} median {statistics.median(samples):8.3f} ms   p99 {p99:8.3f} ms")


def timed(function: Callable[[], object], runs: int = RUNS) -> list[float]:
    function()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def timed_async(function: Callable[[], Awaitable[object]], runs: int = RUNS) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await function()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def decisions(engine: PolicyEngine) -> None:
    print(f"Policy decisions: default policies + 3 organisation policies, {RUNS} decisions each")
    cases = [
        ("allow (read inside the manifest)", request("navigate"), Decision.ALLOW),
        ("allow (payment under 500k)", request("payment.submit", amount_cny=Decimal(80_000)), Decision.ALLOW),
        ("deny (delete)", request("record.delete"), Decision.DENY),
        ("deny (outside the manifest)", request("fill", in_manifest=False), Decision.DENY),
        ("require_approval (critical risk, 1.5M)",
         request("payment.submit", amount_cny=Decimal(1_500_000), risk_level="critical"), Decision.REQUIRE_APPROVAL),
    ]  # fmt: skip
    for label, policy_request, expected in cases:
        assert engine.decide(policy_request).decision is expected, label
        report(label, timed(lambda policy_request=policy_request: engine.decide(policy_request)))


def manifests_and_tokens(engine: PolicyEngine) -> None:
    print("\nManifest and token steps")
    rights = PrincipalRights(
        principal=AGENT,
        operations=frozenset({"navigate", "fill", "click", "payment.submit", "FormFillSkill", "LoginSkill"}),
        hosts=frozenset({"bank.example"}),
        data_classes=frozenset({"payment"}),
        bounds=ArgumentBounds(max_amount_cny=Decimal(2_000_000)),
    )
    node = NodeRequest(
        run_id="run-1", node_id="pay", operations=rights.operations, hosts=frozenset({"bank.example"}),
        data_classes=frozenset({"payment"}), bounds=ArgumentBounds(max_amount_cny=Decimal(1_500_000)),
    )  # fmt: skip
    report("compile_manifest (6 operations x 1 host)", timed(lambda: compile_manifest(node, rights, engine), 200))
    manifest = compile_manifest(node, rights, engine)
    args = CallArguments(amount_cny=Decimal(1_000_000), data_classes=frozenset({"payment"}))
    report("manifest.check", timed(lambda: manifest.check("payment.submit", "bank.example", args)))
    tokens = CapabilityTokens(derive_signing_key(b"bench-only key material, not a secret"), InMemoryTokenUseStore())
    report("issue a capability token", timed(lambda: tokens.issue(manifest, audience="browser")))
    issued = [tokens.issue(manifest, audience="browser") for _ in range(RUNS)]
    queue = iter(issued)
    samples = asyncio.run(timed_async(lambda: tokens.verify(next(queue), audience="browser", run_id="run-1")))
    report("verify + count a use (in-memory replay store)", samples)


def main() -> None:
    engine = PolicyEngine.with_defaults([PolicySource("organisation policies", ORG_POLICIES)])
    decisions(engine)
    manifests_and_tokens(engine)


if __name__ == "__main__":
    main()
