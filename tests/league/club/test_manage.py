"""Managing a club: members, seasons, rules versions and re-settling (league/club/views/manage.py)."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.contrib import admin
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import scoring
from league import money
from league.club import services as club_services
from league.club.forms_manage import kana_sort_key, normalise_kana
from league.core import format as jancho
from league.jobs import job_state
from league.models import (
    AuditLog,
    Game,
    Job,
    Member,
    ResettleRun,
    Result,
    RulesVersion,
    Season,
    audit,
)
from league.rules import services as rules_services
from league.rules.forms import RulesForm, rules_initial
from tests.support.games import record_game
from tests.support.jobs import running_task
from tests.support.manage import post_rules, record, rules_post, saved_version

D = datetime.date


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


# --- the permission matrix -------------------------------------------------------------------

# (URL name, organisers only for GET, organisers only for POST)
VIEWS = [
    ("club:member_list", False, None),
    ("club:member_new", True, True),
    ("club:season_list", False, None),
    ("club:season_new", True, True),
    ("rules:rules_list", False, None),
    ("rules:rules_new", True, True),
    ("rules:rules_resettle", False, True),
]


def url_of(name: str, club, version_id: int | None = None) -> str:
    if name == "rules:rules_resettle":
        return reverse(name, args=[club.slug, version_id])
    return reverse(name, args=[club.slug])


@pytest.fixture
def version(club) -> RulesVersion:
    return RulesVersion.objects.get(club=club)


@pytest.mark.parametrize("name", [v[0] for v in VIEWS])
def test_organiser_may_open_every_page(organiser_client, club, version, name):
    assert organiser_client.get(url_of(name, club, version.pk)).status_code == 200


@pytest.mark.parametrize(("name", "organiser_get", "organiser_post"), VIEWS)
def test_plain_member_sees_lists_and_may_not_change(
    member_client, club, version, name, organiser_get, organiser_post
):
    url = url_of(name, club, version.pk)
    assert member_client.get(url).status_code == (403 if organiser_get else 200)
    if organiser_post:
        assert member_client.post(url, {"name": "x"}).status_code == 403


@pytest.mark.parametrize("name", [v[0] for v in VIEWS])
def test_another_clubs_user_and_logged_out_get_404(stranger_client, club, version, name):
    url = url_of(name, club, version.pk)
    assert stranger_client.get(url).status_code == 404
    assert stranger_client.post(url).status_code in (404, 405)
    assert Client().get(url).status_code == 404


@pytest.mark.parametrize(("name", "organiser_get", "organiser_post"), VIEWS)
def test_wrong_method_is_405(organiser_client, club, version, name, organiser_get, organiser_post):
    del organiser_get
    url = url_of(name, club, version.pk)
    assert organiser_client.delete(url).status_code == 405
    if organiser_post is None:
        assert organiser_client.post(url).status_code == 405


def test_resettle_of_another_clubs_version_is_404(organiser_client, club, other_club):
    theirs = RulesVersion.objects.get(club=other_club)
    url = reverse("rules:rules_resettle", args=[club.slug, theirs.pk])
    assert organiser_client.get(url).status_code == 404
    assert organiser_client.post(url).status_code == 404


# --- members ---------------------------------------------------------------------------------


def test_organiser_adds_a_member(organiser_client, club):
    url = reverse("club:member_new", args=[club.slug])
    response = organiser_client.post(
        url, {"name_0": "佐藤　健一", "kana_0": "ｻﾄｳ　ｹﾝｲﾁ", "guest_0": "on"}
    )
    assert response.status_code == 302
    member = Member.objects.get(club=club)
    assert (member.name, member.kana, member.is_guest) == ("佐藤 健一", "サトウ ケンイチ", True)
    assert AuditLog.objects.filter(club=club, action="member.create").count() == 1


def test_several_members_are_added_at_once_or_none(organiser_client, club, members):
    url = reverse("club:member_new", args=[club.slug])
    page = organiser_client.get(url).content.decode()
    assert page.count("data-member-row") == 5 and "ゲスト" in page
    # One refused row (a name the club has): every row is kept on the page, nothing is stored.
    typed = {"name_0": "江藤 健", "name_1": "青木", "name_3": "ｶﾜﾉ", "guest_3": "on"}
    response = organiser_client.post(url, typed)
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["name_1"]
    assert 'value="江藤 健"' in response.content.decode()
    assert not Member.objects.filter(club=club, name__in=["江藤 健", "カワノ"]).exists()
    # A reading without a name is an error on that row's name.
    response = organiser_client.post(url, {"name_0": "江藤 健", "kana_2": "だれ"})
    assert list(response.context["form"].errors) == ["name_2"]
    # Nothing typed at all: the first row asks for a name.
    response = organiser_client.post(url, {})
    assert list(response.context["form"].errors) == ["name_0"]
    response = organiser_client.post(url, {**typed, "name_1": "馬場 健"})
    assert response.status_code == 302
    added = {
        m.name: m
        for m in Member.objects.filter(club=club, name__in=["江藤 健", "馬場 健", "カワノ"])
    }
    assert set(added) == {"江藤 健", "馬場 健", "カワノ"}
    assert added["カワノ"].is_guest and not added["江藤 健"].is_guest
    assert added["江藤 健"].kana == "えとう たけし"  # suggested from the name
    assert AuditLog.objects.filter(club=club, action="member.create").count() == 3


def test_more_rows_keep_what_was_typed_and_save_nothing(organiser_client, club):
    url = reverse("club:member_new", args=[club.slug])
    response = organiser_client.post(url, {"rows": "5", "name_0": "江藤", "more": "10"})
    page = response.content.decode()
    assert response.status_code == 200 and page.count("data-member-row") == 10
    assert 'value="江藤"' in page and not Member.objects.filter(club=club).exists()
    assert "errorlist" not in page
    response = organiser_client.post(url, {"rows": "10", "name_0": "江藤", "name_9": "土井"})
    assert response.status_code == 302
    assert Member.objects.filter(club=club).count() == 2
    response = organiser_client.post(url, {"rows": "9999", "more": "9999"})
    assert response.content.decode().count("data-member-row") == 30


def test_member_new_may_return_to_a_same_site_page(organiser_client, club):
    url = reverse("club:member_new", args=[club.slug])
    back = reverse("recording:game_new", args=[club.slug])
    response = organiser_client.post(f"{url}?next={back}", {"name_0": "江藤"})
    assert response["Location"] == back
    response = organiser_client.post(f"{url}?next=https://evil.example/", {"name_0": "土井"})
    assert response["Location"] == reverse("club:member_list", args=[club.slug])


def test_a_duplicate_name_is_an_error_on_name(organiser_client, club, members):
    url = reverse("club:member_new", args=[club.slug])
    response = organiser_client.post(url, {"name_0": "青木", "kana_0": "あおき"})
    assert response.status_code == 200
    assert "name_0" in response.context["form"].errors
    assert Member.objects.filter(club=club, name="青木").count() == 1


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("さとう けんいち", "さとう けんいち"),
        ("サトウ　ケンイチ", "サトウ ケンイチ"),
        ("ｻﾄｳ ｹﾝｲﾁ", "サトウ ケンイチ"),
        ("  ちーちゃ  ", "ちーちゃ"),
        ("ヴぁ", "ヴぁ"),
        ("", "ぼう"),  # none typed: one is suggested from the name (issue 22's readings)
    ],
)
def test_kana_accepts_kana_in_any_width(organiser_client, club, typed, stored):
    organiser_client.post(
        reverse("club:member_new", args=[club.slug]), {"name_0": "某", "kana_0": typed}
    )
    assert Member.objects.get(club=club).kana == stored


@pytest.mark.parametrize("typed", ["sato", "佐藤", "さとう1", "さとう・けん"])
def test_kana_refuses_anything_else(organiser_client, club, typed):
    response = organiser_client.post(
        reverse("club:member_new", args=[club.slug]), {"name_0": "某", "kana_0": typed}
    )
    assert "kana_0" in response.context["form"].errors
    assert not Member.objects.filter(club=club).exists()


def test_kana_helpers():
    assert normalise_kana("ｶﾞｰﾄﾞ\u3000まん") == "ガード まん"
    assert kana_sort_key("カトウ") == kana_sort_key("かとう")


def test_member_list_is_in_kana_order_with_inactive_apart(member_client, club, organiser):
    for name, kana in [("渡辺", "わたなべ"), ("加藤", "カトウ"), ("無名", ""), ("青木", "あおき")]:
        club_services.member_create(club=club, user=organiser, name=name, kana=kana)
    guest = club_services.member_create(
        club=club, user=organiser, name="客", kana="きゃく", is_guest=True
    )
    gone = club_services.member_create(club=club, user=organiser, name="去人", kana="さりびと")
    club_services.member_set_active(member=gone, user=organiser, active=False)
    response = english(member_client).get(reverse("club:member_list", args=[club.slug]))
    active = [m.name for m in response.context["active"]]
    # 無名 was created without a reading: it got むめい, suggested from its name.
    assert active == ["青木", "加藤", "客", "無名", "渡辺"]
    assert [m.name for m in response.context["inactive"]] == ["去人"]
    assert guest.is_guest and b"guest" in response.content
    assert b"Make inactive" not in response.content  # plain members get no buttons


def test_organiser_toggles_active(organiser_client, club, members):
    aoki = members[0]
    url = reverse("club:member_new", args=[club.slug]) + f"?toggle={aoki.pk}"
    assert organiser_client.post(url).status_code == 302
    aoki.refresh_from_db()
    assert not aoki.is_active
    organiser_client.post(url)
    aoki.refresh_from_db()
    assert aoki.is_active
    logs = AuditLog.objects.filter(club=club).exclude(action__startswith="membership.")
    assert list(logs.values_list("action", flat=True)) == ["member.deactivate", "member.activate"]


def test_toggle_is_organisers_only_and_within_the_club(
    member_client, organiser_client, club, other_club, members
):
    url = reverse("club:member_new", args=[club.slug]) + f"?toggle={members[0].pk}"
    assert member_client.post(url).status_code == 403
    theirs = Member.objects.create(club=other_club, name="他人")
    url = reverse("club:member_new", args=[club.slug]) + f"?toggle={theirs.pk}"
    assert organiser_client.post(url).status_code == 404
    url = reverse("club:member_new", args=[club.slug]) + "?toggle=abc"
    assert organiser_client.post(url).status_code == 404
    assert Member.objects.filter(is_active=False).count() == 0


def test_member_list_query_count_does_not_grow(
    member_client, club, organiser, django_assert_num_queries
):
    url = reverse("club:member_list", args=[club.slug])

    def add(n: int, start: int) -> None:
        for i in range(start, start + n):
            club_services.member_create(club=club, user=organiser, name=f"会員{i}", kana="かいいん")

    add(3, 0)
    member_client.get(url)  # the session and the user are loaded once per request
    with django_assert_num_queries(5) as small:
        member_client.get(url)
    add(20, 3)
    with django_assert_num_queries(len(small.captured_queries)):
        assert len(member_client.get(url).context["active"]) == 23


# --- seasons ---------------------------------------------------------------------------------


def test_organiser_creates_a_season_with_slash_and_full_width_dates(organiser_client, club):
    response = organiser_client.post(
        reverse("club:season_new", args=[club.slug]),
        {
            "name": "2026年 後期",
            "start": "2026/7/1",
            "end": "２０２６－１２－３１",
            "min_games": "１０",
        },
    )
    assert response.status_code == 302
    season = Season.objects.get(club=club)
    assert (season.start, season.end, season.min_games) == (D(2026, 7, 1), D(2026, 12, 31), 10)
    log = AuditLog.objects.get(club=club, action="season.create")
    assert log.after["end"] == "2026-12-31"


def test_season_list_shows_seasons(member_client, club, organiser):
    club_services.season_create(
        club=club, user=organiser, name="春", start=D(2026, 4, 1), end=D(2026, 6, 30)
    )
    response = member_client.get(reverse("club:season_list", args=[club.slug]))
    assert "春" in response.content.decode()


def test_season_end_before_start_is_an_error_on_end(organiser_client, club):
    response = organiser_client.post(
        reverse("club:season_new", args=[club.slug]),
        {"name": "逆", "start": "2026-11-21", "end": "2026-11-20", "min_games": "0"},
    )
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["end"]
    assert not Season.objects.exists()


@pytest.mark.parametrize("typed", ["2026/13/01", "21/11/2026", "明日"])
def test_season_refuses_bad_dates(organiser_client, club, typed):
    response = organiser_client.post(
        reverse("club:season_new", args=[club.slug]),
        {"name": "x", "start": typed, "end": "2026-12-31", "min_games": "0"},
    )
    assert "start" in response.context["form"].errors


# --- rules versions --------------------------------------------------------------------------


def test_the_form_starts_from_a_preset_or_the_current_rules(organiser_client, club):
    url = reverse("rules:rules_new", args=[club.slug])
    form = organiser_client.get(f"{url}?from=kinyokai-2015").context["form"]
    assert form["rounding"].value() == "gosha-rokunyu"
    assert form["preset"].value() == "kinyokai-2015"
    form = organiser_client.get(url).context["form"]  # the club's current rules: マメの会
    assert form["deposits"].value() == "house"
    assert form["rate_name_0"].value() == "0.2"
    assert form["chip_name_1"].value() == "役満"  # shown as players call it


def test_create_a_version_from_a_preset(organiser_client, club):
    response = post_rules(organiser_client, club, rules_post("takabari-kenko"), "takabari-kenko")
    assert response.status_code == 302
    version = RulesVersion.objects.get(club=club, effective_from=D(2026, 4, 1))
    assert version.rules == scoring.PRESETS["takabari-kenko"].rules
    assert (version.preset, version.note, version.created_by.username) == (
        "takabari-kenko",
        "改定",
        "organiser",
    )
    assert AuditLog.objects.filter(club=club, action="rules.create").count() == 1


def test_create_a_version_with_overrides(organiser_client, club):
    data = rules_post(
        rounding="shisha-gonyu",
        uma_0="10",
        uma_1="5",
        uma_2="▲5",
        uma_3="－10",
        rate_name_3="1.0",
        rate_yen_3="100",
        rate_chip_3="500",
        chombo_points="２０",
        fee_4="1,000",
    )
    rules = saved_version(organiser_client, club, data).rules
    expected = scoring.rules_from_json(
        {
            "preset": "mame-no-kai",
            "rounding": "shisha-gonyu",
            "uma": [10, 5, -5, -10],
            "rates": {
                **scoring.PRESETS["mame-no-kai"].rules.to_json()["rates"],
                "1.0": {"yen_per_1000": 100, "chip_yen": 500},
            },
            "place_fees": {"4": 1000},
        }
    )
    assert rules == expected


def test_three_player_uma_leaves_the_fourth_empty(organiser_client, club):
    data = rules_post("pairon-kansai-3p")
    assert "uma_3" not in data
    rules = saved_version(organiser_client, club, data).rules
    assert rules.uma == (20, 0, -20)


def form_errors(response) -> dict[str, list[str]]:
    assert response.status_code == 200, "the form should have been shown again"
    return response.context["form"].errors


def test_uma_not_summing_to_zero_is_an_error_on_uma(organiser_client, club):
    data = rules_post(uma_0="10", uma_1="5", uma_2="-5", uma_3="-5")
    errors = form_errors(post_rules(organiser_client, club, data))
    assert list(errors) == ["uma"]
    assert RulesVersion.objects.filter(club=club).count() == 1


def test_uma_of_the_wrong_length_is_an_error_on_uma(organiser_client, club):
    errors = form_errors(post_rules(organiser_client, club, rules_post(players="3")))
    assert list(errors) == ["uma"]


def test_pay_top_points_that_do_not_divide_are_an_error_on_top_points(organiser_client, club):
    errors = form_errors(post_rules(organiser_client, club, rules_post(chombo_top_points="25")))
    assert list(errors) == ["chombo_top_points"]


def test_missing_chombo_points_is_an_error_on_chombo_points(organiser_client, club):
    data = rules_post(chombo_mode="penalty", chombo_points="")
    assert list(form_errors(post_rules(organiser_client, club, data))) == ["chombo_points"]


def test_a_rate_problem_lands_on_its_row_despite_the_dot_in_its_name(organiser_client, club):
    data = rules_post(rate_yen_1="")  # the row named "0.3"
    assert list(form_errors(post_rules(organiser_client, club, data))) == ["rate_yen_1"]


def test_rows_need_names_and_distinct_names(organiser_client, club):
    data = rules_post(rate_name_3="", rate_yen_3="10", chip_name_2="ippatsu", chip_ron_2="1")
    errors = form_errors(post_rules(organiser_client, club, data))
    assert set(errors) == {"rate_name_3", "chip_name_2"}


def test_start_not_in_hundreds_is_an_error_on_start(organiser_client, club):
    data = rules_post(start="25050", return_points="30,000")
    assert list(form_errors(post_rules(organiser_client, club, data))) == ["start"]


def test_a_duplicate_effective_date_is_refused(organiser_client, club):
    data = rules_post(effective_from="2020-01-01")
    assert list(form_errors(post_rules(organiser_client, club, data))) == ["effective_from"]


def test_advanced_json_is_used_instead_of_the_fields(organiser_client, club):
    data = rules_post(
        advanced="on",
        rules_json='{"preset": "kinyokai-2015", "ties": "split"}',
        uma_0="",  # the fields are not needed then
    )
    version = saved_version(organiser_client, club, data)
    assert version.preset == "kinyokai-2015"
    assert version.rules.ties == "split"
    assert version.rules.rounding == "gosha-rokunyu"


@pytest.mark.parametrize(
    "text",
    ["{not json", '{"preset": "kinyokai-2015", "uma": [10, 5, -5]}', '"no-such-preset"', ""],
)
def test_advanced_json_problems_are_errors_on_the_json(organiser_client, club, text):
    data = rules_post(advanced="on", rules_json=text)
    assert list(form_errors(post_rules(organiser_client, club, data))) == ["rules_json"]


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("uma", "uma"),
        ("uma[2]", "uma"),
        ("chombo.top_points", "chombo_top_points"),
        ("rates.0.3.yen_per_1000", "rate_yen_1"),
        ("chips.yakuman.ron", "chip_ron_1"),
        ("place_fees.4", "fee_4"),
        ("return", "return_points"),
        ("rates.9.9.yen_per_1000", None),
        ("something.else", None),
    ],
)
def test_problem_paths_map_to_fields(path, field):
    form = RulesForm(rules_post())
    assert form.is_valid(), form.errors
    assert form.problem_field(path) == field


def test_rules_list_summarises_and_highlights_the_version_in_force(member_client, club, organiser):
    rules_services.rules_version_create(
        club=club,
        user=organiser,
        effective_from=D.today() + datetime.timedelta(days=60),  # dates are bounded (limits)
        rules_json="kagetsu-cup",
    )
    response = english(member_client).get(reverse("rules:rules_list", args=[club.slug]))
    current = RulesVersion.objects.get(club=club, effective_from=D(2020, 1, 1))
    assert response.context["in_force"] == current
    text = response.content.decode()
    assert "in force today" in text and "not yet in force" in text
    assert "pays 20 to the top" in text  # マメの会's chombo
    assert "rank 4 pays 1,000 yen" in text  # 花月杯's place fee


# --- re-settling -----------------------------------------------------------------------------

POINTS = [(42300, 31800, 18600, 7300), (36500, 28500, 24500, 10500), (50100, 26000, 15600, 8300)]


@pytest.fixture
def games(club, organiser, members) -> list[Game]:
    """One game before 2026-04-01 and two after, under the club's マメの会 rules of 2020."""
    four = members[:4]
    return [
        record(club, organiser, four, D(2026, 3, 20), POINTS[0]),
        record(club, organiser, four, D(2026, 4, 10), POINTS[1]),
        record(club, organiser, four[::-1], D(2026, 5, 1), POINTS[2]),
    ]


def new_version(club, organiser, **overrides) -> RulesVersion:
    return rules_services.rules_version_create(
        club=club,
        user=organiser,
        effective_from=D(2026, 4, 1),
        rules_json={"preset": "mame-no-kai", **overrides},
    )


def expected_scores(version: RulesVersion, game: Game) -> list[int]:
    results = Result.objects.filter(game=game, revision=game.revision).order_by("seat")
    settled = scoring.settle_game(
        version.rules,
        scoring.Game(
            seats=tuple(scoring.Seat(str(r.member_id), r.points) for r in results),
            rate=game.rate or None,
        ),
    )
    return [p.score for p in settled.players]


def test_creating_a_version_links_to_resettling(organiser_client, club, games):
    url = reverse("rules:rules_new", args=[club.slug])
    data = rules_post(uma_0="10", uma_1="5", uma_2="-5", uma_3="-10")
    check = english(organiser_client).post(url, data)
    assert not RulesVersion.objects.filter(club=club, effective_from=D(2026, 4, 1)).exists()
    response = english(organiser_client).post(
        url, {**data, "confirm": check.context["check"].token}, follow=True
    )
    version = RulesVersion.objects.get(club=club, effective_from=D(2026, 4, 1))
    text = [str(m) for m in response.context["messages"]]
    assert any("2 games from this date on" in t for t in text)
    assert any(reverse("rules:rules_resettle", args=[club.slug, version.pk]) in t for t in text)


def test_creating_a_version_says_which_days_keep_their_money(organiser_client, club, members):
    """Issue 26, item 2: a day in the new version's dates without a game (attendance alone)
    keeps the rules its money had; the organiser is told, with the link to re-settle it."""
    day = money.day_attendees_add(club=club, user=None, date=D(2026, 5, 2), members=members)
    url = reverse("rules:rules_new", args=[club.slug])
    data = rules_post(uma_0="10", uma_1="5", uma_2="-5", uma_3="-10")
    check = english(organiser_client).post(url, data)
    response = english(organiser_client).post(
        url, {**data, "confirm": check.context["check"].token}, follow=True
    )
    version = RulesVersion.objects.get(club=club, effective_from=D(2026, 4, 1))
    text = " ".join(str(m) for m in response.context["messages"])
    assert "1 day from this date on keeps its money under other rules." in text
    assert "games from this date on" not in text
    assert reverse("rules:rules_resettle", args=[club.slug, version.pk]) in text
    day.refresh_from_db()
    assert day.rules_version == RulesVersion.objects.get(club=club, effective_from=D(2020, 1, 1))
    assert AuditLog.objects.filter(action="day.rules_kept", target=f"day:{day.pk}").exists()


def test_preview_lists_exactly_the_affected_games_with_new_scores(club, organiser, games):
    version = new_version(club, organiser, uma=[10, 5, -5, -10])
    changes = rules_services.resettle_preview(version=version)
    assert [c.game for c in changes] == games[1:]
    for change in changes:
        assert change.changed
        assert [p.score for p in change.after.players] == expected_scores(version, change.game)


def test_resettle_page_shows_old_and_new_scores(member_client, club, organiser, games):
    version = new_version(club, organiser, uma=[10, 5, -5, -10])
    response = english(member_client).get(
        reverse("rules:rules_resettle", args=[club.slug, version.pk])
    )
    summary = response.context["summary"]
    assert (summary.games, summary.changing, summary.failing) == (2, 2, 0)
    # Summed up by day (not every game listed), with the largest movements.
    assert [line.date for line in summary.days] == sorted({g.date for g in games[1:]})
    assert sum(line.games for line in summary.days) == 2
    moves = {(m.game.pk, m.name): m for m in summary.largest}
    move = moves[(games[1].pk, "青木")]
    assert (move.score_before, move.score_after) == (
        Result.objects.get(game=games[1], seat=0).score,
        expected_scores(version, games[1])[0],
    )
    assert move.score_change and abs(move.score_change) <= abs(summary.largest[0].score_change)
    page = response.content.decode()
    assert "The largest movements" in page and "Days that move" in page
    assert "Re-settle these games" not in page  # members only look


def test_applying_resettles_bumps_revisions_and_audits(organiser_client, club, organiser, games):
    version = new_version(club, organiser, uma=[10, 5, -5, -10])
    expected = {g.pk: expected_scores(version, g) for g in games[1:]}
    untouched = list(Result.objects.filter(game=games[0]).values_list("score", flat=True))
    url = reverse("rules:rules_resettle", args=[club.slug, version.pk])
    shown = organiser_client.get(url).context["expected"]
    response = english(organiser_client).post(url, {"expected": shown}, follow=True)
    run = ResettleRun.objects.select_related("job").get()
    assert response.redirect_chain[-1][0] == reverse(
        "rules:rules_resettle_run", args=[club.slug, run.pk]
    )
    assert "2 games re-settled." in response.content.decode()
    state = job_state(run.job)
    assert (state.status, run.job.total, run.job.done, run.job.message["moved"]) == (
        "done",
        2,
        2,
        2,
    )
    assert AuditLog.objects.get(action="rules.resettle").actor == organiser
    for game in games[1:]:
        game.refresh_from_db()
        assert (game.revision, game.rules_version) == (2, version)
        counted = Result.objects.filter(game=game, counted=True).order_by("seat")
        assert [r.score for r in counted] == expected[game.pk]
        assert all(r.revision == 2 for r in counted)
    assert AuditLog.objects.filter(action="game.resettle").count() == 2
    games[0].refresh_from_db()
    assert games[0].revision == 1 and games[0].rules_version != version
    assert list(Result.objects.filter(game=games[0]).values_list("score", flat=True)) == untouched
    assert rules_services.resettle_preview(version=version) == []


def test_rounding_change_only_touches_games_from_its_date(club, organiser, games):
    version = new_version(club, organiser, rounding="shisha-gonyu")
    assert [c.game for c in rules_services.resettle_preview(version=version)] == games[1:]
    assert rules_services.resettle_apply(version=version, user=organiser) == 2


def test_games_that_cannot_be_settled_are_listed_and_skipped(
    organiser_client, club, organiser, games
):
    # The new rules drop the 0.3 rate the games were played at.
    version = new_version(club, organiser, rates={"0.5": {"yen_per_1000": 50, "chip_yen": 200}})
    url = reverse("rules:rules_resettle", args=[club.slug, version.pk])
    response = english(organiser_client).get(url)
    assert response.context["summary"].failing == 2
    assert b"Games that cannot be settled under these rules" in response.content
    organiser_client.post(url, {"expected": response.context["expected"]})
    assert ResettleRun.objects.select_related("job").get().job.message["failed"] == 2
    assert Game.objects.filter(rules_version=version).count() == 0
    assert not AuditLog.objects.filter(action="game.resettle").exists()


def _chip_games(club, organiser, members, n: int, date: datetime.date, **options) -> None:
    """`n` games on `date` by the first four members, POINTS in turn, each with 青木's ippatsu
    on 馬場 (`options`: game_record's)."""
    for i in range(n):
        chip = ("ippatsu", members[0], members[1])
        record_game(club, organiser, members[:4], POINTS[i % 3], date=date, chips=[chip], **options)


def test_resettle_page_query_count_does_not_grow(
    member_client, club, organiser, members, django_assert_num_queries
):

    def add(n: int, date: datetime.date) -> None:
        _chip_games(club, organiser, members, n, date)

    # Recorded under the 2020 rules; then two new versions: April–May has 2 games, June on 6.
    add(2, D(2026, 4, 10))
    add(6, D(2026, 7, 10))
    april = new_version(club, organiser, uma=[10, 5, -5, -10])
    june = rules_services.rules_version_create(
        club=club, user=organiser, effective_from=D(2026, 6, 1), rules_json="pairon-kansai"
    )
    with django_assert_num_queries(23) as small:
        url = reverse("rules:rules_resettle", args=[club.slug, april.pk])
        assert member_client.get(url).context["summary"].games == 2
    with django_assert_num_queries(len(small.captured_queries)):
        url = reverse("rules:rules_resettle", args=[club.slug, june.pk])
        assert member_client.get(url).context["summary"].games == 6


# --- the admin -------------------------------------------------------------------------------


def test_admin_lists_every_model_for_superusers(admin_client, club, organiser, games):
    for model in admin.site._registry:
        if model._meta.app_label != "league":
            continue
        url = reverse(f"admin:league_{model._meta.model_name}_changelist")
        assert admin_client.get(url).status_code == 200, url


def test_admin_audit_log_is_read_only(admin_client, club, organiser):
    log = audit.audit(club=club, actor=organiser, action="member.create", target="member:1")
    model_admin = admin.site._registry[AuditLog]
    request = admin_client.get("/").wsgi_request
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, log)
    assert not model_admin.has_delete_permission(request, log)
    assert admin_client.get(reverse("admin:league_auditlog_add")).status_code == 403
    url = reverse("admin:league_auditlog_change", args=[log.pk])
    assert admin_client.post(url, {"action": "forged"}).status_code == 403
    assert AuditLog.objects.get(pk=log.pk).action == log.action


def test_a_place_fee_for_a_rank_that_does_not_exist_is_an_error_on_it(organiser_client, club):
    data = rules_post("pairon-kansai-3p", fee_4="1000")
    assert list(form_errors(post_rules(organiser_client, club, data))) == ["fee_4"]


def test_advanced_json_may_name_a_preset(organiser_client, club):
    data = rules_post(advanced="on", rules_json='"kagetsu-cup"')
    version = saved_version(organiser_client, club, data)
    assert version.preset == "kagetsu-cup"
    assert version.rules == scoring.PRESETS["kagetsu-cup"].rules


def test_saving_first_shows_the_changes_and_the_games_that_would_settle_differently(
    organiser_client, club, games
):
    url = reverse("rules:rules_new", args=[club.slug])
    data = rules_post(uma_0="10", uma_1="5", uma_2="-5", uma_3="-10", surcharge_percent="")
    response = english(organiser_client).post(url, data)
    assert response.status_code == 200
    check = response.context["check"]
    changes = {label: (before, after) for label, before, after in check.changes}
    assert changes["Uma"] == ("+20 / +10 / -10 / -20", "+10 / +5 / -5 / -10")
    assert changes["Surcharge on deferred debts"] == ("10%", "")
    assert len(changes) == 2  # nothing else differs from マメの会
    assert check.games == 2 and check.failing == 0
    page = response.content.decode()
    assert "2 recorded games from this date would settle differently" in page
    assert RulesVersion.objects.filter(club=club).count() == 1  # nothing saved yet


def test_a_confirmation_of_other_rules_shows_the_check_again(organiser_client, club):
    url = reverse("rules:rules_new", args=[club.slug])
    data = rules_post(uma_0="10", uma_1="5", uma_2="-5", uma_3="-10")
    token = organiser_client.post(url, data).context["check"].token
    changed = {**data, "uma_0": "15", "uma_3": "-15", "confirm": token}  # edited after the check
    response = organiser_client.post(url, changed)
    assert response.status_code == 200 and response.context["check"].token != token
    assert RulesVersion.objects.filter(club=club).count() == 1


def test_a_named_rate_or_chip_without_its_amount_is_an_error_not_zero(organiser_client, club):
    data = rules_post(rate_name_3="1.0", rate_yen_3="100", chip_name_2="赤ドラ", chip_tsumo_2="1")
    errors = form_errors(post_rules(organiser_client, club, data))
    assert set(errors) == {"rate_chip_3", "chip_ron_2"}
    assert "0" in errors["rate_chip_3"][0]  # it says to write 0 for none


def test_chip_kinds_are_typed_and_shown_as_players_call_them(organiser_client, club):
    data = rules_post(chip_name_0="一発", chip_name_2="赤ドラ", chip_tsumo_2="1", chip_ron_2="1")
    rules = saved_version(organiser_client, club, data).rules
    assert set(rules.chips) == {"ippatsu", "yakuman", "aka"}


def example(client, club, data: dict[str, str], *points: int):
    url = reverse("rules:rules_example", args=[club.slug])
    body = {**data, **{f"example_{i}": str(p) for i, p in enumerate(points)}}
    return client.post(url, body).json()


def test_the_worked_example_settles_the_form_as_it_stands(organiser_client, club):
    data = rules_post()
    got = example(organiser_client, club, data, 48300, 31200, 15600, 4900)
    rules = scoring.PRESETS["mame-no-kai"].rules
    seats = tuple(
        scoring.Seat(w, p) for w, p in zip("東南西北", [48300, 31200, 15600, 4900], strict=True)
    )
    expected = scoring.settle_game(rules, scoring.Game(seats=seats, rate="0.2"))
    assert [p["score"] for p in got["players"]] == [jancho.score(p.score) for p in expected.players]
    assert got["rate"] == "0.2" and got["players"][0]["yen"]
    # The same hanchan under other uma, before anything is saved.
    other = example(
        organiser_client, club, {**data, "uma_0": "30", "uma_3": "-30"}, 48300, 31200, 15600, 4900
    )
    assert other["players"][0]["score"] != got["players"][0]["score"]
    assert RulesVersion.objects.filter(club=club).count() == 1


def test_the_worked_example_names_what_to_fix(organiser_client, club):
    got = example(organiser_client, club, rules_post(uma_0="11"), 48300, 31200, 15600, 4900)
    assert got["errors"] and "players" not in got
    got = example(organiser_client, club, rules_post(), 48300, 31200, 15600)
    assert got["errors"]


def test_the_worked_example_is_for_organisers_only(member_client, stranger_client, club):
    url = reverse("rules:rules_example", args=[club.slug])
    assert member_client.post(url, rules_post()).status_code == 403  # a member of the club
    assert stranger_client.post(url, rules_post()).status_code == 404
    assert member_client.get(url).status_code == 405


def test_the_v2_rules_are_set_in_the_form(organiser_client, club):
    data = rules_post(
        "pairon-kansai",
        oka="house",
        rounding="gosha-rokunyu",
        rounding_negative="number-line",
        bust_points="10",
        bust_to="buster",
        bust_at_zero="on",
        yakitori_mode="pay_each",
        yakitori_points="5",
    )
    rules = saved_version(organiser_client, club, data).rules
    assert rules == scoring.rules_from_json(
        {
            "preset": "pairon-kansai",
            "oka": "house",
            "rounding": "gosha-rokunyu",
            "rounding_negative": "number-line",
            "bust_bonus": {"points": 10, "to": "buster", "at_zero": True},
            "yakitori": {"mode": "pay_each", "points": 5},
        }
    )


RENMEI = {
    "players": 4,
    "start": 30000,
    "return": 30000,
    "rounding": "none",
    "uma": {
        "floating_line": 30000,
        "by_floating": {"1": [12, -1, -3, -8], "3": [8, 3, 1, -12]},
        "default": [8, 4, -4, -8],
    },
    "ties": "split",
    "deposits": "house",
    "below_zero": "settle",
    "chombo": {"mode": "penalty", "points": 20},
}


def test_floating_uma_round_trips_through_the_form(organiser_client, club):
    rules = scoring.rules_from_json(RENMEI)
    data: dict[str, str] = {}
    for key, value in rules_initial(rules.to_json()).items():
        if key == "uma" or key.startswith("uma_floating_"):
            data |= {f"{key}_{i}": str(v) for i, v in enumerate(value)}
        elif value is True:
            data[key] = "on"
        elif value not in (None, False):
            data[key] = str(value)
    data |= {"effective_from": "2026/04/01", "note": "連盟"}
    assert post_rules(organiser_client, club, data).status_code == 302
    assert RulesVersion.objects.get(club=club, effective_from=D(2026, 4, 1)).rules == rules


def test_a_floating_uma_problem_lands_on_its_row(organiser_client, club):
    data = rules_post(
        floating="on", uma_floating_1_0="12", uma_floating_1_1="-1", uma_floating_1_2="-3",
        uma_floating_1_3="-9",
    )  # fmt: skip
    assert "uma_floating_1" in form_errors(post_rules(organiser_client, club, data))


def test_yakitori_needs_its_points(organiser_client, club):
    data = rules_post(yakitori_mode="penalty")
    assert list(form_errors(post_rules(organiser_client, club, data))) == ["yakitori_points"]


def test_the_worked_example_shows_the_bust_bonus(organiser_client, club):
    data = rules_post("pairon-kansai", bust_points="10", bust_to="buster")
    got = example(organiser_client, club, data, 60000, 30000, 20000, -10000)
    # The 4th (−10,000) pays 10 to the player who busted them: the example's top.
    assert [p["score"] for p in got["players"]] == ["+80.0", "+10.0", "▲20.0", "▲70.0"]
    plain = example(
        organiser_client, club, rules_post("pairon-kansai"), 60000, 30000, 20000, -10000
    )
    assert [p["score"] for p in plain["players"]] == ["+70.0", "+10.0", "▲20.0", "▲60.0"]


def test_the_resettle_key_is_a_digest_however_many_games():
    """The preview's check key stays 64 characters at any size (a list of every game's id and
    revision passed 20,000 characters above about 4,000 games and was always refused)."""
    from types import SimpleNamespace

    from league.rules.services import ResettleChange, resettle_key

    def changes(n: int, bump: int | None = None) -> list[ResettleChange]:
        return [
            ResettleChange(SimpleNamespace(pk=i, revision=2 if i == bump else 1), [], None)
            for i in range(n)
        ]

    assert len(resettle_key(changes(5))) == len(resettle_key(changes(10_000))) == 64
    assert resettle_key(changes(10_000)) == resettle_key(changes(10_000))
    assert resettle_key(changes(10_000, bump=9_999)) != resettle_key(changes(10_000))


@pytest.mark.parametrize(("total", "done"), [(0, 0), (40, 10)])
def test_a_running_resettle_shows_a_bar_only_with_games_counted(
    organiser_client, club, organiser, total, done
):
    """Before the worker has counted any game (or with none to move) the bar is indeterminate,
    never a determinate bar of max 0 (which a browser draws as empty or part-filled)."""
    version = new_version(club, organiser, uma=[10, 5, -5, -10])
    job = Job.objects.create(club=club, kind=Job.RESETTLE, total=total, done=done)
    running_task(job)
    run = ResettleRun.objects.create(club=club, version=version, job=job)
    page = english(organiser_client).get(
        reverse("rules:rules_resettle_run", args=[club.slug, run.pk])
    )
    html = page.content.decode()
    if total:
        assert f'<progress max="{total}" value="{done}">' in html
        assert "Re-settling: 10 of 40 games." in html
    else:
        assert "<progress></progress>" in html and 'max="0"' not in html
        assert "counting the games" in html


def test_a_resettle_step_is_one_day(club, organiser, members, games):
    """Recording waits for a step (the club's lock): a step is one day, however many games it
    has, never cut."""
    third = record(club, organiser, members[:4], D(2026, 5, 1), POINTS[0])  # May 1: two games
    version = new_version(club, organiser, uma=[10, 5, -5, -10])
    seen: list[tuple[int, int]] = []
    moved = rules_services.resettle_apply(
        version=version, user=organiser, progress=lambda s: seen.append((s.done, s.moved))
    )
    assert moved == 3 and seen == [(1, 1), (3, 3)]  # April 10, then May 1's two games at once
    assert all(
        g.rules_version == version
        for g in Game.objects.filter(pk__in=[games[1].pk, games[2].pk, third.pk])
    )


def test_a_resettle_batch_costs_the_same_queries_however_many_games(
    club, organiser, members, django_assert_num_queries
):
    """A batch loads, settles and writes its games in bulk: its queries do not grow with its
    games (each game used to cost 28 to 40 of its own)."""

    def add(n: int, date: datetime.date) -> None:
        _chip_games(club, organiser, members, n, date, confirm_duplicate=True)

    # April–May: 3 games on a day; from June: 9 games on a day, the same three games three
    # times, under the same new rules: the same rows move, three times as far.
    add(3, D(2026, 4, 10))
    add(9, D(2026, 7, 10))
    april = new_version(club, organiser, uma=[10, 5, -5, -10])
    june = rules_services.rules_version_create(
        club=club,
        user=organiser,
        effective_from=D(2026, 6, 1),
        rules_json={"preset": "mame-no-kai", "uma": [10, 5, -5, -10]},
    )
    with CaptureQueriesContext(connection) as small:
        assert rules_services.resettle_apply(version=april, user=organiser) == 3
    with django_assert_num_queries(len(small.captured_queries)):
        assert rules_services.resettle_apply(version=june, user=organiser) == 9
    assert Game.objects.filter(rules_version=june).count() == 9
    assert AuditLog.objects.filter(action="game.resettle").count() == 12
