"""Hand-written Playwright scripts for the six sandbox flows: the speed baseline FinRPA is compared against.

Each module has `async def run_v1(page, base_url, params) -> dict` and `run_v2(...)`, written the way a
skilled automation engineer writes them for that layout (labels and roles, no generated ids).
`python -m bench.baseline <flow> --layout v1|v2` runs one against an in-process sandbox.
"""
