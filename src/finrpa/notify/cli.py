"""``finrpa notify …``: configure channels, send a test message, inspect and drive the outbox."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.config import get_settings
from finrpa.db.engine import unit_of_work
from finrpa.notify import service
from finrpa.notify.dispatcher import Dispatcher, DispatcherConfig
from finrpa.notify.errors import ChannelConfigError
from finrpa.notify.events import SUBSCRIBABLE_EVENTS
from finrpa.notify.schemas import ChannelCreate, ChannelView, DeliveryStatus, DeliveryView
from finrpa.tenancy import open_tenant_database, system_context

notify_app = typer.Typer(help="Notification channels (WeCom, DingTalk, webhook, e-mail) and their outbox.")

T = TypeVar("T")
Sessions = async_sessionmaker[AsyncSession]

_ORG = typer.Option(..., "--org", help="Organisation id the channel belongs to.")


def _with_database(work: Callable[[Sessions], Awaitable[T]]) -> T:
    async def run() -> T:
        database = open_tenant_database(get_settings().resolved_database_url)
        try:
            return await work(database.sessions)
        finally:
            await database.dispose()

    return asyncio.run(run())


@notify_app.command("channels")
def channels(
    org: str | None = typer.Option(None, "--org", help="Only this organisation (default: all)."),
) -> None:
    """List notification channels; endpoints are masked and secrets never shown."""

    async def work(sessions: Sessions) -> list[ChannelView]:
        with system_context("finrpa notify channels", org_id=org):
            async with unit_of_work(sessions) as session:
                return await service.list_channels(session, org)

    views = _with_database(work)
    if not views:
        typer.echo(
            "No notification channels. Add one with: finrpa notify add NAME --org ORG --kind … --config …"
        )
        return
    for view in views:
        state = "enabled" if view.enabled else "disabled"
        events = ",".join(str(kind) for kind in view.events)
        typer.echo(f"{view.org_id}  {view.name}  {view.kind}  {view.endpoint}  {state}  {events}")


@notify_app.command("add")
def add(
    name: str = typer.Argument(..., help="A name unique in the organisation."),
    org: str = _ORG,
    kind: str = typer.Option(..., "--kind", help="wecom, dingtalk, webhook or email."),
    config: str = typer.Option(
        ...,
        "--config",
        help='JSON settings, e.g. \'{"url": "secret://env/FINRPA_NOTIFY_SECRET_WECOM_URL"}\'. '
        "Secrets must be secret:// references.",
    ),
    events: str = typer.Option(
        "all", "--events", help=f"Comma-separated, or 'all': {', '.join(SUBSCRIBABLE_EVENTS)}."
    ),
) -> None:
    """Add a channel to an organisation."""
    create = _channel_create(name, kind, config, events)

    async def work(sessions: Sessions) -> ChannelView:
        with system_context("finrpa notify add", org_id=org):
            async with unit_of_work(sessions) as session:
                return await service.add_channel(session, org, create, get_settings())

    view = _with_database(work)
    typer.echo(f"Added {view.kind} channel {view.name!r} ({view.endpoint}) to {org}.")


@notify_app.command("remove")
def remove(name: str = typer.Argument(..., help="Channel name or id."), org: str = _ORG) -> None:
    """Remove a channel and its deliveries."""

    async def work(sessions: Sessions) -> None:
        with system_context("finrpa notify remove", org_id=org):
            async with unit_of_work(sessions) as session:
                await service.remove_channel(session, org, name)

    _with_database(work)
    typer.echo(f"Removed channel {name!r} from {org}.")


@notify_app.command("test")
def test(channel: str = typer.Argument(..., help="Channel name or id."), org: str = _ORG) -> None:
    """Send a test message to one channel now and say whether it was accepted."""

    async def work(sessions: Sessions) -> str:
        with system_context("finrpa notify test", org_id=org):
            dispatcher = Dispatcher(sessions, config=DispatcherConfig.from_settings(get_settings()))
            return await dispatcher.send_test(org, channel)

    endpoint = _with_database(work)
    typer.echo(f"Test message accepted by {endpoint}.")


@notify_app.command("deliveries")
def deliveries(
    org: str | None = typer.Option(None, "--org", help="Only this organisation (default: all)."),
    status: DeliveryStatus | None = typer.Option(None, "--status", help="pending, sending, sent or dead."),
    limit: int = typer.Option(50, "--limit", min=1, max=1000),
) -> None:
    """The most recent deliveries of the outbox, newest first."""

    async def work(sessions: Sessions) -> list[DeliveryView]:
        with system_context("finrpa notify deliveries", org_id=org):
            async with unit_of_work(sessions) as session:
                return await service.list_deliveries(session, org, status, limit)

    for view in _with_database(work):
        when = (view.sent_at or view.next_attempt_at).isoformat(timespec="seconds")
        error = f"  {view.last_error}" if view.last_error else ""
        state = f"{view.status}  attempts={view.attempts}  {when}{error}"
        typer.echo(f"{view.id}  {view.org_id}  {view.event_kind}  {state}")


@notify_app.command("redeliver")
def redeliver(delivery_id: str = typer.Argument(...), org: str = _ORG) -> None:
    """Queue a dead delivery again with a fresh set of attempts (after fixing its channel)."""

    async def work(sessions: Sessions) -> None:
        with system_context("finrpa notify redeliver", org_id=org):
            async with unit_of_work(sessions) as session:
                await service.redeliver(session, org, delivery_id)

    _with_database(work)
    typer.echo(f"Delivery {delivery_id} is queued again.")


@notify_app.command("dispatch")
def dispatch(
    loop: bool = typer.Option(False, "--loop", help="Keep dispatching until interrupted."),
) -> None:
    """Send what the outbox holds (one batch, or continuously with --loop)."""

    async def work(sessions: Sessions) -> str:
        dispatcher = Dispatcher(sessions)
        if loop:
            await dispatcher.run(asyncio.Event(), interval_s=get_settings().notify_poll_interval_s)
            return ""
        report = await dispatcher.dispatch_due()
        return f"claimed={report.claimed} sent={report.sent} retrying={report.retrying} dead={report.dead}"

    typer.echo(_with_database(work))


def _channel_create(name: str, kind: str, config: str, events: str) -> ChannelCreate:
    try:
        settings = json.loads(config)
    except json.JSONDecodeError as exc:
        raise ChannelConfigError(f"--config is not valid JSON ({exc.msg} at character {exc.pos}).") from exc
    if not isinstance(settings, dict):
        raise ChannelConfigError('--config must be a JSON object, e.g. {"url": "secret://…"}.')
    chosen = list(SUBSCRIBABLE_EVENTS) if events.strip() == "all" else [e.strip() for e in events.split(",")]
    try:
        return ChannelCreate.model_validate(
            {"name": name, "events": chosen, "config": {**settings, "kind": kind}}
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise ChannelConfigError(f"The channel settings are not valid: {problems}.") from exc
