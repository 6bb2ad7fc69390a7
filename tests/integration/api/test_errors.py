"""Errors are problem documents from one place: unknown routes, validation, internals never shown, request ids."""

from __future__ import annotations

import httpx
import pytest

from finrpa.api import ApiOptions, create_app
from tests.integration.api.world import World

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_an_unknown_api_route_is_a_404_problem(world: World) -> None:
    response = await world.call("GET", "/api/v1/no-such-thing", "a", "viewer")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "not_found"


async def test_invalid_input_is_a_422_problem_listing_each_field(world: World) -> None:
    response = await world.call("POST", "/api/v1/tasks", "a", "operator", json={"parameters": "not an object"})
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "validation_failed"
    locations = {error["location"] for error in problem["errors"]}
    assert "body.parameters" in locations


async def test_a_sane_request_id_is_echoed_and_a_strange_one_replaced(world: World) -> None:
    echoed = await world.client.get("/healthz", headers={"X-Request-ID": "client-req-0001"})
    assert echoed.headers["x-request-id"] == "client-req-0001"
    replaced = await world.client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"})
    assert replaced.headers["x-request-id"] != "bad id\twith spaces" and len(replaced.headers["x-request-id"]) == 32


async def test_an_unexpected_error_is_a_500_problem_without_internals(world: World) -> None:
    app = create_app(world.settings, ApiOptions(worker=False, dispatcher=False))

    @app.get("/api/v1/test-boom")
    async def boom() -> None:
        raise RuntimeError("connection string postgresql://app:hunter2@db/prod leaked")

    app.router.routes.insert(0, app.router.routes.pop())  # before the dashboard's catch-all route
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://finrpa.test") as client:
        response = await client.get("/api/v1/test-boom")
    assert response.status_code == 500
    problem = response.json()
    assert problem["code"] == "internal_error" and problem["request_id"] == response.headers["x-request-id"]
    assert "hunter2" not in response.text and "RuntimeError" not in response.text


async def test_health_readiness_and_prometheus_metrics_need_no_sign_in(world: World) -> None:
    assert (await world.client.get("/healthz")).json()["status"] == "ok"
    ready = await world.client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {
        "ready": True,
        "database": "ok",
        "migrations": "at head",
        "detail": "",
    }
    metrics = await world.client.get("/metrics")
    assert metrics.status_code == 200
    assert 'finrpa_http_requests_total{method="GET",route="/healthz",status="200"}' in metrics.text
    await world.call("GET", "/api/v1/tasks/no-such-run", "a", "viewer")
    metrics = await world.client.get("/metrics")
    assert 'route="/api/v1/tasks/{task_id}",status="404"' in metrics.text, "labelled by route template, not by id"


async def test_readiness_is_503_before_the_database_is_open(world: World) -> None:
    app = create_app(world.settings, ApiOptions(worker=False, dispatcher=False))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://finrpa.test") as client:
        response = await client.get("/readyz")
    assert response.status_code == 503 and response.json()["database"] == "not started"


async def test_the_openapi_document_is_published_with_the_problem_schema(world: World) -> None:
    document = (await world.client.get("/api/v1/openapi.json")).json()
    assert "Problem" in document["components"]["schemas"]
    assert document["paths"]["/api/v1/tasks"]["post"]["security"] == [{"bearer": []}]
    assert "security" not in document["paths"]["/api/v1/auth/login"]["post"]
