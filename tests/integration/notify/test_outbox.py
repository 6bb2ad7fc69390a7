"""The outbox: transactional enqueue, at-most-once dispatch, backoff, dead letters, crashes, tenancy."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select

from finrpa.db.base import utcnow
from finrpa.db.engine import unit_of_work
from finrpa.notify import repository, service
from finrpa.notify.events import EventKind, NeedsHuman, RunFailed
from finrpa.notify.models import NotifyDelivery
from finrpa.notify.outbox import enqueue
from finrpa.notify.schemas import ChannelCreate, DeliveryStatus, DeliveryView
from finrpa.tenancy import TenantDatabase, system_context, use_tenant
from tests.integration.notify.conftest import ORG, Answer, Receiver, acting_for, add_channel, dispatcher_for

HOOK_SECRET = "secret://env/FINRPA_NOTIFY_SECRET_HOOK"


def _webhook(receiver: Receiver, name: str = "hook", path: str = "/hook", **extra: object) -> ChannelCreate:
    config = {"kind": "webhook", "url": receiver.url(path), "secret": HOOK_SECRET}
    return ChannelCreate.model_validate({"name": name, "config": config, **extra})


def _failed(run_id: str = "run-1", org_id: str = ORG) -> RunFailed:
    return RunFailed(org_id=org_id, run_id=run_id, error="portal returned 503")


async def _enqueue(database: TenantDatabase, *events: RunFailed | NeedsHuman, org_id: str = ORG) -> list[str]:
    ids: list[str] = []
    with use_tenant(acting_for(org_id)):
        async with unit_of_work(database.sessions) as session:
            for event in events:
                ids += await enqueue(session, event)
    return ids


async def _deliveries(database: TenantDatabase, org_id: str = ORG) -> list[DeliveryView]:
    with use_tenant(acting_for(org_id)):
        async with unit_of_work(database.sessions) as session:
            return await service.list_deliveries(session, org_id)


async def test_enqueue_is_part_of_the_callers_transaction(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    with use_tenant(acting_for()):
        try:
            async with unit_of_work(database.sessions) as session:
                assert len(await enqueue(session, _failed("run-rolled-back"))) == 1
                raise RuntimeError("the run step failed after enqueueing")
        except RuntimeError:
            pass
    assert await _deliveries(database) == []

    await _enqueue(database, _failed("run-kept"))
    assert [view.status for view in await _deliveries(database)] == [DeliveryStatus.PENDING]
    assert receiver.received() == []  # enqueueing never talks to the network


async def test_only_enabled_subscribed_channels_get_a_delivery_and_the_same_event_lands_once(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver, "failures", events=[EventKind.RUN_FAILED]))
    await add_channel(database, _webhook(receiver, "humans", events=[EventKind.NEEDS_HUMAN]))
    await add_channel(database, _webhook(receiver, "paused", enabled=False))
    await add_channel(database, _webhook(receiver, "other-org"), org_id="org-b")

    first = await _enqueue(database, _failed("run-1"))
    again = await _enqueue(database, _failed("run-1"))  # a retried step enqueues the same event again

    assert len(first) == 1
    assert again == []
    assert len(await _deliveries(database)) == 1
    assert await _deliveries(database, "org-b") == []


async def test_dispatching_twice_sends_once(database: TenantDatabase, receiver: Receiver) -> None:
    await add_channel(database, _webhook(receiver))
    await _enqueue(database, _failed("run-1"), _failed("run-2"))
    dispatcher = dispatcher_for(database)

    first = await dispatcher.dispatch_due()
    second = await dispatcher.dispatch_due(utcnow() + timedelta(days=1))

    assert (first.claimed, first.sent) == (2, 2)
    assert second.claimed == 0
    assert len(receiver.received("/hook")) == 2
    assert len({request.headers["x-finrpa-delivery"] for request in receiver.received()}) == 2


async def test_concurrent_dispatchers_send_each_delivery_once(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    await _enqueue(database, *(_failed(f"run-{n}") for n in range(12)))
    dispatchers = [dispatcher_for(database, batch_size=5) for _ in range(3)]

    reports = await asyncio.gather(*(d.dispatch_due() for d in dispatchers))
    reports += await asyncio.gather(*(d.dispatch_due() for d in dispatchers))

    assert sum(report.sent for report in reports) == 12
    keys = [request.headers["x-finrpa-delivery"] for request in receiver.received()]
    assert len(keys) == len(set(keys)) == 12


async def test_failing_receiver_is_retried_with_growing_backoff_then_marked_dead(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    await _enqueue(database, _failed())
    receiver.answer(*(Answer(status=500, body={"error": "down"}) for _ in range(4)))
    dispatcher = dispatcher_for(database)  # 4 attempts, backoff 30 s × 2^n, no jitter
    now = utcnow()
    waits = []
    for attempt in range(1, 5):
        report = await dispatcher.dispatch_due(now)
        assert report.claimed == 1, f"attempt {attempt} was not due"
        [view] = await _deliveries(database)
        assert view.attempts == attempt
        assert "HTTP 500" in (view.last_error or "")
        if attempt < 4:
            assert view.status == DeliveryStatus.PENDING
            assert (await dispatcher.dispatch_due(view.next_attempt_at - timedelta(seconds=1))).claimed == 0
            waits.append((view.next_attempt_at - now).total_seconds())
            now = view.next_attempt_at
    assert waits == [30, 60, 120]
    assert view.status == DeliveryStatus.DEAD
    assert "Gave up after 4 attempts" in (view.last_error or "")
    assert (await dispatcher.dispatch_due(now + timedelta(days=30))).claimed == 0
    assert len(receiver.received()) == 4


async def test_a_hanging_receiver_times_out_without_holding_up_the_other_channels(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver, "slow", "/slow"))
    await add_channel(database, _webhook(receiver, "fine", "/fine"))
    receiver.answer(Answer(delay_s=5.0))  # the first request to arrive hangs past the 2 s timeout
    await _enqueue(database, _failed())

    report = await dispatcher_for(database, timeout_s=2.0).dispatch_due()

    assert (report.claimed, report.sent, report.retrying) == (2, 1, 1)
    [retrying] = [view for view in await _deliveries(database) if view.status == DeliveryStatus.PENDING]
    assert "did not answer within 2 s" in (retrying.last_error or "")


async def test_a_crash_between_claim_and_record_is_recovered_after_the_lease(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    await _enqueue(database, _failed())
    now = utcnow()
    with system_context("test: a dispatcher that dies after claiming"):
        async with unit_of_work(database.sessions) as session:
            [claimed] = await repository.claim_due(
                session, now=now, lease_until=now + timedelta(seconds=60), limit=10, max_attempts=4
            )
    dispatcher = dispatcher_for(database)

    assert (await dispatcher.dispatch_due(now + timedelta(seconds=30))).claimed == 0  # lease still held
    report = await dispatcher.dispatch_due(now + timedelta(seconds=61))

    assert report.sent == 1
    [view] = await _deliveries(database)
    assert (view.status, view.attempts) == (DeliveryStatus.SENT, 2)
    async with unit_of_work(database.sessions) as session:  # the dead dispatcher's late write is refused
        with system_context("test: late record"):
            late = repository.Outcome(DeliveryStatus.DEAD, "late")
            assert not await repository.record_outcome(session, claimed, late, now)


async def test_a_crash_on_the_last_attempt_ends_dead_with_an_honest_error(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    await _enqueue(database, _failed())
    now = utcnow()
    with system_context("test: dispatchers that die after claiming"):
        for attempt in range(4):
            async with unit_of_work(database.sessions) as session:
                moment = now + timedelta(minutes=2 * attempt)
                claimed = await repository.claim_due(
                    session, now=moment, lease_until=moment + timedelta(seconds=60), limit=10, max_attempts=4
                )
                assert len(claimed) == 1

    report = await dispatcher_for(database).dispatch_due(now + timedelta(hours=1))

    assert report.claimed == 0
    [view] = await _deliveries(database)
    assert view.status == DeliveryStatus.DEAD
    assert "outcome is unknown" in (view.last_error or "")
    assert receiver.received() == []


async def test_a_channel_disabled_before_sending_buries_its_delivery(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    await _enqueue(database, _failed())
    with use_tenant(acting_for()):
        async with unit_of_work(database.sessions) as session:
            await service.set_channel_enabled(session, ORG, "hook", False)

    report = await dispatcher_for(database).dispatch_due()

    assert report.dead == 1
    assert receiver.received() == []


async def test_a_dead_delivery_can_be_sent_again_after_the_channel_is_fixed(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    receiver.answer(Answer(status=403, body={"error": "forbidden"}))
    await _enqueue(database, _failed())
    dispatcher = dispatcher_for(database)
    assert (await dispatcher.dispatch_due()).dead == 1  # a 4xx is not retried

    [dead] = await _deliveries(database)
    with use_tenant(acting_for()):
        async with unit_of_work(database.sessions) as session:
            await service.redeliver(session, ORG, dead.id)
    assert (await dispatcher.dispatch_due()).sent == 1
    assert len(receiver.received()) == 2


async def test_a_tenant_sees_only_its_own_deliveries(database: TenantDatabase, receiver: Receiver) -> None:
    await add_channel(database, _webhook(receiver))
    await add_channel(database, _webhook(receiver), org_id="org-b")
    await _enqueue(database, _failed("run-a"))
    await _enqueue(database, _failed("run-b", org_id="org-b"), org_id="org-b")

    with use_tenant(acting_for("org-b")):
        async with unit_of_work(database.sessions) as session:
            rows = (await session.scalars(select(NotifyDelivery))).all()  # no explicit org filter
    assert [row.org_id for row in rows] == ["org-b"]
    assert (await dispatcher_for(database).dispatch_due()).sent == 2  # the dispatcher serves every org


async def test_the_background_loop_delivers_what_is_enqueued_and_stops_when_told(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(database, _webhook(receiver))
    stop = asyncio.Event()
    loop = asyncio.create_task(dispatcher_for(database).run(stop, interval_s=0.05))
    try:
        await _enqueue(database, _failed("run-loop"))
        async with asyncio.timeout(30):
            while not receiver.received():
                await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.wait_for(loop, timeout=30)
    [view] = await _deliveries(database)
    assert view.status == DeliveryStatus.SENT
