"""飛び賞 and 焼き鳥 recorded through the form: asked only where the rules call for them, stored
with the revision, kept by edits and re-settles, shown on the game page and in the audit log, and
counted in the statistics (飛ばした回数, 焼き鳥)."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import pytest
from django.urls import reverse

import scoring
from league.models import AuditLog, Club, Game, Member, Membership, Result, RulesVersion
from league.recording import services
from league.rules import services as rules_services
from tests.support import record as record_form
from tests.support.clubs import make_user
from tests.support.record import NAMES

DATE = datetime.date(2026, 11, 21)


def make_rules_club(slug: str, **changes: Any) -> Club:
    """A 関西ぱいろん-like club (25,000/30,000, uma 10-20, below zero counted) with `changes`."""
    club = Club.objects.create(slug=slug, name=slug)
    rules = {**scoring.PRESETS["pairon-kansai"].rules.to_json(), **changes}
    scoring.rules_from_json(rules)  # valid, or the test is wrong
    RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2020, 1, 1), rules_json=rules
    )
    for name in NAMES:
        Member.objects.create(club=club, name=name)
    return club


@pytest.fixture
def bust_club(db) -> Club:
    # 飛び賞 10 to whoever busted the player.
    return make_rules_club("tobi", bust_bonus={"points": 10, "to": "buster", "at_zero": False})


@pytest.fixture
def yakitori_club(db) -> Club:
    return make_rules_club("yakitori", yakitori={"mode": "pay_each", "points": 5})


def client_of(club: Club, client) -> Any:
    user = make_user(f"org-{club.slug}", club, Membership.ORGANISER)
    client.force_login(user)
    return client


def posted(points, action: str = "save", **extra: Any) -> dict[str, Any]:
    """The form's post of `points` on DATE, at no table, with no deposits and no rate."""
    return record_form.posted(
        action, points, date=DATE.isoformat(), table="", deposits="0", rate=None, **extra
    )


# 45,000 / 35,000 / 21,000 / ▲1,000: 土井 (北) busted, by 青木 (東).
BUST_POINTS = (45_000, 35_000, 21_000, -1_000)


def test_the_form_asks_who_busted_only_where_the_rules_pay_the_buster(bust_club, client):
    client = client_of(bust_club, client)
    page = client.get(reverse("recording:game_new", args=[bust_club.slug])).content.decode()
    assert page.count("data-busted-by=") == 4
    assert "busted_by_3" in page and "yakitori_0" not in page

    plain = make_rules_club("plain")
    Membership.objects.create(
        user=bust_club.memberships.get().user, club=plain, role=Membership.ORGANISER
    )
    page = client.get(reverse("recording:game_new", args=[plain.slug])).content.decode()
    assert "data-busted-by=" not in page and "busted_by_0" not in page


def test_a_busted_player_without_a_buster_is_refused_naming_the_row(bust_club, client):
    client = client_of(bust_club, client)
    client.cookies["django_language"] = "ja"
    response = client.post(
        reverse("recording:game_new", args=[bust_club.slug]), posted(BUST_POINTS)
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert list(form.errors) == ["busted_by_3"]
    assert "飛ばした" in form.errors["busted_by_3"][0]
    assert not Game.objects.filter(club=bust_club).exists()


def test_a_bust_is_settled_stored_shown_and_counted(bust_club, client):
    client = client_of(bust_club, client)
    url = reverse("recording:game_new", args=[bust_club.slug])
    # The preview shows who busted whom and the bonus; nothing stored.
    preview = client.post(url, posted(BUST_POINTS, action="preview", busted_by_3="0"))
    assert preview.status_code == 200
    assert not Game.objects.exists()
    rows = preview.context["preview"]
    assert [r.busted_by for r in rows] == ["", "", "", "東"]
    assert preview.context["breakdown"] is not None

    # A busted_by on a row that is not busted (hidden on the page) is dropped, not an error.
    response = client.post(url, posted(BUST_POINTS, busted_by_3="0", busted_by_1="2"))
    assert response.status_code == 302, response.context["form"].errors
    game = Game.objects.get(club=bust_club)
    rows = list(Result.objects.filter(game=game).order_by("seat"))
    # By hand: 2nd 35−30+10 = 15; 3rd 21−30−10 = −19; 4th −1−30−20 = −51, then the 飛び賞 −10
    # to 東 = −61; 東 takes the rest before the bonus, 45−30+20+20 (oka) = 55, then +10 = 65.
    assert [r.score for r in rows] == [650, 150, -190, -610]
    assert [r.busted_by_seat for r in rows] == [None, None, None, 0]
    assert [r.busts_caused for r in rows] == [1, 0, 0, 0]

    # The game page and the audit log say it.
    page = client.get(
        reverse("recording:game_detail", args=[bust_club.slug, game.pk])
    ).content.decode()
    assert 'class="badge bust"' in page
    log = AuditLog.objects.get(game=game, action="game.create")
    assert [p.get("busted_by_seat") for p in log.after["players"]] == [None, None, None, 0]

    # An edit keeps it unless changed, and the stored input round-trips.
    data = services.game_input_from_stored(game)
    assert [s.busted_by for s in data.seats] == [None, None, None, 0]


def test_busts_caused_and_yakitori_are_in_the_statistics(bust_club, client):
    from league.standings import stats

    client = client_of(bust_club, client)
    url = reverse("recording:game_new", args=[bust_club.slug])
    for _ in range(2):  # the same result twice: the second is confirmed as another game
        saved = client.post(url, posted(BUST_POINTS, busted_by_3="0", confirm_duplicate="on"))
        assert saved.status_code == 302
    aoki = Member.objects.get(club=bust_club, name="青木")
    doi = Member.objects.get(club=bust_club, name="土井")
    counts = stats.bust_counts(club=bust_club, members=[aoki, doi])
    assert counts[aoki.pk] == {"busts_caused": 2, "yakitori": 0}
    assert counts[doi.pk] == {"busts_caused": 0, "yakitori": 0}


def test_yakitori_is_asked_settled_and_shown(yakitori_club, client):
    client = client_of(yakitori_club, client)
    url = reverse("recording:game_new", args=[yakitori_club.slug])
    page = client.get(url).content.decode()
    assert "yakitori_3" in page and "busted_by_0" not in page
    points = (45_000, 35_000, 21_000, -1_000)
    response = client.post(url, posted(points, yakitori_3="on"))
    assert response.status_code == 302, response.context["form"].errors
    game = Game.objects.get(club=yakitori_club)
    rows = list(Result.objects.filter(game=game).order_by("seat"))
    # 土井 pays 5 to each of the three others: 2nd 35−30+10+5 = 20; 3rd 21−30−10+5 = −14;
    # 4th −1−30−20−15 = −66; the top 45−30+20+20 (oka) = 55, +5 = 60.
    assert [r.score for r in rows] == [600, 200, -140, -660]
    assert [r.yakitori for r in rows] == [False, False, False, True]
    page = client.get(
        reverse("recording:game_detail", args=[yakitori_club.slug, game.pk])
    ).content.decode()
    assert 'class="badge yakitori"' in page
    doi = Member.objects.get(club=yakitori_club, name="土井")
    from league.standings import stats

    assert stats.bust_counts(club=yakitori_club, members=[doi])[doi.pk]["yakitori"] == 1


def test_a_resettle_keeps_busts_and_yakitori(bust_club, client):
    client = client_of(bust_club, client)
    url = reverse("recording:game_new", args=[bust_club.slug])
    assert client.post(url, posted(BUST_POINTS, busted_by_3="0")).status_code == 302
    game = Game.objects.get(club=bust_club)
    # A later version with a bigger 飛び賞, from before the game's date: re-settled, the bust kept.
    user = bust_club.memberships.get().user
    rules = {**bust_club.rules_versions.get().rules_json}
    rules["bust_bonus"] = {"points": 20, "to": "buster", "at_zero": False}
    version = rules_services.rules_version_create(
        club=bust_club,
        user=user,
        effective_from=datetime.date(2026, 1, 1),
        rules_json=rules,
        preset="",
        note="飛び賞 20",
    )
    rules_services.resettle_apply(version=version, user=user)
    rows = list(Result.objects.filter(game=game, counted=True).order_by("seat"))
    assert [r.busted_by_seat for r in rows] == [None, None, None, 0]
    assert rows[3].score == -710  # −1−30−20, then −20 to 東


def test_the_player_page_shows_busts_caused_and_yakitori_where_the_rules_have_them(
    bust_club, client
):
    client = client_of(bust_club, client)
    url = reverse("recording:game_new", args=[bust_club.slug])
    assert client.post(url, posted(BUST_POINTS, busted_by_3="0")).status_code == 302
    aoki = Member.objects.get(club=bust_club, name="青木")
    client.cookies["django_language"] = "ja"
    page = client.get(
        reverse("standings:player_detail", args=[bust_club.slug, aoki.pk])
    ).content.decode()
    assert "飛ばした回数" in page and "焼き鳥" not in page


def test_the_api_records_busts_and_yakitori_and_reads_them_back(db):
    import json as json_module

    from django.test import Client

    from league.accounts import tokens as api_auth

    club = make_rules_club(
        "both",
        bust_bonus={"points": 10, "to": "buster", "at_zero": False},
        yakitori={"mode": "penalty", "points": 5},
    )
    user = make_user("bot-owner", club, Membership.ORGANISER)
    secret = api_auth.token_create(club=club, user=user, name="bot")[1]
    players = [{"name": n, "points": p} for n, p in zip(NAMES, BUST_POINTS, strict=True)]
    players[3] |= {"busted_by": 0, "yakitori": True}
    payload = {"date": DATE.isoformat(), "players": players}
    response = Client().post(
        f"/api/clubs/{club.slug}/games",
        data=json_module.dumps(payload),
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert response.status_code == 201, response.content
    out = response.json()["players"]
    assert [p["busted_by_seat"] for p in out] == [None, None, None, 0]
    assert [p["yakitori"] for p in out] == [False, False, False, True]
    # −1−30−20 = −51, −10 to 東, −5 焼き鳥 penalty = −66.
    assert out[3]["score"] == -660

    # Who busted a player who is not busted: refused, nothing stored.
    players[3] = {"name": NAMES[3], "points": -1000}
    players[1] |= {"busted_by": 0}
    refused = Client().post(
        f"/api/clubs/{club.slug}/games",
        data=json_module.dumps({**payload, "players": players}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert refused.status_code == 422
    assert Game.objects.filter(club=club).count() == 1


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_game_log_carries_busts_and_yakitori_and_imports_them_back(db, language):
    """Export from one club, import into another with the same rules: the same games, busts and
    焼き鳥 included, and so the same scores."""
    import io

    from django.utils import translation

    from league.excel import exports, imports

    rules = {
        "bust_bonus": {"points": 10, "to": "buster", "at_zero": False},
        "yakitori": {"mode": "penalty", "points": 5},
    }
    source = make_rules_club("source", **rules)
    user = make_user("org", source, Membership.ORGANISER)
    members = list(Member.objects.filter(club=source).order_by("pk"))
    seats = [services.SeatInput(m, p) for m, p in zip(members, BUST_POINTS, strict=True)]
    seats[3] = services.SeatInput(members[3], BUST_POINTS[3], busted_by=1, yakitori=True)
    services.game_record(club=source, user=user, data=services.GameInput(date=DATE, seats=seats))
    with translation.override(language):
        workbook = exports.game_log_workbook(club=source)
    out = io.BytesIO()
    workbook.save(out)

    target = make_rules_club("target", **rules)
    Membership.objects.create(user=user, club=target, role=Membership.ORGANISER)
    plan = imports.plan_build(club=target, data=out.getvalue())
    assert plan.ready, plan.problems
    games = imports.plan_apply(plan=plan, user=user)
    rows = list(Result.objects.filter(game=games[0], counted=True).order_by("seat"))
    assert [r.busted_by_seat for r in rows] == [None, None, None, 1]
    assert [r.yakitori for r in rows] == [False, False, False, True]
    original = Result.objects.filter(club=source, counted=True).order_by("seat")
    assert [r.score for r in rows] == [r.score for r in original]


def test_an_unreadable_yakitori_mark_is_refused_at_its_cell(db):
    import io

    import openpyxl

    from league.excel import imports

    club = make_rules_club("marks", yakitori={"mode": "penalty", "points": 5})
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["日付", "回戦", "席", "名前", "素点", "焼き鳥"])
    for seat, (name, points) in enumerate(zip(NAMES, BUST_POINTS, strict=True), start=1):
        sheet.append([DATE, 1, seat, name, points, "たぶん" if seat == 2 else None])
    out = io.BytesIO()
    book.save(out)
    plan = imports.plan_build(club=club, data=out.getvalue())
    assert not plan.ready
    # The mark's own cell (row 3, column F), besides the game then lacking that player's row.
    marks = [(p.row, p.column) for p in plan.problems if "○" in p.message]
    assert marks == [(3, "F")]


# --- 飛び賞 in table mode: from the last hand, without asking (issue 40) ----------------------


def _table_bust(club: Club, last: str) -> Game:
    """A table game of `club` that ends on a bust: 土井 deals a yakuman to 千葉 (ron), or 千葉,
    dealing, wins by tsumo after 土井 has paid down to 1,000 (`last` = ron or tsumo)."""
    from league.table import services as table

    user = make_user(f"table-{club.slug}-{last}", club, Membership.ORGANISER)
    members = list(Member.objects.filter(club=club).order_by("pk"))
    a, b, c, d = (str(m.pk) for m in members)
    tg = table.table_start(club=club, user=user, key=uuid.uuid4(), date=DATE, members=members)
    hands = [{"result": "ron", "from": d, "winners": [{"player": c, "yakuman": 1}]}]
    if (
        last == "tsumo"
    ):  # 土井 dealt in two hanemans (13,000, then 1,000); 千葉 deals, tsumo 2,000 all
        hands = [
            {"result": "ron", "from": d, "winners": [{"player": b, "han": 6}]},
            {"result": "ron", "from": d, "winners": [{"player": a, "han": 6}]},
            {"result": "tsumo", "winner": c, "han": 3, "fu": 30},
        ]
    for i, event in enumerate(hands):
        table.hand_record(tg=tg, user=user, index=i, key=uuid.uuid4(), event=event)
    assert table.play(tg).state.ended == "bust"
    return table.table_game_save(tg=tg, user=user)


@pytest.mark.parametrize("last", ["ron", "tsumo"])
def test_table_mode_gives_the_bust_bonus_to_the_last_hands_winner_without_asking(bust_club, last):
    game = _table_bust(bust_club, last)
    rows = list(Result.objects.filter(game=game).order_by("seat"))
    busted = [r for r in rows if r.points < 0]
    assert [r.seat for r in busted] == [3]
    assert busted[0].busted_by_seat == 2  # 千葉 won the last hand
    assert busted[0].points == (-7_000 if last == "ron" else -1_000)
    assert rows[2].busts_caused == 1
    # The 10 goes from 土井 to 千葉: the same game entered on the form, who busted whom given.
    plain = services.game_preview(
        club=bust_club,
        data=services.GameInput(
            date=DATE,
            seats=[
                services.SeatInput(
                    member=r.member, points=r.points, busted_by=2 if r.seat == 3 else None
                )
                for r in rows
            ],
        ),
    )
    assert [r.score for r in rows] == [p.score for p in plain.result.players]
