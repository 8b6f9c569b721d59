"""Issue 40: importing a log records the whole game. The hands keep their marks (副露, 一発, yaku,
裏ドラ, 赤ドラ); a club with chips, 焼き鳥, 飛び賞 and rates gets the chips the hands imply, 焼き鳥,
飛び賞 from the last hand and the day's rate, with no edit; and the same game played in table
mode (its hands entered one by one) gives the same yen and the same hand statistics."""

from __future__ import annotations

import datetime
import uuid
from dataclasses import replace

import pytest

import scoring
from league.models import Club, Game, HandStat, Member, Membership, Result, RulesVersion
from league.models.hands import HAND_SUMS
from league.online import services
from league.table import services as table
from scoring.rules import BustBonus, ChipKind, RateTier, Yakitori
from tests.support import paths
from tests.support.clubs import client_for, make_user

DATA = paths.DATA / "online"
REAL = sorted(p.stem for p in DATA.glob("*.xml"))
DAY = datetime.date(2024, 5, 1)
STATS = (*HAND_SUMS, "yaku")  # every kept sum of a hand statistic, and its yaku


def text(name: str, ext: str = "json") -> str:
    return (DATA / f"{name}.{ext}").read_text(encoding="utf-8")


def money_club(slug: str, **changes) -> Club:
    """Tenhou's settlement with chips for 一発, 役満, 裏ドラ and 赤ドラ, 焼き鳥, 飛び賞 and rates."""
    money = {
        "chips": {
            "ippatsu": ChipKind(tsumo=1, ron=2),
            "yakuman": ChipKind(tsumo=5, ron=10),
            "ura": ChipKind(tsumo=1, ron=1),
            "aka": ChipKind(tsumo=1, ron=1),
        },
        "rates": {"0.5": RateTier(50, 100), "1.0": RateTier(100, 200)},
        "yakitori": Yakitori("penalty", 5),
        "bust_bonus": BustBonus(10, "buster"),
    }
    rules = replace(scoring.PRESETS["tenhou"].rules, **{**money, **changes})
    club = Club.objects.create(slug=slug, name=slug)
    RulesVersion.objects.create(
        club=club,
        effective_from=datetime.date(2020, 1, 1),
        rules_json=rules.to_json(),
        preset="tenhou",
    )
    return club


def seated(club: Club) -> list[Member]:
    return [Member.objects.create(club=club, name=n) for n in ("青木", "馬場", "千葉", "土井")]


def imported(club: Club, name: str, rate: str = "1.0", ext: str = "json") -> Game:
    user = make_user(f"{club.slug}-org", club, Membership.ORGANISER)
    read = services.log_read(text(name, ext))
    return services.online_game_record(
        club=club, user=user, read=read, members=seated(club), date=DAY, rate=rate
    )


def at_the_table(club: Club, name: str, rate: str = "1.0") -> Game:
    """The same game entered hand by hand in table mode: each hand's event and marks, as a
    scorer would enter them (players by member), then saved."""
    user = make_user(f"{club.slug}-org", club, Membership.ORGANISER)
    members = seated(club)
    read = services.log_read(text(name))
    tg = table.table_start(
        club=club, user=user, key=uuid.uuid4(), date=DAY, members=members, rate=rate
    )
    names = {n: str(m.pk) for n, m in zip(read.game.names, members, strict=True)}
    for i, (event, marks) in enumerate(zip(read.game.events, read.game.marks, strict=True)):
        table.hand_record(
            tg=tg,
            user=user,
            index=i,
            key=uuid.uuid4(),
            event=table.renamed(event, names),
            marks={names[who]: mark for who, mark in marks.items()},
        )
    return table.table_game_save(tg=tg, user=user)


def results(game: Game) -> list[tuple]:
    return [
        (r.points, r.score, r.chips, r.yen)
        for r in Result.objects.filter(game=game, revision=game.revision).order_by("seat")
    ]


def stats(game: Game) -> list[dict]:
    rows = HandStat.objects.filter(game=game, counted=True).order_by("member__pk")
    return [{f: getattr(s, f) for f in STATS} for s in rows]


@pytest.mark.parametrize("name", REAL)
def test_an_imported_game_equals_the_same_game_at_the_table(db, name):
    online = imported(money_club("online"), name)
    at_table = at_the_table(money_club("table"), name)
    assert results(online) == results(at_table)
    assert all(yen is not None for *_rest, yen in results(online))
    assert stats(online) == stats(at_table)
    assert online.rate == "1.0"


def test_the_whole_game_is_kept_calls_ippatsu_yaku_and_dora(db):
    # 2019123123gm-…-f4386d0e: 12 hands; 6 open wins and 2 一発 in its log.
    game = imported(money_club("whole"), "2019123123gm-00a9-0000-f4386d0e")
    rows = HandStat.objects.filter(game=game)
    assert sum(s.called_wins for s in rows) == 6
    assert sum(s.ippatsu for s in rows) == 2
    assert sum(sum(s.yaku.values()) for s in rows) > 0
    assert any("立直" in s.yaku for s in rows)


def test_chips_yakitori_and_rate_come_from_the_log_with_no_edit(db):
    # 2019021004gm-…-e2f6516d. Its winners, by the log: 千葉 (Sidecar) 4 times, 土井 4, 馬場 2;
    # 青木 wins nothing: 焼き鳥. Chips: 裏ドラ 3 + 1, 赤ドラ 1+1+2+1 (all tsumo or ron, by hand).
    game = imported(money_club("chips"), "2019021004gm-00a9-0000-e2f6516d", rate="0.5")
    seats = list(Result.objects.filter(game=game).order_by("seat"))
    assert [r.yakitori for r in seats] == [True, False, False, False]
    assert game.rate == "0.5"
    kinds = sorted(game.chip_events.values_list("kind", "multiplier"))
    assert kinds == sorted([("ura", 3), ("ura", 1), ("aka", 1), ("aka", 1), ("aka", 2), ("aka", 1)])
    assert sum(r.chips for r in seats) == 0 and any(r.chips for r in seats)
    assert all(r.yen is not None for r in seats)


def test_the_day_rate_is_the_days_other_games_rate(db):
    club = money_club("day-rate")
    assert services.day_rate(club, DAY) == "0.5"  # no game yet: the rules' first
    imported(club, "2019021004gm-00a9-0000-e2f6516d", rate="1.0")
    assert services.day_rate(club, DAY) == "1.0"


def test_a_bust_game_gives_the_bonus_to_who_won_the_last_hand(db):
    # 2019103023gm-…-f90e0fe9 ends on a bust: 千葉 (seat 2) at −55,100.
    read = services.log_read(text("2019103023gm-00a9-0000-f90e0fe9"))
    assert read.hands["final"]["ended"] == "bust"
    last = read.game.events[-1]
    club = money_club("bust")
    game = imported(club, "2019103023gm-00a9-0000-f90e0fe9")
    seats = list(Result.objects.filter(game=game).order_by("seat"))
    busted = [r for r in seats if r.points < 0]
    assert [r.seat for r in busted] == [2]
    winner = last["winner"] if last["result"] == "tsumo" else last["winners"][0]["player"]
    assert busted[0].busted_by_seat == read.game.names.index(winner)


def test_the_preview_says_what_the_log_lacks(db):
    club = money_club(
        "lacks",
        chips={"tobi": ChipKind(tsumo=1, ron=1), "ippatsu": ChipKind(tsumo=1, ron=1)},
        chombo=scoring.ChomboRule("penalty", points=20),
    )
    user = make_user("lacks-org", club, Membership.ORGANISER)
    seated(club)
    body = (
        client_for(user)
        .post(
            f"/c/{club.slug}/online/",
            {"text": text("2019021004gm-00a9-0000-e2f6516d")},
            HTTP_ACCEPT_LANGUAGE="ja",
        )
        .content.decode()
    )
    assert "data-online-lacks" in body and "チップ「tobi」" in body and "チョンボ" in body
    assert "ippatsu" not in body.split("data-online-lacks")[1].split("</div>")[0]
    assert 'name="rate"' in body
    assert not Game.objects.filter(club=club).exists()
