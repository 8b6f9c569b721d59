"""Keeping members and seasons tidy (league/club/): editing a member, the merge's pages and its
refusals, editing, closing and reopening a season, and who may open these pages."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.club import services as club_services
from league.core import errors
from league.models import AuditLog, Day, Game, Member, Result
from league.models.totals import MemberTotal
from league.money import services as money_services
from tests.support.clubs import make_club, make_user
from tests.support.games import edit_game, record_game
from tests.support.seasons import make_season

DATE = datetime.date(2026, 5, 9)
POINTS = (45000, 30000, 20000, 5000)


def record(club, user, seats, date=DATE, points=POINTS) -> Game:
    return record_game(club, user, seats, points, date=date)


def url(name: str, club, *args) -> str:
    return reverse(name, args=[club.slug, *args])


# --- editing a member ------------------------------------------------------------------------


def test_edit_a_member_name_kana_flags_audited(organiser_client, club, members, organiser):
    baba = members[1]
    response = organiser_client.post(
        url("club:member_edit", club, baba.pk),
        {"name": "馬場　健", "kana": "ﾊﾞﾊﾞ ｹﾝ", "is_guest": "on"},
    )
    assert response.status_code == 302
    baba.refresh_from_db()
    assert (baba.name, baba.kana, baba.is_guest, baba.is_active) == (
        "馬場 健",
        "ババ ケン",
        True,
        False,
    )
    entry = AuditLog.objects.get(action="member.edit")
    assert entry.before == {"name": "馬場", "kana": "ばば", "is_active": True, "is_guest": False}
    assert entry.after["name"] == "馬場 健" and entry.after["is_active"] is False
    assert entry.actor == organiser


def test_edit_a_member_errors_in_japanese_naming_the_field(organiser_client, club, members):
    baba = members[1]
    address = url("club:member_edit", club, baba.pk)
    response = organiser_client.post(address, {"name": "青　木", "kana": "ばば", "is_active": "on"})
    assert response.status_code == 200
    assert response.context["form"].errors["name"] == [
        "「青木」はすでにメンバーです（名前はスペースや全角・半角の違いを区別しません）。"
    ]
    response = organiser_client.post(address, {"name": "馬場", "kana": "baba", "is_active": "on"})
    assert response.context["form"].errors["kana"] == ["ひらがなかカタカナだけで入力してください。"]
    response = organiser_client.post(address, {"name": "  ", "kana": "", "is_active": "on"})
    assert "name" in response.context["form"].errors
    assert "名前" in response.content.decode()
    baba.refresh_from_db()
    assert (baba.name, baba.kana) == ("馬場", "ばば")
    assert not AuditLog.objects.filter(action="member.edit").exists()


def test_the_member_list_links_edit_and_merge(organiser_client, club, members):
    page = organiser_client.get(url("club:member_list", club)).content.decode()
    assert url("club:member_edit", club, members[0].pk) in page
    assert url("club:member_merge", club, members[0].pk) in page


# --- merging ---------------------------------------------------------------------------------


@pytest.fixture
def guest(club):
    return Member.objects.create(club=club, name="アオキ ゲスト", kana="あおき", is_guest=True)


def test_merge_preview_page_shows_counts_and_the_merge_moves_them(
    organiser_client, club, members, organiser, guest
):
    record(club, organiser, [members[0], members[1], members[2], members[3]])
    record(club, organiser, [guest, members[1], members[2], members[3]])
    g = record(club, organiser, [members[1], guest, members[2], members[3]], DATE.replace(day=10))
    edit_game(g, organiser, [members[1], guest, members[2], members[3]], POINTS)
    address = url("club:member_merge", club, members[0].pk)
    response = organiser_client.get(address, {"other": guest.pk, "keep": "this"})
    preview = response.context["preview"]
    assert (preview.games, preview.results, preview.ledger_entries) == (2, 3, 0)
    assert preview.keep == members[0] and preview.gone == guest
    page = response.content.decode()
    assert preview.key in page
    response = organiser_client.post(
        address, {"other": guest.pk, "keep": "this", "key": preview.key}
    )
    assert response.status_code == 302
    guest.refresh_from_db()
    assert guest.merged_into == members[0] and not guest.is_active
    assert Result.objects.filter(member=members[0]).count() == 4
    total = MemberTotal.objects.get(member=members[0], season=None)
    assert total.games == 3


def test_a_stale_preview_is_refused(organiser_client, club, members, organiser, guest):
    address = url("club:member_merge", club, members[0].pk)
    key = organiser_client.get(address, {"other": guest.pk, "keep": "this"}).context["preview"].key
    record(club, organiser, [guest, members[1], members[2], members[3]])  # after the preview
    response = organiser_client.post(address, {"other": guest.pk, "keep": "this", "key": key})
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [
        "確認の後に登録の内容が変わったため、統合しませんでした。もう一度確認してください。"
    ]
    guest.refresh_from_db()
    assert guest.merged_into is None
    assert not AuditLog.objects.filter(action="member.merge").exists()


def test_merge_keeps_the_other_record_when_asked(organiser_client, club, members, guest):
    address = url("club:member_merge", club, guest.pk)
    key = (
        organiser_client.get(address, {"other": members[0].pk, "keep": "other"})
        .context["preview"]
        .key
    )
    organiser_client.post(address, {"other": members[0].pk, "keep": "other", "key": key})
    guest.refresh_from_db()
    assert guest.merged_into == members[0]


def test_merge_refusals_change_nothing(club, other_club, members, organiser, guest):
    record(club, organiser, [members[0], guest, members[2], members[3]])
    foreign = Member.objects.create(club=other_club, name="外部")
    cases = [
        (members[0], guest, "same game"),
        (members[0], members[0], "different"),
        (members[0], foreign, "this club"),
    ]
    for keep, gone, _why in cases:
        with pytest.raises(errors.ServiceError) as e:
            club_services.member_merge(keep=keep, gone=gone, user=organiser)
        assert e.value.errors["other"]
    club_services.member_merge(keep=members[1], gone=members[4], user=organiser)
    with pytest.raises(errors.ServiceError):  # already merged, either side
        club_services.member_merge(keep=members[0], gone=members[4], user=organiser)
    with pytest.raises(errors.ServiceError):
        club_services.member_merge(keep=members[4], gone=members[2], user=organiser)
    assert Result.objects.filter(member=guest).count() == 4 // 4
    assert AuditLog.objects.filter(action="member.merge").count() == 1


def test_same_game_refusal_shown_on_the_page_in_japanese(
    organiser_client, club, members, organiser, guest
):
    record(club, organiser, [members[0], guest, members[2], members[3]])
    response = organiser_client.get(
        url("club:member_merge", club, members[0].pk), {"other": guest.pk, "keep": "this"}
    )
    assert response.context["preview"] is None
    assert "同じ対局" in str(response.context["form"].errors["other"])


def test_a_merged_record_is_offered_nowhere(organiser_client, club, members, organiser, guest):
    club_services.member_merge(keep=members[0], gone=guest, user=organiser)
    page = organiser_client.get(url("recording:game_new", club)).content.decode()
    assert "アオキ ゲスト" not in page
    candidates = club_services.merge_candidates(members[1])
    assert guest not in candidates


def test_the_draw_check_in_finds_the_survivor_by_a_merged_name(
    organiser_client, club, members, organiser, guest
):
    """At the table people type the old spelling: the record that stayed is checked in, and the
    merged one can never become an attendee (no money would ever settle on it)."""
    from league.models.draw import Attendance

    club_services.member_merge(keep=members[0], gone=guest, user=organiser)
    organiser_client.post(reverse("draw:draw_start", args=[club.slug]), {"date": DATE.isoformat()})
    organiser_client.post(
        reverse("draw:draw_check_in", args=[club.slug, DATE]), {"name": "ｱｵｷ ｹﾞｽﾄ"}
    )
    assert [a.member for a in Attendance.objects.all()] == [members[0]]
    assert list(Day.objects.get(club=club, date=DATE).attendees.all()) == [members[0]]
    with pytest.raises(errors.ServiceError, match=r"統合|merged"):
        money_services.day_attendees_add(club=club, user=organiser, date=DATE, members=[guest])
    assert not Day.objects.get(club=club, date=DATE).attendees.filter(pk=guest.pk).exists()


def test_merge_from_a_guests_row_keeps_the_member_and_old_links_lead_to_it(
    organiser_client, club, members, organiser, guest
):
    page = organiser_client.get(url("club:member_merge", club, guest.pk)).content.decode()
    assert 'value="other" required id="id_keep_1" checked' in page
    club_services.member_merge(keep=members[0], gone=guest, user=organiser)
    old = organiser_client.get(url("standings:player_detail", club, guest.pk) + "?season=3")
    assert old.status_code == 302
    assert old.url == url("standings:player_detail", club, members[0].pk) + "?season=3"


def test_merge_preview_queries_do_not_grow_with_history(
    organiser_client, club, members, organiser, guest
):
    address = url("club:member_merge", club, members[0].pk)
    record(club, organiser, [guest, members[1], members[2], members[3]])

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = organiser_client.get(address, {"other": guest.pk, "keep": "this"})
        assert response.context["preview"] is not None
        return len(ctx.captured_queries)

    small = count()
    for day in range(1, 9):
        record(club, organiser, [guest, members[1], members[2], members[3]], DATE.replace(day=day))
    assert count() == small


# --- seasons ---------------------------------------------------------------------------------


@pytest.fixture
def season(club):
    return make_season(
        club=club, name="春", start=datetime.date(2026, 4, 1), end=datetime.date(2026, 5, 31)
    )


def test_season_edit_rebuilds_its_totals_and_is_audited(
    organiser_client, club, members, organiser, season
):
    record(club, organiser, members[:4], datetime.date(2026, 6, 6))
    assert not MemberTotal.objects.filter(season=season).exists()
    response = organiser_client.post(
        url("club:season_edit", club, season.pk),
        {"name": "春夏", "start": "２０２６/４/１", "end": "2026/6/30", "min_games": "１"},
    )
    assert response.status_code == 302
    season.refresh_from_db()
    assert (season.name, season.end, season.min_games) == ("春夏", datetime.date(2026, 6, 30), 1)
    assert MemberTotal.objects.filter(season=season, games=1).count() == 4
    entry = AuditLog.objects.get(action="season.edit")
    assert entry.before["end"] == "2026-05-31" and entry.after["end"] == "2026-06-30"


def test_season_edit_errors_name_the_field(organiser_client, club, season):
    response = organiser_client.post(
        url("club:season_edit", club, season.pk),
        {"name": "春", "start": "2026/6/1", "end": "2026/5/1", "min_games": "0"},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["end"]
    season.refresh_from_db()
    assert season.end == datetime.date(2026, 5, 31)


def _turn_the_order_round(game, organiser, members):
    """A correction of `game` that puts its four players in the opposite order (土井 first)."""
    edit_game(game, organiser, members[:4], (5000, 20000, 30000, 45000), date=DATE)


def test_close_freezes_the_standings_and_reopen_brings_them_back(
    organiser_client, club, members, organiser, season
):
    g = record(club, organiser, members[:4])
    address = url("club:season_close", club, season.pk)
    assert organiser_client.get(address).status_code == 200
    response = organiser_client.post(address, {"action": "close"})
    assert response.status_code == 302
    season.refresh_from_db()
    assert season.closed_at is not None and season.closed_by == organiser
    frozen = season.final_standings
    assert next((r["position"], r["name"], r["games"], r["total"]) for r in frozen) == (
        1,
        "青木",
        1,
        g.results.get(seat=0).score,
    )
    # A later correction of a game in its dates: the frozen standings do not move.
    edit_page = organiser_client.get(url("recording:game_edit", club, g.pk)).content.decode()
    assert "春" in edit_page and "確定" in edit_page
    void_page = organiser_client.get(url("recording:game_void", club, g.pk)).content.decode()
    assert "確定" in void_page
    _turn_the_order_round(g, organiser, members)
    season.refresh_from_db()
    assert season.final_standings == frozen
    page = organiser_client.get(url("standings:season_standings", club, season.pk)).content.decode()
    assert "確定済み" in page
    assert season.closed_at.astimezone().strftime("%Y/%m/%d")[:4] in page
    table = page[page.index("final-standings") :]
    assert table.index("青木") < table.index("土井")  # 青木 won when it closed
    # Reopen: live numbers again (土井 now leads), audited.
    response = organiser_client.post(address, {"action": "reopen"})
    season.refresh_from_db()
    assert season.closed_at is None and season.final_standings is None
    page = organiser_client.get(url("standings:season_standings", club, season.pk)).content.decode()
    assert "確定済み" not in page
    actions = list(
        AuditLog.objects.filter(action__startswith="season.").values_list("action", flat=True)
    )
    assert actions == ["season.create", "season.close", "season.reopen"]
    reopen = AuditLog.objects.get(action="season.reopen")
    assert reopen.before["final_standings"] == frozen


def test_every_page_and_the_pot_read_a_closed_seasons_frozen_winner(
    organiser_client, club, members, organiser, season
):
    """After closing, a correction that changes the live leader changes nothing that names the
    season's winner: the pot's champion, the seasons' leaders, the share link, My page."""
    from league import money
    from league.mypage import selectors as mypage
    from league.standings.views.standings import season_leaders

    g = record(club, organiser, members[:4])  # 青木 first
    club_services.season_close(season=season, user=organiser)
    _turn_the_order_round(g, organiser, members)  # live: 土井 first now
    season.refresh_from_db()
    assert money.season_pot(season=season).champion == members[0]
    assert [r["name"] for r in season_leaders(club=club, seasons=[season])[season.pk]] == ["青木"]
    assert mypage.standing(club=club, member=members[0], season=season).position == 1
    assert mypage.standing(club=club, member=members[3], season=season).position == 4
    club.share_token = "t" * 43
    club.save()
    page = Client().get(reverse("public:public_season", args=[club.share_token, season.pk]))
    html = page.content.decode()
    assert "確定済み" in html or "Final" in html
    table = html[html.index("final-standings") :]
    assert table.index("青木") < table.index("土井")
    # Reopened: the live numbers everywhere again.
    club_services.season_reopen(season=season, user=organiser)
    season.refresh_from_db()
    assert money.season_pot(season=season).champion == members[3]


def test_closing_twice_is_refused(club, organiser, season):
    club_services.season_close(season=season, user=organiser)
    with pytest.raises(errors.ServiceError):
        club_services.season_close(season=season, user=organiser)


def test_new_game_form_warns_on_a_closed_season_date(organiser_client, club, organiser, season):
    club_services.season_close(season=season, user=organiser)
    page = organiser_client.get(
        url("recording:game_new", club), {"date": "2026-05-09"}
    ).content.decode()
    assert "確定" in page
    page = organiser_client.get(
        url("recording:game_new", club), {"date": "2026-07-09"}
    ).content.decode()
    assert "確定" not in page


# --- who may open the new pages --------------------------------------------------------------


def _addresses(club, member, season) -> list[str]:
    return [
        url("club:member_edit", club, member.pk),
        url("club:member_merge", club, member.pk),
        url("club:season_edit", club, season.pk),
        url("club:season_close", club, season.pk),
    ]


def test_members_are_refused_403(member_client, club, members, season):
    for address in _addresses(club, members[0], season):
        assert member_client.get(address).status_code == 403, address
        assert member_client.post(address).status_code == 403, address


def test_outsiders_and_logged_out_get_404(client, stranger_client, club, members, season):
    for address in _addresses(club, members[0], season):
        for c in (client, stranger_client):
            assert c.get(address).status_code == 404, address
            assert c.post(address).status_code == 404, address


def test_another_clubs_objects_are_404_through_ones_own_club(db, members, season):
    mine = make_club("mine")
    boss = make_user("boss", mine, "organiser")
    from django.test import Client

    c = Client()
    c.force_login(boss)
    for address in _addresses(mine, members[0], season):
        assert c.get(address).status_code == 404, address


def test_a_merged_record_cannot_be_made_active_or_edited(
    organiser_client, club, members, organiser, guest
):
    club_services.member_merge(keep=members[0], gone=guest, user=organiser)
    response = organiser_client.post(f"{url('club:member_new', club)}?toggle={guest.pk}")
    assert response.status_code == 302
    guest.refresh_from_db()
    assert not guest.is_active and guest.merged_into == members[0]
    response = organiser_client.get(url("club:member_edit", club, guest.pk))
    assert response.status_code == 302
    with pytest.raises(errors.ServiceError):
        club_services.member_edit(member=guest, user=organiser, name="別名", is_active=True)
    page = organiser_client.get(url("club:member_list", club)).content.decode()
    assert "青木」に統合済み" in page


def test_a_merge_is_refused_when_money_passed_between_the_two(club, members, organiser, guest):
    from league.models import LedgerEntry

    LedgerEntry.objects.create(
        club=club, kind=LedgerEntry.PAYMENT, payer=guest, payee=members[0], amount=500
    )
    with pytest.raises(errors.ServiceError) as e:
        club_services.member_merge(keep=members[0], gone=guest, user=organiser)
    assert "青木" in e.value.errors["other"][0]
    guest.refresh_from_db()
    assert guest.merged_into is None


def test_the_record_form_finds_the_survivor_by_the_merged_name(
    organiser_client, club, members, organiser, guest
):
    club_services.member_merge(keep=members[0], gone=guest, user=organiser)
    post = {
        "date": DATE.isoformat(),
        "table": "A",
        "deposits": "0",
        "rate": "0.3",
        "action": "save",
    }
    seats = ["ｱｵｷ ｹﾞｽﾄ", "馬場", "千葉", "土井"]  # the merged record's name, typed half-width
    for i, (name, p) in enumerate(zip(seats, POINTS, strict=True)):
        post.update({f"member_{i}": name, f"points_{i}": str(p), f"chombo_{i}": "0"})
    response = organiser_client.post(url("recording:game_new", club), post)
    assert response.status_code == 302, response.context["form"].errors
    game = Game.objects.get(club=club)
    assert game.results.get(seat=0).member == members[0]
    assert not Result.objects.filter(member=guest).exists()


def test_an_organiser_renames_the_club_and_its_address_stays(
    organiser_client, member_client, club, organiser
):
    address = url("club:club_settings", club)
    assert member_client.get(address).status_code == 403
    organiser_client.cookies["django_language"] = "ja"
    bad = organiser_client.post(address, {"name": "　"})
    assert "name" in bad.context["form"].errors
    assert "クラブ名を入力" in bad.content.decode()
    long = organiser_client.post(address, {"name": "あ" * 101})
    assert "name" in long.context["form"].errors
    club.refresh_from_db()
    assert club.name == "マメの会"
    response = organiser_client.post(address, {"name": "ＭＡＭＥの会　本店"})
    assert response.status_code == 302 and response.url == url("recording:club_home", club)
    club.refresh_from_db()
    assert (club.name, club.slug) == ("MAMEの会 本店", "mame")
    entry = AuditLog.objects.get(action="club.rename")
    assert (entry.actor, entry.before, entry.after) == (
        organiser,
        {"name": "マメの会"},
        {"name": "MAMEの会 本店"},
    )


def test_closing_a_season_still_running_warns_and_shows_what_is_kept(
    organiser_client, club, members, organiser
):
    from league.core.clock import today

    running = make_season(
        club=club,
        name="今年",
        start=today() - datetime.timedelta(days=30),
        end=today() + datetime.timedelta(days=30),
    )
    record(club, organiser, members[:4], date=today())
    organiser_client.cookies["django_language"] = "ja"
    page = organiser_client.get(url("club:season_close", club, running.pk)).content.decode()
    assert "締めた後の対局は確定成績に入りません" in page
    top = page[page.index("確定する成績表の上位") :]
    assert top.index("青木") < top.index("土井")
