"""Benchmark: risk detection quality on the labelled corpus, and stage-1 latency on a 50 KB page.

Quality (tests/data/risk_corpus.jsonl, hand-labelled from SPEC C10). ``split``: ``dev`` cases were written while
the rules were built; ``holdout`` cases after them (two misses found there were then fixed, so it is no longer
blind); ``holdout2`` cases after that, and the rules were not changed for them:

* stage 1 alone: precision and recall per level, the confusion matrix, and the safety count (critical writes
  classified below high — must be 0);
* stage 1 + 2 through the real LLM layer against the scripted local OpenAI-compatible server, with two scripted
  analysts: ``oracle`` answers the corpus label (a perfect LLM: how much the bounds let it fix) and ``low-always``
  answers low to everything (a fooled or hostile LLM: what the bounds protect).

Latency: stage 1 on 50 KB of page text with 2,000 keywords (the shipped libraries plus generated terms) for the
action kinds stage 1 sees: a read, a write that names its operation, a confirm step that must read the amount
in the page body, and a generic confirm that must also read which operation the page confirms; then the confirm
again on the same page with a 金额 column header (labelled amounts are read exactly around each money label) and
with amounts in two currencies (the general amount pass instead of the one for plain 元 amounts). Target: median
≤ 1 ms. The page text is statement-like and dense (a risky keyword every ~8 characters, an amount every ~70).
Each latency line also prints the median CPU time of the thread (``time.thread_time``), which a machine shared
with other work inflates far less than the wall-clock median. A machine reference is printed first — the median
time of ``sum(range(10**6))``, which involves nothing of FinRPA — so figures from different machines or days can be
set side by side (the latencies scale with it).

Run: .venv/bin/python bench/bench_risk.py
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted server lives in tests/fixtures

from tests.fixtures.llm_server import Reply, ScriptedLLMServer, scripted_llm_settings

from finrpa.llm.client import LLMClient
from finrpa.llm.usage import CallContext, LogUsageRecorder
from finrpa.risk.categories import Category
from finrpa.risk.config import ExtraKeyword, RiskConfig
from finrpa.risk.levels import RiskLevel
from finrpa.risk.library import library_entries
from finrpa.risk.llm_analyst import LLMRiskAnalyst
from finrpa.risk.schemas import RiskInput
from finrpa.risk.service import RiskAssessor

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "risk_corpus.jsonl"
LEVELS = [level.value for level in RiskLevel]
PAGE_CHARS = 50_000
KEYWORDS = 2_000
RUNS = 200
HEADER = "交易日期 交易类型 金额 余额 对方户名 流水号\n"  # a money label: its amounts are read exactly near it

Case = dict[str, object]


def load_cases() -> list[Case]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def report_quality(title: str, cases: list[Case], predicted: list[str]) -> None:
    expected = [str(case["expected_level"]) for case in cases]
    correct = sum(e == p for e, p in zip(expected, predicted, strict=True))
    print(f"\n{title}  ({len(cases)} cases, accuracy {correct / len(cases):.1%})")
    print(f"  {'level':<9}{'precision':>10}{'recall':>8}{'support':>9}")
    for level in LEVELS:
        true_positive = sum(e == p == level for e, p in zip(expected, predicted, strict=True))
        said = predicted.count(level)
        actual = expected.count(level)
        precision = true_positive / said if said else float("nan")
        recall = true_positive / actual if actual else float("nan")
        print(f"  {level:<9}{precision:>10.2f}{recall:>8.2f}{actual:>9}")
    confusion = Counter(zip(expected, predicted, strict=True))
    print("  confusion (rows expected, columns predicted): " + " | ".join(
        f"{e}: " + " ".join(str(confusion[(e, p)]) for p in LEVELS) for e in LEVELS
    ))  # fmt: skip
    unsafe = [
        case["id"] for case, p in zip(cases, predicted, strict=True)
        if case["expected_level"] == "critical" and case["effect"] != "read" and RiskLevel(p).rank < 2
    ]  # fmt: skip
    print(f"  critical writes classified below high: {len(unsafe)} {unsafe or ''}")


def stage1_quality(cases: list[Case]) -> None:
    assessor = RiskAssessor()
    for split in ("dev", "holdout", "holdout2", None):
        chosen = [case for case in cases if split is None or case.get("split", "dev") == split]
        if chosen:
            predicted = [assessor.assess_stage1(RiskInput.model_validate(case)).final_level.value for case in chosen]
            report_quality(f"Stage 1 alone, {split or 'all'} cases", chosen, predicted)


async def stage2_quality(cases: list[Case], analyst_name: str, answer: Callable[[Case], str]) -> None:
    with ScriptedLLMServer() as server:
        client = LLMClient.from_settings(scripted_llm_settings(server), LogUsageRecorder())
        assessor = RiskAssessor(analyst=LLMRiskAnalyst(client, CallContext(org_id="bench")))
        predicted, calls = [], 0
        for case in cases:
            action = RiskInput.model_validate(case)
            if assessor.detector.assess(action).triggered:
                server.enqueue(Reply.json({"level": answer(case), "reason": f"scripted {analyst_name} analyst"}))
                calls += 1
            predicted.append((await assessor.assess(action)).final_level.value)
        await client.aclose()
    report_quality(f"Stage 1 + 2, scripted '{analyst_name}' LLM ({calls} LLM calls)", cases, predicted)


def bench_config() -> RiskConfig:
    """The shipped libraries plus generated terms up to 2,000 keywords, spread over the shipped categories."""
    shipped = library_entries("*", RiskConfig())
    categories = [entry.category for entry in shipped if entry.category is not Category.INJECTION]
    rnd = random.Random(7)
    alphabet = "账户资金交易明细服务业务办理结果信息管理系统中心产品基金保险证券票据额度利率汇率结算清算托管"
    terms = {entry.term for entry in shipped}
    extra: list[ExtraKeyword] = []
    while len(terms) < KEYWORDS:
        term = "".join(rnd.choice(alphabet) for _ in range(rnd.choice((3, 4, 5))))
        if term not in terms:
            terms.add(term)
            category = rnd.choice(categories)
            extra.append(ExtraKeyword(term=term, level=RiskLevel.MEDIUM, category=category))
    return RiskConfig(extra_keywords=tuple(extra))


def page_text() -> str:
    rnd = random.Random(11)
    lines = ["首页 | 账户查询 | 转账汇款 | 对公付款 | 代发工资 | 贷款服务 | 理财 | 安全中心 | 修改密码 | 退出"]
    kinds = ["转账汇款", "对公付款", "代发工资", "跨行转账", "利息入账", "手续费", "贷款放款", "理财赎回"]
    while sum(len(line) + 1 for line in lines) < PAGE_CHARS:
        amount = rnd.randint(100, 9_000_000)
        lines.append(
            f"2024-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} {rnd.choice(kinds)} {amount:,}.00 元 "
            f"余额 {rnd.randint(1_000_000, 90_000_000):,}.00 元 对方户名 某某公司 流水号 {rnd.randint(10**11, 10**12)}"
        )
    return "\n".join(lines)[:PAGE_CHARS]


def machine_reference() -> float:
    """Median milliseconds of a fixed pure-Python workload (no FinRPA code): how fast this machine is right now."""
    samples = []
    for _ in range(21):
        started = time.perf_counter()
        sum(range(10**6))
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def latency() -> None:
    print(f"\nMachine reference: sum(range(10**6)) median {machine_reference():.1f} ms")
    config = bench_config()
    assessor = RiskAssessor(config)
    text = page_text()
    print(f"\nStage-1 latency: {len(text):,} characters ({len(text.encode()):,} bytes UTF-8) of page text, "
          f"{len(library_entries('*', config)):,} keywords, {RUNS} runs each")  # fmt: skip
    in_usd = text.replace(".00 元 余额", ".00 USD 余额", 50)
    kinds: list[tuple[str, dict[str, object]]] = [
        ("read: 查询 on the statement page", {"target_text": "查询", "effect": "read"}),
        ("write naming its operation: 付款金额",
         {"target_text": "付款金额", "values": {"value": "1,500,000"}, "effect": "write"}),
        ("confirm, amount from the page: 确认付款", {"target_text": "确认付款", "effect": "irreversible"}),
        ("generic confirm, operation and amount from the page",
         {"page_title": "", "target_text": "确定", "effect": "irreversible"}),
        ("confirm, page with a 金额 column header", {"target_text": "确认付款", "effect": "irreversible",
                                                 "page_text": HEADER + text[: PAGE_CHARS - len(HEADER)]}),
        ("confirm, some amounts in USD (general amount pass)", {"target_text": "确认付款", "effect": "irreversible",
                                                           "page_text": in_usd}),
    ]  # fmt: skip
    medians = []
    for label, fields in kinds:
        action = RiskInput.model_validate({"domain": "bank", "page_title": "对公付款", "page_text": text} | fields)
        assessor.assess_stage1(action)  # build the automata once
        samples, cpu = [], []
        for _ in range(RUNS):
            started, started_cpu = time.perf_counter(), time.thread_time()
            assessor.assess_stage1(action)
            samples.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
        samples.sort()
        median = statistics.median(samples)
        medians.append(median)
        print(f"  {label:<55} median {median:7.3f} ms   p99 {samples[int(RUNS * 0.99) - 1]:7.3f} ms   "
              f"target ratio {median / 1.0:5.2f}x   (CPU median {statistics.median(cpu):6.3f} ms)")  # fmt: skip


def main() -> None:
    cases = load_cases()
    stage1_quality(cases)
    asyncio.run(stage2_quality(cases, "oracle", lambda case: str(case["expected_level"])))
    asyncio.run(stage2_quality(cases, "low-always", lambda case: "low"))
    latency()


if __name__ == "__main__":
    main()
