"""A large field's draw is made by the worker (league.draw.tasks), a club evening's inside the
request: the organiser asks, the page says the draw is being made and refreshes until the task
has stored it through the same action (services.round_draw / schedule_draw); asking again while
it runs asks nothing more; a failed or stalled draw is said and can be asked again.

The tests marked `database_tasks` keep the real database backend: the request enqueues into it
and the task is run here as `manage.py db_worker` runs it (its Worker.run_task), so the page
reads the task's own status (Django Tasks' result) at each step."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from league.core.names import name_key
from league.draw import algorithm
from league.draw import services as draw
from league.draw import tasks as draw_tasks
from league.models import AuditLog, Day, Member
from league.models.draw import Attendance, DrawRoom, DrawRound

DATE = datetime.date(2026, 11, 21)
BIG = 100  # a round of 100: its search may take 2.05 s, past INLINE_SECONDS


def field(club, n: int) -> Day:
    """`n` players checked in on DATE (written directly: the check-in is not what is tested)."""
    day, _created = Day.objects.get_or_create(club=club, date=DATE)
    members = Member.objects.bulk_create(
        Member(
            club=club,
            name=f"選手{i:03d}",
            kana=f"せんしゅ{i:03d}",
            name_key=name_key(f"選手{i:03d}"),
        )
        for i in range(n)
    )
    Attendance.objects.bulk_create(Attendance(day=day, member=m) for m in members)
    return day


def day_url(club, name: str = "draw:draw_day") -> str:
    return reverse(name, args=[club.slug, DATE])


def queued():
    from django_tasks_db.models import DBTaskResult

    return list(DBTaskResult.objects.order_by("enqueued_at"))


def work() -> None:
    """What a worker process does with each task waiting: claims it and runs it (the task's
    status moves to running, then successful or failed)."""
    from django_tasks_db.management.commands.db_worker import Worker

    from league.core.tasks import TaskResultStatus

    worker = Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
    for result in queued():
        if result.status == TaskResultStatus.READY:
            result.claim("test-worker")
            worker.run_task(result)


def test_the_threshold_keeps_a_club_evening_in_the_request():
    for players in range(8, 41):  # a club evening's round
        assert not draw.on_worker(players)
    assert not draw.on_worker(96)
    assert draw.on_worker(BIG) and draw.on_worker(172) and draw.on_worker(800)
    assert not draw.on_worker(16, rounds=5)  # a small cup day's schedule
    assert draw.on_worker(40, rounds=8)  # 3.3 s measured
    assert algorithm.default_time_cap(40, 1) < draw.INLINE_SECONDS


@pytest.mark.database_tasks
def test_a_club_evening_is_drawn_inside_the_request(club, organiser_client):
    field(club, 10)
    page = organiser_client.get(day_url(club))
    assert "data-proposal" in page.content.decode()  # proposed at once, as before
    response = organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    assert response.status_code == 302
    assert DrawRound.objects.filter(day__club=club).count() == 1
    assert queued() == []  # nothing asked of the worker
    assert not DrawRoom.objects.filter(day__club=club, draw_asked_at__isnull=False).exists()


@pytest.mark.database_tasks
def test_a_large_field_is_drawn_by_the_worker(club, organiser, organiser_client):
    field(club, BIG)
    page = organiser_client.get(day_url(club)).content.decode()
    # No proposal searched inside the request: a button that asks the worker.
    assert "data-proposal" not in page and 'data-worker-draw="1"' in page
    assert "100人の卓組は裏で作成します" in page

    response = organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    assert response.status_code == 302
    assert not DrawRound.objects.exists()  # nothing drawn in the request
    (task,) = queued()
    room = DrawRoom.objects.get(day__club=club)
    assert room.draw_task == str(task.id) and room.draw_asked_at is not None
    assert task.task_result.kwargs["number"] == 1

    waiting = organiser_client.get(day_url(club)).content.decode()
    assert "1回戦の卓組を裏で作成しています。" in waiting  # the message of the POST
    assert 'data-draw-job="waiting"' in waiting
    assert "1回戦の卓組を作成しています。" in waiting
    assert '<meta http-equiv="refresh"' in waiting
    assert "data-worker-draw" not in waiting  # no second button while it is drawn

    # Asked again while it waits: nothing more is asked.
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    assert len(queued()) == 1
    again = organiser_client.get(day_url(club)).content.decode()
    assert "卓組はすでに作成中です。" in again

    work()
    (rnd,) = DrawRound.objects.filter(day__club=club)
    assert (rnd.number, rnd.revision, rnd.tables.count()) == (1, 1, BIG // 4)
    assert rnd.created_by == organiser
    drawn = organiser_client.get(day_url(club)).content.decode()
    assert "data-draw-job" not in drawn and '<meta http-equiv="refresh"' not in drawn
    assert 'data-round="1"' in drawn
    # One write path: the action audited the draw as the organiser who asked.
    actions = list(
        AuditLog.objects.filter(club=club, action__startswith="draw.")
        .order_by("pk")
        .values_list("action", "actor")
    )
    assert actions == [("draw.ask", organiser.pk), ("draw.round", organiser.pk)]


@pytest.mark.database_tasks
def test_a_failed_draw_is_said_and_can_be_asked_again(club, organiser_client, monkeypatch):
    field(club, BIG)
    real = algorithm.draw

    def broken(**kwargs):
        raise RuntimeError("the search broke")

    monkeypatch.setattr(algorithm, "draw", broken)
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    work()
    assert not DrawRound.objects.exists()
    failed = organiser_client.get(day_url(club)).content.decode()
    assert 'data-draw-job="failed"' in failed and "卓組を作成できませんでした。" in failed
    assert '<meta http-equiv="refresh"' not in failed
    assert 'data-worker-draw="1"' in failed  # the button to ask again

    monkeypatch.setattr(algorithm, "draw", real)
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    assert len(queued()) == 2
    work()
    assert DrawRound.objects.filter(day__club=club).count() == 1
    assert "data-draw-job" not in organiser_client.get(day_url(club)).content.decode()


@pytest.mark.database_tasks
def test_a_draw_the_day_outran_says_why(club, organiser, organiser_client):
    """The field shrank below one table before the worker came to it: the task's action refuses
    (nothing stored) and the page gives its reason."""
    day = field(club, BIG)
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    Attendance.objects.filter(day=day).exclude(
        pk__in=Attendance.objects.filter(day=day).order_by("pk").values("pk")[:2]
    ).update(until_round=0)
    work()
    assert not DrawRound.objects.exists()
    page = organiser_client.get(day_url(club)).content.decode()
    assert 'data-draw-job="failed"' in page
    assert "1卓分の人数がいません（4人必要です）。" in page  # the draw's own words (TOO_FEW)


@pytest.mark.database_tasks
def test_a_stalled_draw_is_said_and_can_be_asked_again(club, organiser_client):
    from league.core.tasks import TaskResultStatus

    field(club, BIG)
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    (task,) = queued()
    # Its worker stopped mid-way: running since long past DRAW_STALLED_AFTER.
    long_ago = timezone.now() - datetime.timedelta(minutes=10)
    type(task).objects.filter(pk=task.pk).update(
        status=TaskResultStatus.RUNNING, started_at=long_ago, enqueued_at=long_ago
    )
    stalled = organiser_client.get(day_url(club)).content.decode()
    assert 'data-draw-job="stalled"' in stalled and "途中で止まりました" in stalled
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    assert len(queued()) == 2  # asked again
    work()
    assert DrawRound.objects.filter(day__club=club).count() == 1


@pytest.mark.database_tasks
def test_a_cup_day_schedule_of_a_large_field_is_drawn_by_the_worker(club, organiser_client):
    field(club, 24)  # 24 × 5 rounds: a search of up to 2.3 s
    assert draw.on_worker(24, rounds=5)
    url = day_url(club, "draw:draw_schedule")
    response = organiser_client.post(url, {"rounds": "5", "seats_drawn": "on"})
    assert response.status_code == 302 and response.url == url
    assert not DrawRound.objects.exists()
    waiting = organiser_client.get(url).content.decode()
    assert "全5回戦の日程を作成しています。" in waiting
    assert '<meta http-equiv="refresh"' in waiting and 'name="rounds"' not in waiting
    work()
    assert DrawRound.objects.filter(day__club=club, scheduled=True).count() == 5
    assert 'data-schedule-round="5"' in organiser_client.get(url).content.decode()


def test_bad_input_is_refused_in_the_request_and_nothing_is_asked(club, organiser):
    field(club, BIG)
    with pytest.raises(draw.ServiceError) as e:
        draw_tasks.draw_ask(club=club, user=organiser, date=DATE, redraw=True)
    assert "__all__" in e.value.errors  # no round to redraw yet
    with pytest.raises(draw.ServiceError) as e:
        draw_tasks.draw_ask(club=club, user=organiser, date=DATE, rounds=13)
    assert "rounds" in e.value.errors
    assert not DrawRoom.objects.filter(draw_asked_at__isnull=False).exists()


def test_the_worker_draw_runs_through_the_task_with_the_immediate_backend(club, organiser):
    """The tests' immediate backend runs the task at enqueue: the same task and action."""
    field(club, BIG)
    asked = draw_tasks.draw_ask(club=club, user=organiser, date=DATE)
    assert asked.queued and not asked.rounds
    assert DrawRound.objects.filter(day__club=club, number=1).count() == 1
    assert DrawRoom.objects.get(day__club=club).draw_task  # the result's id, kept


@pytest.mark.database_tasks
def test_a_draw_asked_again_after_a_stall_is_made_once(club, organiser_client):
    """No worker came for an hour (stalled while waiting), the organiser asked again, then a
    worker runs both tasks: the round asked for is drawn once, the older task draws nothing
    (it asked for round 1, revision 1, which exists by then) rather than a round 2."""
    field(club, BIG)
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    (first,) = queued()
    type(first).objects.filter(pk=first.pk).update(
        enqueued_at=timezone.now() - datetime.timedelta(hours=1)
    )
    stalled = organiser_client.get(day_url(club)).content.decode()
    assert 'data-draw-job="stalled"' in stalled
    organiser_client.post(day_url(club, "draw:draw_round"), {"seats_drawn": "on"})
    assert len(queued()) == 2
    work()
    assert list(DrawRound.objects.values_list("number", "revision")) == [(1, 1)]
    results = [t.task_result.return_value for t in queued()]
    assert {"rounds": [1]} in results
    assert any("error" in r for r in results)  # the other one refused
