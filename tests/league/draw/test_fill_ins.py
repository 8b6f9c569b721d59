"""Issue 42 item 2, fill-ins (黒子): an event checks in the fill-ins that complete its tables (21
entrants make 6 tables with 3 fill-ins), their games are recorded and still sum, and nothing of
the fill-ins shows anywhere but the game pages: no standings row, cut place, statistics, rating,
money or export line, on the pages, the share link, the API or in Excel."""

from __future__ import annotations

import datetime
import io
import json
import re

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from league import money
from league.core.errors import ServiceError
from league.draw import services as draw
from league.models import (
    AuditLog,
    Day,
    Member,
    MemberDay,
    MemberRateTotal,
    MemberTotal,
    Result,
    Season,
    StageEntry,
)
from league.models.draw import Attendance
from league.models.stats import MemberGame, MemberRating, PairTotal, SeatTotal
from league.public import services as public_services
from league.standings import services as standings_services
from league.teams import services as team_services
from tests.support.draw import (
    DATE,
    POINTS,
    _record,
    check_in_all,
    current,
    people,
    record_table,
)

FILL_IN = "黒子"


@pytest.fixture
def event(club, organiser):
    """21 entrants, 3 fill-ins, round 1 drawn and every table recorded (40,000 / 30,000 /
    20,000 / 10,000 by seat: each fill-in sits somewhere, often ahead of real players)."""
    Season.objects.create(
        club=club, name="秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )
    entrants = people(club, 21)
    day = check_in_all(club, organiser, entrants)
    fill_ins = draw.fill_ins_add(club=club, user=organiser, date=DATE)
    draw.round_draw(club=club, user=organiser, date=DATE)
    for tv in current(day).tables:
        _record(club, organiser, tv.players, table=tv.table.label)
    return day, entrants, fill_ins


def ids(members) -> set[int]:
    return {m.pk for m in members}


def test_21_entrants_make_6_tables_with_3_fill_ins(club, organiser, event) -> None:
    day, entrants, fill_ins = event
    assert [m.name for m in fill_ins] == ["黒子1", "黒子2", "黒子3"]
    assert all(m.fill_in for m in fill_ins)
    rv = current(day)
    assert len(rv.tables) == 6 and not rv.sitting_out
    seated = [m.pk for tv in rv.tables for m in tv.players]
    assert len(seated) == 24 and set(seated) == ids(entrants) | ids(fill_ins)
    # Not the day's attendees for money: no fee, no shūgi.
    assert not day.attendees.filter(fill_in=True).exists()
    entry = AuditLog.objects.get(action="draw.fill_ins")
    assert [f["name"] for f in entry.after["fill_ins"]] == ["黒子1", "黒子2", "黒子3"]
    # Every game sums: the fill-in's row is stored like anyone's.
    assert Result.objects.filter(counted=True).count() == 24


def test_a_full_field_needs_no_fill_in_and_nothing_is_stored(club, organiser) -> None:
    check_in_all(club, organiser, people(club, 8))
    with pytest.raises(ServiceError) as e:
        draw.fill_ins_add(club=club, user=organiser, date=DATE)
    assert "黒子は要りません" in str(e.value.errors)
    assert not Member.objects.filter(fill_in=True).exists()
    assert not AuditLog.objects.filter(action="draw.fill_ins").exists()


def test_a_member_named_like_a_fill_in_keeps_their_name(club, organiser) -> None:
    Member.objects.create(club=club, name="黒子１")  # full-width: the same name key as 黒子1
    check_in_all(club, organiser, people(club, 6))
    added = draw.fill_ins_add(club=club, user=organiser, date=DATE)
    assert [m.name for m in added] == ["黒子2", "黒子3"]


def test_the_next_event_uses_the_same_fill_ins_again(club, organiser) -> None:
    players = people(club, 7)
    check_in_all(club, organiser, players)
    first = draw.fill_ins_add(club=club, user=organiser, date=DATE)
    later = DATE + datetime.timedelta(days=7)
    for m in players[:6]:
        draw.attendance_check_in(club=club, user=organiser, date=later, member=m)
    again = draw.fill_ins_add(club=club, user=organiser, date=later)
    assert len(first) == 1 and len(again) == 2 and again[0] == first[0]
    assert Member.objects.filter(fill_in=True).count() == 2


def test_the_draw_page_offers_the_fill_ins(organiser_client, club, organiser) -> None:
    check_in_all(club, organiser, people(club, 21))
    page = organiser_client.get(reverse("draw:draw_day", args=[club.slug, DATE])).content.decode()
    assert "data-fill-ins" in page and "黒子を3人入れて卓を埋める" in page
    response = organiser_client.post(
        reverse("draw:draw_fill_ins", args=[club.slug, DATE]), follow=True
    )
    page = response.content.decode()
    assert "黒子を受付しました：黒子1、黒子2、黒子3" in page
    assert "data-fill-ins" not in page  # the tables are full now
    assert Attendance.objects.filter(member__fill_in=True).count() == 3


def test_only_organisers_add_fill_ins(member_client, club, organiser) -> None:
    check_in_all(club, organiser, people(club, 5))
    response = member_client.post(reverse("draw:draw_fill_ins", args=[club.slug, DATE]))
    assert response.status_code in (403, 404)
    assert not Member.objects.filter(fill_in=True).exists()


def test_no_kept_row_of_a_fill_in(club, organiser, event) -> None:
    """Standings totals (all time, season, rate), day lines, head-to-head, seats, the rating
    and its history: none for a fill-in, also after a rebuild; every real player has theirs."""
    _day, entrants, fill_ins = event

    def check() -> None:
        f = ids(fill_ins)
        assert not MemberTotal.objects.filter(member__in=f).exists()
        assert not MemberRateTotal.objects.filter(member__in=f).exists()
        assert not MemberDay.objects.filter(member__in=f).exists()
        assert not MemberGame.objects.filter(member__in=f).exists()
        assert not MemberRating.objects.filter(member__in=f).exists()
        assert not SeatTotal.objects.filter(member__in=f).exists()
        assert not PairTotal.objects.filter(member__in=f).exists()
        assert not PairTotal.objects.filter(opponent__in=f).exists()
        everyone = MemberTotal.objects.filter(season__isnull=True, games=1)
        assert set(everyone.values_list("member", flat=True)) == ids(entrants)
        assert MemberRating.objects.count() == 21 and MemberGame.objects.count() == 21

    check()
    standings_services.club_rebuild(club=club)
    check()
    for m in fill_ins:
        standings_services.member_rebuild(member=m)
    check()


def test_a_voided_game_with_a_fill_in_moves_only_the_real_players(club, organiser, event) -> None:
    from league.recording import services as recording

    _day, _entrants, fill_ins = event
    game = Result.objects.filter(member__in=ids(fill_ins)).first().game
    real = [r.member_id for r in game.results.all() if not r.member.fill_in]
    recording.game_void(game=game, user=organiser, reason="誤記録")
    assert not MemberTotal.objects.filter(member__in=ids(fill_ins)).exists()
    rows = MemberTotal.objects.filter(member__in=real, season__isnull=True)
    assert set(rows.values_list("games", flat=True)) == {0}


def _pages(club) -> list[str]:
    season = Season.objects.get(club=club)
    return [
        reverse("standings:standings", args=[club.slug]),
        reverse("standings:standings", args=[club.slug]) + "?start=2026-11-01&end=2026-11-30",
        reverse("standings:season_standings", args=[club.slug, season.pk]),
        reverse("standings:season_race", args=[club.slug, season.pk]),
        reverse("standings:season_matrix", args=[club.slug, season.pk]),
        reverse("standings:rating_list", args=[club.slug]),
        reverse("standings:club_seats", args=[club.slug]),
        reverse("standings:records", args=[club.slug]),
        reverse("recording:day_detail", args=[club.slug, DATE]),
        reverse("money:day_ledger", args=[club.slug, DATE]),
        reverse("chat:day_share", args=[club.slug, DATE]),
        reverse("recording:club_home", args=[club.slug]),
    ]


def _without_game_tables(page: str) -> str:
    """The page less its games' tables (the day page lists the games: there a fill-in is named),
    and less the games' lines of the day's text (「2位 黒子1 +10.0」)."""
    page = "\n".join(line for line in page.splitlines() if not re.search(r"\d位 黒子\d", line))
    # The club home's recent games: a game's line each, the fill-in marked as one.
    page = re.sub(
        r'<span class="line-player">黒子\d<span class="badge fill-in"[^<]*</span>', "", page
    )
    out, rest = [], page
    while '<table class="settled' in rest:
        before, _found, after = rest.partition('<table class="settled')
        out.append(before)
        rest = after.partition("</table>")[2]
    return "".join(out) + rest


def test_no_page_shows_a_fill_in_but_the_game_pages(member_client, club, event) -> None:
    _day, _entrants, fill_ins = event
    for path in _pages(club):
        response = member_client.get(path)
        assert response.status_code == 200, path
        page = _without_game_tables(response.content.decode())
        assert FILL_IN not in page, path
    for m in fill_ins:
        response = member_client.get(reverse("standings:player_detail", args=[club.slug, m.pk]))
        assert response.status_code == 404


def test_the_game_pages_name_the_fill_in(member_client, club, event) -> None:
    _day, _entrants, fill_ins = event
    game = Result.objects.filter(member=fill_ins[0]).get().game
    page = member_client.get(
        reverse("recording:game_detail", args=[club.slug, game.pk])
    ).content.decode()
    assert "黒子1" in page and "data-fill-in>黒子</span>" in page
    day_page = member_client.get(
        reverse("recording:day_detail", args=[club.slug, DATE])
    ).content.decode()
    assert day_page.count("data-fill-in>") == 3


def test_the_share_link_shows_no_fill_in(club, organiser, event) -> None:
    from django.test import Client

    token = public_services.share_enable(club=club, user=organiser).share_token
    season = Season.objects.get(club=club)
    client = Client()
    for path in (
        f"/s/{token}/",
        f"/s/{token}/seasons/{season.pk}/",
        f"/s/{token}/rating/",
        f"/s/{token}/records/",
        f"/s/{token}/days/{DATE}/",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert FILL_IN not in _without_game_tables(response.content.decode()), path


def test_the_api_shows_no_fill_in(member_client, club, event) -> None:
    _day, _entrants, fill_ins = event
    base = f"/api/clubs/{club.slug}"
    for path in ("standings", "ratings", "seats", f"days/{DATE}/ledger"):
        response = member_client.get(f"{base}/{path}")
        assert response.status_code == 200, path
        assert FILL_IN not in response.content.decode(), path
    for m in fill_ins:
        for path in (f"players/{m.pk}/stats", f"players/{m.pk}/rating"):
            response = member_client.get(f"{base}/{path}")
            assert response.status_code == 404 or not json.loads(response.content).get("points"), (
                path
            )
    # The day's games: the fill-in's seat is there, named as they are (黒子1…).
    games = json.loads(member_client.get(f"{base}/days/{DATE}").content)["games"]
    assert len(games) == 6


def _sheet_text(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    workbook = load_workbook(io.BytesIO(content))
    return "\n".join(
        str(cell)
        for ws in workbook.worksheets
        for row in ws.iter_rows(values_only=True)
        for cell in row
        if cell is not None
    )


def test_excel_has_no_fill_in(member_client, club, event) -> None:
    """The standings (with their statistics sheet) and the day's payment sheet count nobody
    for a fill-in; the game log has their rows (test_the_game_log_names_the_fill_ins)."""
    season = Season.objects.get(club=club)
    for path in (
        reverse("excel:export_standings", args=[club.slug]),
        reverse("excel:export_standings", args=[club.slug]) + f"?season={season.pk}",
    ):
        response = member_client.get(path)
        assert response.status_code == 200, path
        text = _sheet_text(response)
        assert "選手00" in text and FILL_IN not in text, path
    sheet = member_client.get(reverse("excel:export_payment_sheet", args=[club.slug, DATE]))
    assert sheet.status_code == 200
    content = b"".join(sheet.streaming_content) if sheet.streaming else sheet.content
    workbook = load_workbook(io.BytesIO(content))
    lines = _payment_lines(workbook)
    assert "選手00" in lines and not any(FILL_IN in line for line in lines)
    # The games the day's yen come from name every seat, a fill-in's as one.
    cells = [str(c) for row in workbook.active.iter_rows(values_only=True) for c in row if c]
    seats = [c for c in cells if c.startswith(FILL_IN)]
    assert len(seats) == 3
    assert all(c.startswith(tuple(f"黒子{n}（黒子） " for n in "123")) for c in seats)


def _payment_lines(workbook) -> set[str]:
    """The names of the payment sheet's lines (its first column), the games block aside."""
    rows = workbook.active.iter_rows(values_only=True)
    return {str(row[0]) for row in rows if row and row[0] is not None}


def test_the_game_log_names_the_fill_ins(member_client, club, event) -> None:
    """Issue 42: a fill-in's game still sums and the fill-in is named as one wherever they
    appear: the results sheet has every seat of every game, the fill-in's row marked
    「黒子1（黒子）」 (as the game pages badge them) with no yen: their results count for
    nobody, the house takes their yen."""
    _day, _entrants, fill_ins = event
    response = member_client.get(reverse("excel:export_game_log", args=[club.slug]))
    assert response.status_code == 200
    content = b"".join(response.streaming_content) if response.streaming else response.content
    ws = load_workbook(io.BytesIO(content)).active
    header, *rows = list(ws.iter_rows(values_only=True))
    column = {name: i for i, name in enumerate(header)}
    assert len(rows) == 24  # 6 games × 4 seats
    by_game: dict[int, list[tuple]] = {}
    for row in rows:
        by_game.setdefault(row[column["半荘"]], []).append(row)
    assert len(by_game) == 6
    for game in by_game.values():
        assert len(game) == 4
        assert sum(r[column["素点"]] for r in game) == sum(POINTS)  # the game sums
    marked = [r for r in rows if FILL_IN in r[column["プレイヤー"]]]
    assert sorted(r[column["プレイヤー"]] for r in marked) == [
        f"{m.name}（黒子）" for m in fill_ins
    ]
    assert all(r[column["収支"]] is None for r in marked)  # no yen counted for them
    assert all(r[column["収支"]] is not None for r in rows if r not in marked)


def test_the_fill_ins_money_is_the_house_s(club, organiser, event) -> None:
    day, _entrants, fill_ins = event
    ledger = money.day_ledger(day=Day.objects.select_related("club").get(pk=day.pk))
    lines = {int(p.name) for p in ledger.players}
    assert lines and not lines & ids(fill_ins)
    parties = {t.payer for t in ledger.transfers} | {t.payee for t in ledger.transfers}
    assert not {str(m.pk) for m in fill_ins} & {str(p) for p in parties}
    assert not {m.pk for m in fill_ins} & set(ledger.outstanding)
    assert ledger.house + sum(p.yen for p in ledger.players) == 0
    # The day still balances: what the fill-ins won or lost is the house's.
    fill_in_yen = sum(
        r.yen or 0 for r in Result.objects.filter(member__in=ids(fill_ins), counted=True)
    )
    real_yen = sum(
        r.yen or 0 for r in Result.objects.filter(counted=True).exclude(member__in=ids(fill_ins))
    )
    assert real_yen + fill_in_yen == 0


def test_a_fill_in_makes_no_cut(club, organiser, event) -> None:
    """An individual stage on the event's day sends its top 12 on: a fill-in who topped a table
    is not among them, and nobody's place is taken by one."""
    season = Season.objects.get(club=club)
    qual = team_services.stage_create(
        season=season,
        user=organiser,
        data=team_services.StageInput("予選", DATE, DATE, advance=12),
    )
    team_services.stage_create(
        season=season,
        user=organiser,
        data=team_services.StageInput(
            "決勝", DATE + datetime.timedelta(days=7), DATE + datetime.timedelta(days=7)
        ),
    )
    team_services.stage_close(stage=qual, user=organiser)
    through = StageEntry.objects.filter(stage__number=2)
    assert through.count() == 12
    assert not through.filter(member__fill_in=True).exists()
    assert POINTS[0] == 40000  # a fill-in at 東 topped their table: still not through


def test_a_table_with_a_fill_in_is_recorded_from_its_card(organiser_client, club, organiser):
    """The record form, opened from the card, finds the fill-in by name like anyone."""
    day = check_in_all(club, organiser, people(club, 7))
    (fill_in,) = draw.fill_ins_add(club=club, user=organiser, date=DATE)
    draw.round_draw(club=club, user=organiser, date=DATE)
    tv = next(tv for tv in current(day).tables if fill_in in tv.players)
    record_table(organiser_client, club, tv)
    result = Result.objects.get(member=fill_in, counted=True)
    assert result.game.draw_tables.get().pk == tv.table.pk
    assert not MemberTotal.objects.filter(member=fill_in).exists()
    assert MemberTotal.objects.filter(season__isnull=True, games=1).count() == 3


def test_the_books_have_no_line_of_a_fill_in(club, organiser, event) -> None:
    """The book (league.books, posted as each game is recorded, and rebuilt): an account of the
    day for each real player, none for a fill-in, no leg of a fill-in's; the day still
    balances (the club takes the fill-ins' money)."""
    from league.books import services as books
    from league.models import Account, Leg, OpenTransfer

    day, entrants, fill_ins = event

    def check() -> None:
        f = ids(fill_ins)
        assert not Account.objects.filter(member__in=f).exists()
        assert not Leg.objects.filter(member__in=f).exists()
        assert not OpenTransfer.objects.filter(payer__in=f).exists()
        assert not OpenTransfer.objects.filter(payee__in=f).exists()
        accounts = Account.objects.filter(day=day, kind=Account.MEMBER)
        assert set(accounts.values_list("member", flat=True)) == ids(entrants)
        assert sum(Leg.objects.filter(transaction__day=day).values_list("yen", flat=True)) == 0
        assert books.check_club(club.pk)[1] is None

    check()
    books.club_rebuild(club_id=club.pk)
    check()


def test_the_hands_sheet_names_a_fill_in_as_one(member_client, club, members, organiser) -> None:
    """A game recorded hand by hand with a fill-in: the game log's hands sheet has the
    fill-in's rows, named as a fill-in, as the results sheet does."""
    from tests.support.hands import hand_game

    fill_in = Member.objects.create(club=club, name="黒子1", kana="", fill_in=True)
    a, b, c = members[:3]
    # 東1: 青木 rons the fill-in with a yakuman, 32,000: the fill-in busts, the game ends.
    hand_game(
        club,
        organiser,
        DATE,
        [a, b, c, fill_in],
        [
            (
                {
                    "result": "ron",
                    "from": str(fill_in.pk),
                    "winners": [{"player": str(a.pk), "yakuman": 1}],
                },
                {},
            )
        ],
    )
    response = member_client.get(reverse("excel:export_game_log", args=[club.slug]))
    content = b"".join(response.streaming_content) if response.streaming else response.content
    results, hands = load_workbook(io.BytesIO(content)).worksheets
    names = [row[4] for row in list(results.iter_rows(values_only=True))[1:]]
    assert sorted(names) == sorted([a.name, b.name, c.name, "黒子1（黒子）"])
    seats = [row[6] for row in list(hands.iter_rows(values_only=True))[1:]]
    assert seats == [a.name, b.name, c.name, "黒子1（黒子）"]
