"""Prometheus metrics of the API process: HTTP requests by route and status, and runs started/finished."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

HTTP_REQUESTS = Counter(
    "finrpa_http_requests_total", "HTTP requests handled, by method, route template and status.",
    ["method", "route", "status"],
)
HTTP_LATENCY = Histogram(
    "finrpa_http_request_duration_seconds", "Time to produce an HTTP response (streams: until their end).",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
RUNS_STARTED = Counter("finrpa_runs_started_total", "Runs handed to the embedded worker.")
RUNS_FINISHED = Counter(
    "finrpa_runs_finished_total", "Runs the embedded worker left, by the status they ended in.", ["status"]
)
