"""The template bench makes a new effect in every run, and notices a run that skipped its work as already done."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from bench.baseline.flows import FLOWS
from bench.bench_templates import effects_found_done, filing, template_arguments

from finrpa.agents.events import EventType

BASE = "http://127.0.0.1:9"


def arguments(flow: str, counter: int) -> dict[str, Any]:
    return template_arguments(flow, BASE, FLOWS[flow].params(Path("/tmp"), 42), 42, counter)


def test_every_counter_gives_a_new_application_with_its_expiry_after_its_start() -> None:
    seen = set()
    for counter in range(400):
        args = arguments("insurance_application", counter)
        start, end = date.fromisoformat(args["effective_date"]), date.fromisoformat(args["expiry_date"])
        assert end > start
        seen.add((args["id_number"], args["product"], start))
    assert len(seen) == 400


def test_payments_and_claims_are_new_for_every_counter_and_filings_for_sixty_four() -> None:
    assert len({arguments("bank_payment", c)["business_ref"] for c in range(400)}) == 400
    claims = [arguments("insurance_claim", c) for c in range(400)]
    assert len({(claim["policy_number"], claim["loss_date"]) for claim in claims}) == 400
    assert len({filing(c) for c in range(64)}) == 64


@dataclass
class Event:
    type: EventType
    payload: dict[str, Any] = field(default_factory=dict)


def test_a_run_whose_effect_the_ledger_already_knew_as_done_is_counted() -> None:
    done_before = [Event(EventType.EFFECT, {"key": "k", "state": "succeeded"})]
    new = [
        Event(EventType.EFFECT, {"key": "k", "state": "started"}),
        Event(EventType.ACTION),
        Event(EventType.EFFECT, {"key": "k", "state": "succeeded", "external_ref": "P-1"}),
    ]
    assert effects_found_done(done_before) == 1
    assert effects_found_done(new) == 0
