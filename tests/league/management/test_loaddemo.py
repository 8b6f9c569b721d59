"""`manage.py loaddemo`: the six preset clubs, settled and audited through the services."""

from __future__ import annotations

from collections import defaultdict
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

import scoring
from league.management.commands.loaddemo import CLUBS
from league.models import AuditLog, ChipEvent, Club, Day, Game, Member, Membership, Result, Season
from league.models.stats import MemberGame, MemberRating, PairTotal, SeatTotal


def loaddemo(*args: str) -> str:
    out = StringIO()
    call_command("loaddemo", *args, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    models = [Club, Membership, Member, Season, Day, Game, Result, ChipEvent, AuditLog]
    return {m.__name__: m.objects.count() for m in models} | {
        "users": get_user_model().objects.count(),
        "attendances": Day.attendees.through.objects.count(),
    }


@pytest.mark.django_db
@pytest.mark.rate_rule  # the demo's tables at another rate are confirmed: not stopped by the rule
def test_loaddemo_then_again():
    """One load (it records some 180 games through the services, the slowest part of the suite
    when it was done once per check), every check of the loaded clubs, then a second load that
    changes nothing."""
    out = loaddemo()
    clubs_are_settled_and_audited(out)
    games_are_settled_as_the_engine_settles_them()
    past_days_are_closed_and_their_money_agrees()
    the_demo_days_message_is_pinned()
    before = counts()
    out = loaddemo("--migrate")  # dev.py start's: migrate first, in the same process
    assert "No migrations to apply" in out and "exist already" in out
    assert "demo / demo-jancho" in out
    assert counts() == before


def clubs_are_settled_and_audited(out: str) -> None:
    assert "demo / demo-jancho" in out and "admin / admin-jancho" in out
    assert "http://127.0.0.1:8000/" in out

    clubs = {c.slug: c for c in Club.objects.all()}
    assert sorted(clubs) == sorted(spec.preset for spec in CLUBS)
    assert clubs["mame-no-kai"].name == "マメの会"
    demo = get_user_model().objects.get(username="demo")
    assert demo.check_password("demo-jancho")
    assert Membership.objects.filter(user=demo, role=Membership.ORGANISER).count() == 6
    assert get_user_model().objects.get(username="admin").is_superuser
    assert clubs["kinyokai-2015"].rules_versions.count() == 2

    for club in clubs.values():
        assert club.members.count() == 12
        assert club.members.filter(is_guest=True).count() == 2
        assert Season.objects.get(club=club).min_games == 10
        assert club.games.count() >= 16

    # Every game settles to the totals of its rules, and every write is in the audit log.
    rows = defaultdict(list)
    for r in Result.objects.filter(counted=True).select_related("game__rules_version"):
        rows[r.game].append(r)
    for game, results in rows.items():
        rules = game.rules_version.rules
        assert len(results) == rules.players
        assert sum(r.points for r in results) + game.deposits == rules.players * rules.start
        house = game.deposits // 100 if rules.deposits == "house" else 0
        assert sum(r.score for r in results) == -house
        assert sum(r.chips for r in results) == 0
        assert all(r.points % 100 == 0 for r in results)
    games = Game.objects.count()
    assert AuditLog.objects.filter(action="game.create").count() == games
    assert Game.objects.filter(voided=True).count() == 2
    assert Game.objects.filter(revision=2).count() == 1
    assert len(rows) == games - 2  # void games count nowhere

    # What the demo is there to show.
    assert Game.objects.filter(club=clubs["pairon-kansai-3p"]).exclude(rate="").count() == 0
    assert Result.objects.filter(club=clubs["pairon-kansai-3p"], seat=3).count() == 0
    assert ChipEvent.objects.filter(kind="ippatsu").exists()
    assert ChipEvent.objects.filter(kind="yakuman").exists()
    assert Result.objects.filter(chombo__gt=0).exists()
    assert Result.objects.filter(points__lt=0).exists()
    assert Game.objects.filter(deposits__gt=0).exists()
    assert Game.objects.filter(club=clubs["mame-no-kai"]).exclude(rate="").exists()
    # The statistics (issue 24), kept as the demo games were recorded: every counted game in
    # the rating's chronicle, head-to-head and seats for every club, a yakuman in the records.
    for club in clubs.values():
        counted = Result.objects.filter(club=club, counted=True).count()
        assert MemberGame.objects.filter(club=club).count() == counted
        assert MemberRating.objects.filter(club=club).exists()
        assert PairTotal.objects.filter(club=club, season__isnull=True).exists()
        assert SeatTotal.objects.filter(club=club, season__isnull=True, seat=0).exists()
    assert MemberGame.objects.filter(yakuman__gt=0).exists()
    for day in Day.objects.prefetch_related("attendees", "games__results"):
        players = {r.member_id for g in day.games.all() for r in g.results.all()}
        attendees = {m.pk for m in day.attendees.all()}
        assert players <= attendees and len(attendees - players) <= 1


def games_are_settled_as_the_engine_settles_them() -> None:
    for game in Game.objects.filter(voided=False).select_related("rules_version"):
        results = list(Result.objects.filter(game=game, counted=True).order_by("seat"))
        settled = scoring.settle_game(
            game.rules_version.rules,
            scoring.Game(
                seats=tuple(scoring.Seat(str(r.member_id), r.points) for r in results),
                deposits=game.deposits,
                chombo=tuple(str(r.member_id) for r in results for _ in range(r.chombo)),
                chips=tuple(
                    scoring.ChipEvent(
                        c.kind,
                        str(c.winner_id),
                        str(c.discarder_id) if c.discarder_id else None,
                        c.multiplier,
                    )
                    for c in game.chip_events.filter(revision=game.revision)
                ),
                rate=game.rate or None,
            ),
        )
        assert [(p.score, p.chips, p.yen) for p in settled.players] == [
            (r.score, r.chips, r.yen) for r in results
        ]


def past_days_are_closed_and_their_money_agrees() -> None:
    """締め as a real club does: all days but the latest are closed with nothing left open, some
    with a deferred debt; the latest day is still being settled. Statement balances and open
    debts then agree with the days' open transfers."""
    from league import money
    from league.books import selectors as book_selectors
    from league.models import LedgerEntry

    for club in Club.objects.all():
        days = list(Day.objects.filter(club=club).order_by("date"))
        money_days = [d for d in days if money.day_ledger(day=d).has_money]
        if not money_days:
            continue
        assert days[-1].closed_at is None
        for day in days[:-1]:
            ledger = money.day_ledger(day=day)
            if ledger.has_money:
                assert day.closed_at is not None, (club.slug, day.date)
                assert not ledger.transfers, (club.slug, day.date)
        assert AuditLog.objects.filter(club=club, action="day.close").count() == sum(
            1 for d in days[:-1] if d.closed_at is not None
        )
        # What each member owes, three ways: the statement's balance equals the latest (open)
        # day's outstanding amount plus the open debts page's lines for them.
        latest = money.day_ledger(day=days[-1])
        debts = money.open_debts(club=club)
        for member in Member.objects.filter(club=club):
            owed_by_debts = sum(
                (d.remaining if d.creditor_id == member.pk else 0)
                - (d.remaining if d.debtor.pk == member.pk else 0)
                for d in debts
            )
            expected = latest.outstanding.get(member.pk, 0) + owed_by_debts
            statement = book_selectors.full_statement(member=member)
            assert statement.balance == expected, (club.slug, member.name)
    assert LedgerEntry.objects.filter(kind=LedgerEntry.DEFERRAL).exists()


def the_demo_days_message_is_pinned() -> None:
    """The day's message to share (LINE) for a demo day, word for word."""
    from tests.support.sharing import DEMO_DAY, DEMO_TEXT, share_url, text_of

    client = Client()
    client.login(username="demo", password="demo-jancho")
    club = Club.objects.get(slug="mame-no-kai")
    response = client.get(share_url(club, DEMO_DAY))
    assert response.status_code == 200
    assert text_of(response) == DEMO_TEXT
