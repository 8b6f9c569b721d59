"""Merging two records of one player (league.club.services.member_merge): after the merge, the
survivor's standings, kept totals, season page, day ledgers, debts and statement are exactly those
of a club where the same games and payments were recorded under one name from the start.

Runs on SQLite and on PostgreSQL (DATABASE_URL=postgres://…/janchou_tidy … --create-db)."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.urls import reverse

from league import money
from league.books import selectors as book_selectors
from league.club import services as club_services
from league.core import errors
from league.models import (
    AuditLog,
    ChipEvent,
    Club,
    Day,
    DayShugi,
    Game,
    LedgerEntry,
    Member,
    Result,
    RulesVersion,
    Season,
)
from league.models.totals import MemberDay, MemberTotal
from league.money import services as money_services
from league.recording import services
from league.standings import stats
from tests.support.games import edit_game, record_game
from tests.support.isolation import money_rules

D1 = datetime.date(2026, 4, 4)
D2 = datetime.date(2026, 4, 11)
D3 = datetime.date(2026, 4, 18)
OPPONENTS = [("馬場", "ばば"), ("千葉", "ちば"), ("土井", "どい"), ("江藤", "えとう")]
TOTAL_FIELDS = [
    "games",
    "total",
    "rank_sum",
    "first",
    "second",
    "third",
    "fourth",
    "lasts",
    "best",
    "busts",
    "chombo",
    "chips",
    "yen",
]


def money_club(slug: str) -> Club:
    club = Club.objects.create(slug=slug, name=slug)
    RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2020, 1, 1), rules_json=money_rules()
    )
    return club


def game(club, user, date, seats, points, chips=(), rate="0.3") -> Game:
    return record_game(club, user, seats, points, date=date, rate=rate, chips=chips)


def play(club: Club, user, a: Member, b: Member, opponents: list[Member]) -> dict[str, Any]:
    """The same history for every club: games of `a` and of `b` (never together), an edit and a
    void, chips, a shūgi, attendance, a deferred debt, a payment. With a == b: one name."""
    p1, p2, p3, p4 = opponents
    season = Season.objects.create(club=club, name="春", start=D1, end=D2, min_games=2)
    game(club, user, D1, [a, p1, p2, p3], (52000, 31000, 19000, -2000), [("ippatsu", a, p2)])
    game(club, user, D1, [p1, b, p2, p3], (40000, 35000, 15000, 10000), [("yakuman", b, None)])
    g3 = game(club, user, D2, [b, p2, p3, p4], (20000, 30000, 25000, 25000))
    edit_game(g3, user, [b, p2, p3, p4], (45000, 30000, 15000, 10000), date=D2)
    g4 = game(club, user, D2, [p1, p2, b, p4], (25000, 25000, 25000, 25000))
    services.game_void(game=g4, user=user, reason="二重入力")
    game(club, user, D3, [p4, p3, a, p1], (10000, 20000, 60000, 10000))
    game(club, user, D3, [p2, p3, p4, p1], (30000, 30000, 20000, 20000))
    money_services.day_attendees_add(club=club, user=user, date=D1, members=[a, b])
    day1 = Day.objects.get(club=club, date=D1)
    money.shugi_add(day=day1, user=user, winner=b)
    day2 = Day.objects.get(club=club, date=D2)
    owed = next(
        t
        for t in money.day_ledger(day=day2).transfers
        if t.payer == str(b.pk) or t.payee == str(b.pk)
    )
    if owed.payer == str(b.pk):
        money.transfer_defer(day=day2, user=user, payer=b.pk, payee=money.party(owed.payee))
    else:
        money.transfer_defer(day=day2, user=user, payer=int(owed.payer), payee=b.pk)
    day3 = Day.objects.get(club=club, date=D3)
    owed = next(t for t in money.day_ledger(day=day3).transfers if str(a.pk) in (t.payer, t.payee))
    money.transfer_pay(
        day=day3,
        user=user,
        payer=money.party(owed.payer),
        payee=money.party(owed.payee),
        amount=max(1, owed.yen // 2),
    )
    return {"season": season, "days": [day1, day2, day3]}


@pytest.fixture
def two_clubs(db):
    """Club `two` records as 青木 and 青木(ゲスト) and merges the guest into 青木; club `one`
    records the same under 青木 alone."""
    from tests.support.clubs import make_user

    two, one = money_club("two"), money_club("one")
    user = make_user("boss")
    opp_two = [Member.objects.create(club=two, name=n, kana=k) for n, k in OPPONENTS]
    opp_one = [Member.objects.create(club=one, name=n, kana=k) for n, k in OPPONENTS]
    a = Member.objects.create(club=two, name="青木", kana="あおき")
    b = Member.objects.create(club=two, name="青木 ゲスト", kana="あおきげすと", is_guest=True)
    c = Member.objects.create(club=one, name="青木", kana="あおき")
    in_two = play(two, user, a, b, opp_two)
    in_one = play(one, user, c, c, opp_one)
    preview = club_services.merge_preview(keep=a, gone=b)
    club_services.member_merge(keep=a, gone=b, user=user, key=preview.key)
    return {
        "two": two,
        "one": one,
        "a": a,
        "b": b,
        "c": c,
        "user": user,
        "in_two": in_two,
        "in_one": in_one,
        "preview": preview,
    }


def _named(rows, drop=("member",)) -> list[dict[str, Any]]:
    return [{k: v for k, v in dict(r).items() if k not in drop} for r in rows]


def test_standings_after_a_merge_equal_the_one_name_club(two_clubs):
    two, one = two_clubs["two"], two_clubs["one"]
    s2, s1 = two_clubs["in_two"]["season"], two_clubs["in_one"]["season"]
    # All time (kept rows), the season (kept rows), a period (live aggregate over results).
    assert _named(stats.standings(club=two)) == _named(stats.standings(club=one))
    kept2 = stats.standings(club=two, start=s2.start, end=s2.end, min_games=2, seasons=[s2])
    kept1 = stats.standings(club=one, start=s1.start, end=s1.end, min_games=2, seasons=[s1])
    assert _named(kept2) == _named(kept1)
    live2 = stats.standings(club=two, start=D1, end=D3)
    live1 = stats.standings(club=one, start=D1, end=D3)
    assert _named(live2) == _named(live1)
    rows = _named(stats.standings(club=two))
    aoki = next(r for r in rows if r["name"] == "青木")
    assert aoki["games"] == 4  # g1, g2, g3 (edited), the D3 game; the void game not
    assert not any(r["name"] == "青木 ゲスト" for r in rows)


def test_kept_totals_after_a_merge_equal_the_one_name_club_and_a_rebuild(two_clubs):
    two, one, _a, b, _c = (two_clubs[k] for k in ("two", "one", "a", "b", "c"))

    def totals(club):
        return sorted(
            (
                r.member.name,
                r.season.name if r.season else "",
                *[getattr(r, f) for f in TOTAL_FIELDS],
            )
            for r in MemberTotal.objects.filter(club=club).select_related("member", "season")
        )

    def days(club):
        return sorted(
            (r.member.name, r.date, r.games, r.score, r.chips, r.yen, r.yen_games)
            for r in MemberDay.objects.filter(club=club).select_related("member")
            if r.games
        )

    assert totals(two) == totals(one)
    assert days(two) == days(one)
    assert not MemberTotal.objects.filter(member=b).exists()
    assert not MemberDay.objects.filter(member=b, games__gt=0).exists()
    kept = totals(two), days(two)
    from league.standings import services as aggregates

    aggregates.club_rebuild(club=two)
    assert (totals(two), days(two)) == kept


def _page_rows(client, club, season) -> list[str]:
    html = client.get(
        reverse("standings:season_standings", args=[club.slug, season.pk])
    ).content.decode()
    body = html[html.index("<tbody>") : html.index("</tbody>")]
    return [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in body.split("</tr>")
    ]


def test_the_season_page_after_a_merge_reads_as_the_one_name_club(two_clubs, client):
    user = two_clubs["user"]
    user.is_superuser = True
    user.save()
    client.force_login(user)
    rows2 = _page_rows(client, two_clubs["two"], two_clubs["in_two"]["season"])
    rows1 = _page_rows(client, two_clubs["one"], two_clubs["in_one"]["season"])
    assert rows2 == rows1
    assert any("青木" in r for r in rows2)


def _ledger(day) -> dict[str, Any]:
    ledger = money.day_ledger(day=day)
    name = {None: "club", **{str(k): m.name for k, m in ledger.members.items()}}
    return {
        "transfers": sorted((name[t.payer], name[t.payee], t.yen) for t in ledger.transfers),
        "outstanding": sorted(
            (name[None if k is None else str(k)], v) for k, v in ledger.outstanding.items()
        ),
        "players": sorted(
            (name[p.name], p.games, p.score, p.yen, p.fees, p.shugi) for p in ledger.players
        ),
    }


def test_money_after_a_merge_equals_the_one_name_club(two_clubs):
    two, one, a, b, c = (two_clubs[k] for k in ("two", "one", "a", "b", "c"))
    for d2, d1 in zip(two_clubs["in_two"]["days"], two_clubs["in_one"]["days"], strict=True):
        assert _ledger(Day.objects.get(pk=d2.pk)) == _ledger(Day.objects.get(pk=d1.pk))

    def debts(club):
        return sorted(
            (d.debtor.name, d.creditor.name if d.creditor else "club", d.principal, d.remaining)
            for d in money.open_debts(club=club)
        )

    assert debts(two) == debts(one) != []
    p2, p1 = book_selectors.position(member=a), book_selectors.position(member=c)
    assert (p2.days_total, p2.debts_total, p2.total) == (p1.days_total, p1.debts_total, p1.total)
    st2, st1 = book_selectors.full_statement(member=a), book_selectors.full_statement(member=c)

    def lines(st):
        return [(ln.date, ln.what, ln.yen, ln.balance) for ln in st.lines]

    assert lines(st2) == lines(st1) != []
    assert lines(book_selectors.full_statement(member=b)) == []
    touching = LedgerEntry.objects.filter(payer=b) | LedgerEntry.objects.filter(payee=b)
    assert not touching.exists()
    assert not LedgerEntry.objects.filter(borrower=b).exists()


def test_everything_of_the_merged_record_moved(two_clubs):
    a, b, preview = two_clubs["a"], two_clubs["b"], two_clubs["preview"]
    b.refresh_from_db()
    assert (b.merged_into_id, b.is_active) == (a.pk, False)
    assert not Result.objects.filter(member=b).exists()
    assert not ChipEvent.objects.filter(winner=b).exists()
    assert not DayShugi.objects.filter(winner=b).exists()
    assert not b.days_attended.exists()
    assert a.days_attended.filter(date=D1).count() == 1  # both attended D1: one attendance
    # The preview's numbers: g2 r1, g3 r1 and r2, g4 r1 (void) = 4 rows of 3 games; the yakuman.
    assert (preview.games, preview.results, preview.chip_events) == (3, 4, 1)
    assert (preview.shugi, preview.attendances, preview.debts) == (1, 1, 1)
    entry = AuditLog.objects.get(action="member.merge")
    assert entry.target == f"member:{b.pk}"
    moved_games = Game.objects.filter(
        club=two_clubs["two"], date__in=[D1, D2], results__member=a
    ).exclude(date=D1, number=1)
    expected = Result.objects.filter(game__in=moved_games, member=a)
    assert sorted(entry.after["moved"]["results"]) == sorted(expected.values_list("pk", flat=True))
    assert len(entry.after["moved"]["results"]) == 4
    assert entry.before["gone"]["merged_into"] is None
    assert entry.after["gone"]["merged_into"] == a.pk
    assert entry.actor == two_clubs["user"]


def test_recording_under_the_merged_name_is_refused_clearly(two_clubs):
    two, b = two_clubs["two"], two_clubs["b"]
    opp = list(Member.objects.filter(club=two, kana__in=[k for _n, k in OPPONENTS[:3]]))
    with pytest.raises(errors.ServiceError) as e:
        game(two, two_clubs["user"], D3, [b, *opp], (25000, 25000, 25000, 25000))
    assert "青木" in str(e.value)
    with pytest.raises(errors.ServiceError) as e:
        club_services.member_create(club=two, user=None, name="青木ゲスト")
    assert "青木" in e.value.errors["name"][0]
    with pytest.raises(errors.ServiceError):
        money.shugi_add(day=Day.objects.get(club=two, date=D1), user=None, winner=b)


def test_head_to_head_seats_and_rating_after_a_merge_equal_the_one_name_club(two_clubs):
    """The kept statistics move with the results: by name, the merged club's equal the club
    that always had one record, and equal a rebuild of the merged club."""
    from league.models import MemberGame, MemberRating, PairTotal, SeatTotal
    from league.standings import services as aggregates
    from tests.support.stats import stats_snapshot

    two, one, b = two_clubs["two"], two_clubs["one"], two_clubs["b"]

    def named(club):
        pairs = sorted(
            (
                p.member.name,
                p.opponent.name,
                p.season.name if p.season else "",
                p.games,
                p.net,
                p.above,
                p.rank_sum,
                p.opponent_rank_sum,
            )
            for p in PairTotal.objects.filter(club=club, games__gt=0).select_related(
                "member", "opponent", "season"
            )
        )
        seats = sorted(
            (s.member.name, s.season.name if s.season else "", s.seat, s.games, s.total)
            for s in SeatTotal.objects.filter(club=club, games__gt=0).select_related(
                "member", "season"
            )
        )
        ratings = sorted(
            (r.member.name, r.games, r.mu, r.sigma, r.tops, r.clean)
            for r in MemberRating.objects.filter(club=club).select_related("member")
        )
        games = sorted(
            (g.member.name, g.date, g.number, g.mu, g.sigma, g.expected)
            for g in MemberGame.objects.filter(club=club).select_related("member")
        )
        return pairs, seats, ratings, games

    assert named(two) == named(one)
    assert not MemberGame.objects.filter(member=b).exists()
    assert not PairTotal.objects.filter(opponent=b, games__gt=0).exists()
    before = stats_snapshot()
    aggregates.club_rebuild(club=two)
    aggregates.club_rebuild(club=one)
    assert stats_snapshot() == before
