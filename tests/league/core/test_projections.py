"""Every kept total (each projection of league.core.changes) equals its rebuild from scratch,
after any sequence of the club's actions: games recorded, edited, voided and recorded in bulk,
payments, loans, deferrals, repayments, reversals, closes, shūgi, attendance, rules versions and
re-settles, merges, adjustments and their reversals, imports and their voids, table games played
hand by hand, and seasons made after their games. One property test for every projection, on
both databases; and the guard that fails an action which writes what a projection follows
without recording the change."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import pytest
from django.db import models, transaction
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from league.books import services as books
from league.core import changes
from league.core.actions import action
from league.core.errors import ServiceError
from league.models import HandStat, ImportBatch, Member, Result, Season
from league.recording import services
from league.table import services as table
from tests.support.books import WRITERS, BooksRunner, make_club
from tests.support.db import as_test_case
from tests.support.money_agreement import DATES, _points
from tests.support.seasons import make_season

pytestmark = pytest.mark.django_db

# The models each projection keeps (its rows are compared before and after its rebuild).
KEPT: dict[str, tuple[str, ...]] = {
    "standings": (
        "MemberTotal",
        "MemberRateTotal",
        "MemberDay",
        "PairTotal",
        "SeatTotal",
        "MemberGame",
        "MemberRating",
    ),
    "hand totals": ("HandStatTotal",),
    "books": ("Account", "OpenTransfer"),  # each account's kept balance; who still pays whom
}


def _zero(value: Any) -> bool:
    return value in (0, None, "", {}, [])


def rows(model_name: str, club_id: int) -> list[tuple[Any, ...]]:
    """The model's rows of the club, without their ids, leaving out rows that hold nothing (an
    incremental total that went back to zero is the rebuild's missing row)."""
    from django.apps import apps

    model = apps.get_model("league", model_name)
    names = [
        f.attname
        for f in model._meta.concrete_fields
        if not f.primary_key and not isinstance(f, models.DateTimeField)
    ]
    counters = [n for n in names if not n.endswith("_id") and n not in ("date", "rate", "seat")]
    found = model.objects.filter(club_id=club_id).values_list(*names)
    kept = [
        tuple(row)
        for row in found
        if not all(_zero(v) for n, v in zip(names, row, strict=True) if n in counters)
    ]
    return sorted(kept, key=repr)


def snapshot(name: str, club_id: int) -> dict[str, Any]:
    out: dict[str, Any] = {m: rows(m, club_id) for m in KEPT[name]}
    if name == "books":  # the book itself: each account's balance (its legs summed)
        out["book"] = books.club_booked(club_id)
    return out


class ProjectionRunner(BooksRunner):
    """The books' writers, and the rest of what moves a kept total."""

    def _live(self) -> list[Member]:
        return list(Member.objects.filter(club=self.club, merged_into__isnull=True).order_by("pk"))

    def imported(self, a: int, b: int, c: int) -> None:
        """A workbook of one or two games imported in short transactions under its batch."""
        from league.excel import imports
        from tests.support.imports import game, simple

        live = self._live()
        if len(live) < 4:
            return
        lines = []
        for i in range(1 + c % 2):
            start = (b + i) % len(live)
            seated = [live[(start + k) % len(live)] for k in range(4)]
            points = _points(b + 7 * i, 0)
            lines.append(
                game(
                    *[(m.name, p) for m, p in zip(seated, points, strict=True)],
                    date=DATES[(a + i) % len(DATES)],
                    table=f"I{i}",
                )
            )
        parsed = imports.workbook_read(simple(*lines), players=4)
        with contextlib.suppress(imports.ImportFailed):
            imports.import_stored(
                club=self.club,
                settled=imports.settled_of(club=self.club, parsed=parsed),
                user=self.user,
                mapping={},
                kana={},
                duplicates=True,
            )

    def void_import(self, a: int, b: int, c: int) -> None:
        from league.excel import imports

        batches = list(ImportBatch.objects.filter(club=self.club, voided=False).order_by("pk"))
        if batches:
            batch = batches[a % len(batches)]
            imports.batch_void(club=self.club, batch_id=batch.pk, user=self.user)

    def hands(self, a: int, b: int, c: int) -> None:
        """A table game played hand by hand to its end and saved: its hand statistics count."""
        live = self._live()
        if len(live) < 4:
            return
        seated = [live[(b + k) % len(live)] for k in range(4)]
        tg = table.table_start(
            club=self.club,
            user=self.user,
            key=uuid.uuid4(),
            date=DATES[a % len(DATES)],
            members=seated,
            rate="0.3",
            confirm_rate=True,
        )
        p, q, r, s = (str(m.pk) for m in seated)
        events = [  # マメの会's hand rules: a hanchan that ends on a yakuman busting `s`
            ({"result": "draw", "tenpai": [p, q], "riichi": [p]}, {}),
            (
                {
                    "result": "ron",
                    "from": s,
                    "winners": [
                        {"player": q, "han": 3, "fu": 40},
                        {"player": r, "han": 2, "fu": 30},
                    ],
                },
                {q: {"called": True}},
            ),
            ({"result": "draw", "tenpai": [], "riichi": [r]}, {}),
            ({"result": "tsumo", "winner": s, "han": 5, "riichi": [s]}, {s: {"ippatsu": True}}),
            ({"result": "ron", "from": p, "winners": [{"player": s, "yakuman": 1}]}, {}),
        ]
        for i, (event, marks) in enumerate(events):
            table.hand_record(
                tg=tg, user=self.user, index=i, key=uuid.uuid4(), event=event, marks=marks
            )
            if table.play(tg).state.ended:
                break
        if table.play(tg).state.ended:
            table.table_game_save(tg=tg, user=self.user)

    def adjust(self, a: int, b: int, c: int) -> None:
        """The books' adjustment, in a season made by the season action (the books' runner gets
        or creates it directly, which builds no totals for the games already in its dates)."""
        if not Season.objects.filter(club=self.club, name="通年").exists():
            make_season(club=self.club, name="通年", start=DATES[0], end=DATES[-1])
        super().adjust(a, b, c)

    def hands_changed(self, a: int, b: int, c: int) -> None:
        """A saved table game corrected hand by hand (its statistics move), or voided."""
        from league.models import Game, Hand, TableGame

        games = list(
            TableGame.objects.filter(club=self.club, game__voided=False, game__isnull=False)
            .select_related("game")
            .order_by("pk")
        )
        if not games:
            return
        tg = games[a % len(games)]
        if c % 2:
            services.game_void(game=tg.game, user=self.user, reason="二重入力")
            return
        hands = [
            {"event": h.event, "marks": h.marks}
            for h in Hand.objects.filter(table_game=tg, live=True).order_by("index")
        ]
        hands[b % len(hands)]["marks"] = {}  # a call or an ippatsu taken back
        game = Game.objects.get(pk=tg.game_id)
        table.table_game_edit(tg=tg, user=self.user, hands=hands, expected_revision=game.revision)

    def season_closed(self, a: int, b: int, c: int) -> None:
        """A season closed (its standings frozen) or reopened; or its dates moved."""
        from league.club import services as club_services

        seasons = list(Season.objects.filter(club=self.club).order_by("pk"))
        if not seasons:
            return
        season = seasons[a % len(seasons)]
        if c % 3 == 2:
            club_services.season_edit(
                season=season,
                user=self.user,
                name=season.name,
                start=DATES[b % len(DATES)],
                end=DATES[-1],
                min_games=season.min_games,
                confirm_overlap=True,
            )
        elif season.closed_at is None:
            club_services.season_close(season=season, user=self.user)
        else:
            club_services.season_reopen(season=season, user=self.user)

    def season(self, a: int, b: int, c: int) -> None:
        """A season made after games inside its dates: its totals are built then."""
        make_season(
            club=self.club,
            name=f"s{a}",
            start=DATES[a % len(DATES)],
            end=DATES[-1],
            min_games=c % 3,
        )


OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                *WRITERS,
                *("imported", "void_import", "hands", "hands", "hands_changed"),
                *("season", "season_closed"),
            ]
        ),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
    ),
    min_size=1,
    max_size=16,
)


def test_every_projection_is_compared():
    """The test below covers every projection the app registers."""
    assert {p.name for p in changes.PROJECTIONS} == set(KEPT)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPS)
@example(  # every writer at least once, whatever hypothesis draws
    ops=[
        ("game", 0, 1, 2),
        ("hands", 0, 2, 0),
        ("hands", 1, 3, 0),
        ("hands_changed", 0, 1, 0),  # edited by hand
        ("hands_changed", 1, 0, 1),  # voided
        ("season", 1, 0, 1),
        ("season_closed", 0, 0, 0),  # closed
        ("season_closed", 0, 0, 1),  # reopened
        ("season_closed", 0, 1, 2),  # its dates moved
        *((op, 1, 2, 3) for op in WRITERS),
        ("imported", 0, 1, 1),
        ("void_import", 0, 0, 0),
        ("merge", 0, 6, 0),
    ]
)
def test_every_projection_equals_its_rebuild(db, ops):
    with as_test_case():
        club, members, user = make_club("projections")
        runner = ProjectionRunner(club, members, user)
        for op, a, b, c in ops:
            try:
                with as_test_case():
                    runner.run(op, a, b, c)
            except ServiceError:
                pass  # refused with a message: nothing stored
        for projection in changes.PROJECTIONS:
            kept = snapshot(projection.name, club.pk)
            with action():
                projection.rebuild(club.pk)
            assert snapshot(projection.name, club.pk) == kept, (projection.name, ops)
        transaction.set_rollback(True)


def test_the_guard_fails_an_action_that_records_nothing(db):
    """An action that makes results count without recording the change fails as it ends; the
    same action recording it passes. (The guard is tests/support/projections.py.)"""
    club, members, user = make_club("guard")
    runner = ProjectionRunner(club, members, user)
    runner.game(0, 1, 2)
    rows = list(Result.objects.filter(club=club, counted=True))
    with pytest.raises(changes.Unrecorded, match="standings"), action():
        Result.objects.filter(pk=rows[0].pk).update(counted=False)
    with action():
        Result.objects.filter(pk=rows[0].pk).update(counted=False)
        changes.record(changes.ResultsChanged(club.pk, removed=rows[:1]))
        changes.record(changes.DaysChanged(club.pk, frozenset([rows[0].game.day_id])))
    with pytest.raises(changes.Unrecorded, match="hand totals"), action():
        HandStat.objects.filter(club=club).update(counted=False)


def test_a_change_recorded_in_a_savepoint_that_rolled_back_is_not_applied(db):
    from league.models.totals import MemberTotal

    club, members, user = make_club("savepoint")
    runner = ProjectionRunner(club, members, user)
    runner.game(0, 1, 2)
    before = rows("MemberTotal", club.pk)
    counted = list(Result.objects.filter(club=club, counted=True))
    with action(), contextlib.suppress(RuntimeError), transaction.atomic():
        changes.record(changes.ResultsChanged(club.pk, removed=counted))
        raise RuntimeError("rolled back")
    assert rows("MemberTotal", club.pk) == before
    assert MemberTotal.objects.filter(club=club, games__gt=0).exists()
