"""Signing up and starting a club without the admin: account, club and rules, first season.

Every refusal names its field in Japanese and stores nothing; sign-up can be switched off and is
throttled per address."""

from __future__ import annotations

import datetime
import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

import scoring
from league.accounts import services
from league.accounts.views import account as views
from league.models import AuditLog, Club, LoginAttempt, Member, Membership, RulesVersion, Season
from tests.support.clubs import PASSWORD, make_club, make_user
from tests.support.signup import GOOD, club_data, signup_data

User = get_user_model()


def errors_of(response) -> dict[str, list[str]]:
    form = response.context["form"]
    return {name: [str(m) for m in messages] for name, messages in form.errors.items()}


def stored() -> tuple[int, int, int, int, int]:
    return (
        User.objects.count(),
        Club.objects.count(),
        Membership.objects.count(),
        RulesVersion.objects.count(),
        Season.objects.count(),
    )


# --- the whole flow --------------------------------------------------------------------------


def test_sign_up_start_a_club_and_its_first_season(client, db):
    response = client.post(reverse("accounts:signup"), signup_data(email="yamada@example.jp"))
    assert response.status_code == 302 and response.url == reverse("accounts:club_new")
    user = User.objects.get(username="yamada")
    assert user.email == "yamada@example.jp" and user.check_password(GOOD)
    assert client.get(reverse("accounts:account")).status_code == 200  # logged in

    response = client.post(reverse("accounts:club_new"), club_data())
    assert response.status_code == 302
    assert response.url == reverse("accounts:club_first_season", args=["mame-no-kai"])
    club = Club.objects.get(slug="mame-no-kai")
    assert club.name == "マメの会"
    membership = Membership.objects.get(club=club)
    assert (membership.user, membership.role) == (user, Membership.ORGANISER)
    version = RulesVersion.objects.get(club=club)
    assert version.rules_json == scoring.PRESETS["mame-no-kai"].rules.to_json()
    assert version.preset == "mame-no-kai" and version.created_by == user

    page = client.get(response.url)
    year = timezone.localdate().year
    assert page.context["form"]["start"].value() == datetime.date(year, 1, 1)
    response = client.post(
        response.url,
        {
            "name": f"{year}年",
            "start": f"{year}/01/01",
            "end": f"{year}/12/31",
            "min_games": "１０",
        },
    )
    assert response.status_code == 302 and response.url == reverse(
        "recording:club_home", args=[club.slug]
    )
    season = Season.objects.get(club=club)
    assert (season.name, season.min_games) == (f"{year}年", 10)

    actions = list(AuditLog.objects.filter(club=club).order_by("pk").values_list("action", "actor"))
    assert actions == [
        ("club.create", user.pk),
        ("membership.create", user.pk),
        ("rules.create", user.pk),
        ("season.create", user.pk),
    ]
    home = client.get(reverse("recording:club_home", args=[club.slug]))
    assert home.status_code == 200 and home.context["club"].is_organiser
    assert reverse("recording:game_new", args=[club.slug]) in home.content.decode()


def test_signup_goes_back_to_a_safe_next_and_ignores_another_site(client, db):
    target = reverse("accounts:account")
    response = client.post(reverse("accounts:signup") + f"?next={target}", signup_data())
    assert response.url == target
    client.logout()
    response = client.post(
        reverse("accounts:signup"),
        {**signup_data(username="suzuki"), "next": "https://evil.example/"},
    )
    assert response.url == reverse("accounts:club_new")


@pytest.mark.parametrize("start", ["/", "/c/mame/"])
def test_a_signup_to_start_a_club_lands_in_club_creation(client, db, start):
    """Logged out, `/` (or a club's page) sends to the login page with next=; the sign-up
    made from there is to start a club: the empty club list (or a refusal) is not where it goes."""
    response = client.post(reverse("accounts:signup") + f"?next={start}", signup_data())
    assert response.url == reverse("accounts:club_new")


def test_signup_page_carries_next_into_its_form_and_login_link(client, db):
    html = client.get(reverse("accounts:signup") + "?next=/join/abc/").content.decode()
    assert 'name="next" value="/join/abc/"' in html
    assert reverse("accounts:login") + "?next=/join/abc/" in html


def test_a_logged_in_user_is_sent_on_from_the_signup_page(organiser_client):
    response = organiser_client.get(reverse("accounts:signup"))
    assert response.status_code == 302 and response.url == reverse("accounts:club_new")


def test_sign_up_is_in_japanese(client, db):
    html = client.get(reverse("accounts:signup")).content.decode()
    assert "新規登録" in html and "ユーザー名" in html and "パスワード（確認）" in html


# --- sign-up: bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "field", "text"),
    [
        (signup_data(username=""), "username", "ユーザー名を入力"),
        (signup_data(password1=""), "password1", "パスワードを入力"),
        (signup_data(password2=""), "password2", "もう一度"),
        (signup_data(username="a b"), "username", "ユーザー名"),
        (signup_data(password2="other-pinfu-2026"), "password2", "一致しません"),
        (signup_data(password1="1234", password2="1234"), "password2", "短すぎ"),
        (signup_data(password1="password", password2="password"), "password2", "一般的"),
        (signup_data(password1="yamada2026", password2="yamada2026"), "password2", "似"),
        (signup_data(email="not-an-address"), "email", "メールアドレス"),
    ],
)
def test_bad_sign_up_names_the_field_in_japanese_and_stores_nothing(client, db, data, field, text):
    response = client.post(reverse("accounts:signup"), data)
    assert response.status_code == 200
    errors = errors_of(response)
    assert field in errors, errors
    assert any(text in message for message in errors[field]), errors
    assert stored() == (0, 0, 0, 0, 0)
    assert "_auth_user_id" not in client.session


def test_a_taken_user_name_is_refused_whatever_its_case_or_width(client, db):
    make_user("yamada")
    for name in ("yamada", "YAMADA", "ｙａｍａｄａ"):
        response = client.post(reverse("accounts:signup"), signup_data(username=name))
        assert response.status_code == 200, name
        assert "username" in errors_of(response), name
    assert User.objects.count() == 1


def test_the_signup_service_refuses_a_taken_name_and_a_weak_password(db):
    make_user("yamada")
    with pytest.raises(services.ServiceError) as e:
        services.signup(username="Yamada", password="1")
    assert set(e.value.errors) == {"username", "password1"}


# --- sign-up switched off, and throttled -----------------------------------------------------


def test_sign_up_can_be_switched_off(client, db, settings):
    settings.SIGNUP = False
    response = client.get(reverse("accounts:signup"))
    assert response.status_code == 404
    assert "新規登録は受け付けていません" in response.content.decode()
    assert client.post(reverse("accounts:signup"), signup_data()).status_code == 404
    assert User.objects.count() == 0
    login = client.get(reverse("accounts:login")).content.decode()
    assert reverse("accounts:signup") not in login
    assert reverse("accounts:password_reset") in login


def test_the_login_page_links_to_sign_up_when_it_is_on(client, db):
    login = client.get(reverse("accounts:login") + "?next=/c/x/").content.decode()
    assert reverse("accounts:signup") + "?next=/c/x/" in login


def test_the_next_sign_up_from_one_address_over_the_limit_is_refused(db):
    client = Client(REMOTE_ADDR="203.0.113.9")
    for i in range(views.SIGNUP_LIMIT):
        response = client.post(reverse("accounts:signup"), signup_data(username=f"player{i}"))
        assert response.status_code == 302, i
        client.logout()
    response = client.post(reverse("accounts:signup"), signup_data(username="one-too-many"))
    assert response.status_code == 429
    assert "作成されたアカウントが多すぎます" in response.content.decode()
    assert not User.objects.filter(username="one-too-many").exists()
    assert User.objects.count() == views.SIGNUP_LIMIT
    # Another address is not affected, and bad input is not counted.
    other = Client(REMOTE_ADDR="198.51.100.7")
    assert (
        other.post(reverse("accounts:signup"), signup_data(username="elsewhere")).status_code == 302
    )


def test_bad_sign_ups_are_not_counted(db):
    client = Client(REMOTE_ADDR="203.0.113.10")
    for _i in range(views.SIGNUP_LIMIT + 2):
        client.post(reverse("accounts:signup"), signup_data(password2="mismatch"))
    assert LoginAttempt.objects.count() == 0
    assert client.post(reverse("accounts:signup"), signup_data()).status_code == 302


def test_trying_taken_names_counts_as_sign_ups(db):
    """A taken name tells that the name exists: names cannot be tried without limit."""
    make_user("yamada")
    client = Client(REMOTE_ADDR="203.0.113.11")
    for i in range(views.SIGNUP_LIMIT):
        taken = "YAMADA" if i % 2 else "ｙａｍａｄａ"  # another case, another width: still taken
        assert (
            client.post(reverse("accounts:signup"), signup_data(username=taken)).status_code == 200
        )
    response = client.post(reverse("accounts:signup"), signup_data(username="yamada"))
    assert response.status_code == 429
    assert "yamada" not in " ".join(str(e) for e in response.context["form"].errors.values())
    assert (
        client.post(reverse("accounts:signup"), signup_data(username="free-name")).status_code
        == 429
    )
    assert User.objects.count() == 1


def test_sign_ups_from_one_ipv6_network_count_together(db):
    for i in range(views.SIGNUP_LIMIT):
        client = Client(REMOTE_ADDR=f"2001:db8:5:6::{i + 1:x}")
        assert (
            client.post(reverse("accounts:signup"), signup_data(username=f"v6-{i}")).status_code
            == 302
        )
    same_64 = Client(REMOTE_ADDR="2001:db8:5:6:abcd::9")
    assert (
        same_64.post(reverse("accounts:signup"), signup_data(username="v6-more")).status_code == 429
    )


# --- a new club: bad input -------------------------------------------------------------------


@pytest.fixture
def user_client(db) -> Client:
    client = Client()
    client.force_login(make_user("newcomer"))
    return client


@pytest.mark.parametrize(
    ("data", "field", "text"),
    [
        (club_data(name=""), "name", "クラブ名を入力"),
        (club_data(name="　"), "name", "クラブ名を入力"),
        (club_data(name="あ" * 101), "name", "100"),
        (club_data(slug="ab"), "slug", "3〜50文字"),
        (club_data(slug="まめのかい"), "slug", "半角英小文字"),
        (club_data(slug="-mame"), "slug", "半角英小文字"),
        (club_data(slug="mame!"), "slug", "半角英小文字"),
        (club_data(slug="admin"), "slug", "予約"),
        (club_data(slug="new"), "slug", "予約"),
        (club_data(rules_from=""), "rules_from", "ルールを選んで"),
        (club_data(rules_from="preset:nonsense"), "rules_from", "選択"),
        (club_data(player_name="青木\u200b"), "player_name", "見えない文字"),
        (club_data(player_name="あ" * 51), "player_name", "50"),
    ],
)
def test_bad_club_names_the_field_in_japanese_and_stores_nothing(user_client, data, field, text):
    before = stored()
    response = user_client.post(reverse("accounts:club_new"), data)
    assert response.status_code == 200
    errors = errors_of(response)
    assert field in errors, errors
    assert any(text in message for message in errors[field]), errors
    assert stored() == before
    assert AuditLog.objects.count() == 0


def test_an_organiser_who_plays_gets_their_player_record_linked(user_client):
    response = user_client.post(reverse("accounts:club_new"), club_data(player_name="ｱｵｷ　健太"))
    assert response.status_code == 302
    club = Club.objects.get(slug="mame-no-kai")
    member = Member.objects.get(club=club)
    assert (member.name, member.user.username) == ("アオキ 健太", "newcomer")
    actions = list(
        AuditLog.objects.filter(club=club).order_by("pk").values_list("action", flat=True)
    )
    assert actions[-2:] == ["member.create", "member.link"]


def test_a_taken_short_name_is_refused_whatever_its_case(user_client, club):
    before = stored()
    for slug in ("mame", "MAME", "ｍａｍｅ"):
        response = user_client.post(reverse("accounts:club_new"), club_data(slug=slug))
        assert "他のクラブが使っています" in " ".join(errors_of(response)["slug"]), slug
    assert stored() == before


def test_full_width_name_and_short_name_are_made_half_width(user_client):
    response = user_client.post(
        reverse("accounts:club_new"),
        club_data(name="　ＭＡＭＥ　の会　", slug="ＭＡＭＥ－ｎｏ－ｋａｉ"),
    )
    assert response.status_code == 302
    club = Club.objects.get()
    assert (club.name, club.slug) == ("MAME の会", "mame-no-kai")


def test_without_a_short_name_one_is_suggested_and_nothing_is_stored_yet(user_client):
    response = user_client.post(reverse("accounts:club_new"), club_data(slug=""))
    assert response.status_code == 200
    suggested = response.context["form"]["slug"].value()
    assert suggested.startswith("club-") and services.slug_problem(suggested) is None
    assert Club.objects.count() == 0
    assert (
        user_client.post(reverse("accounts:club_new"), club_data(slug=suggested)).status_code == 302
    )
    assert Club.objects.get().slug == suggested


def test_a_club_can_start_with_the_rules_of_another_club_of_the_user(organiser, club):
    client = Client()
    client.force_login(organiser)
    new_rules = {**scoring.PRESETS["mame-no-kai"].rules.to_json(), "session_shugi": 1000}
    RulesVersion.objects.create(
        club=club, effective_from=datetime.date(2024, 1, 1), rules_json=new_rules
    )
    page = client.get(reverse("accounts:club_new")).content.decode()
    assert 'value="club:mame"' in page and "マメの会 と同じ" in page
    response = client.post(
        reverse("accounts:club_new"), club_data(slug="mame-2", rules_from="club:mame")
    )
    assert response.status_code == 302
    version = RulesVersion.objects.get(club__slug="mame-2")
    assert version.rules_json == scoring.rules_from_json(new_rules).to_json()
    # Two clubs now, with different roles each possible.
    assert Membership.objects.filter(user=organiser).count() == 2


def test_the_rules_of_a_club_the_user_is_not_in_cannot_be_copied(user_client, other_club):
    response = user_client.post(reverse("accounts:club_new"), club_data(rules_from="club:kinyokai"))
    assert "rules_from" in errors_of(response)
    assert Club.objects.filter(slug="mame-no-kai").count() == 0


def test_club_creation_needs_a_login(client, db):
    response = client.get(reverse("accounts:club_new"))
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))
    assert client.post(reverse("accounts:club_new"), club_data()).status_code == 302
    assert Club.objects.count() == 0


def test_the_first_season_step_refuses_bad_dates_in_japanese(organiser_client, club):
    before = Season.objects.count()
    response = organiser_client.post(
        reverse("accounts:club_first_season", args=[club.slug]),
        {"name": "2026", "start": "2026/12/31", "end": "2026/01/01", "min_games": "0"},
    )
    assert response.status_code == 200
    assert "end" in errors_of(response)
    assert Season.objects.count() == before


# --- the helpers: short names and the worked example -----------------------------------------


def test_slug_suggestions(db):
    assert services.slug_suggest("Mame no Kai") == "mame-no-kai"
    assert services.slug_suggest("Ｍａｍｅ ｎｏ Ｋａｉ") == "mame-no-kai"
    japanese = services.slug_suggest("マメの会")
    assert japanese.startswith("club-") and len(japanese) == 11
    make_club("mame-no-kai")
    taken = services.slug_suggest("Mame no Kai")
    assert taken.startswith("mame-no-kai-") and services.slug_problem(taken) is None
    assert services.slug_suggest("admin").startswith("admin-")


def test_the_slug_check_endpoint(user_client, club):
    def check(**params):
        return json.loads(user_client.get(reverse("accounts:slug_check"), params).content)

    assert check(slug="Good-Name") == {"slug": "good-name", "error": ""}
    assert "他のクラブ" in check(slug="mame")["error"]
    assert "予約" in check(slug="api")["error"]
    suggested = check(name="マメの会", slug="")
    assert suggested["slug"].startswith("club-") and suggested["error"] == ""


def test_the_new_club_example_settles_a_game_under_the_chosen_preset(user_client):
    for name, preset in scoring.PRESETS.items():
        data = json.loads(
            user_client.post(
                reverse("accounts:club_new_example"), {"rules_from": f"preset:{name}"}
            ).content
        )
        assert "errors" not in data, (name, data)
        assert len(data["players"]) == preset.rules.players
        assert sum(int(p["rank"]) for p in data["players"]) == sum(
            range(1, preset.rules.players + 1)
        )
    data = json.loads(
        user_client.post(reverse("accounts:club_new_example"), {"rules_from": "x"}).content
    )
    assert data["errors"]


def test_the_new_club_page_offers_every_preset_by_its_japanese_name(user_client):
    html = user_client.get(reverse("accounts:club_new")).content.decode()
    for name in scoring.PRESETS:
        assert f'value="preset:{name}"' in html
    assert "マメの会" in html and "data-example-result" in html
    assert 'data-example-url="' + reverse("accounts:club_new_example") in html


def test_a_logged_in_user_with_clubs_sees_a_new_club_action(db):
    user = make_user("two-clubs")
    for slug in ("a-club", "b-club"):
        Membership.objects.create(user=user, club=make_club(slug), role=Membership.MEMBER)
    client = Client()
    client.force_login(user)
    assert reverse("accounts:club_new") in client.get(reverse("site:home")).content.decode()


def test_password_fixture_is_strong_enough(db):
    """The fixtures' password passes the validators, so tests that log in with it are real."""
    services.signup(username="fixture-check", password=PASSWORD)


# --- the pages outside the clubs: policy and language ----------------------------------------


def account_pages() -> list[str]:
    return [
        reverse("accounts:account"),
        reverse("accounts:club_new"),
        reverse("accounts:password_change"),
        reverse("accounts:password_change_done"),
        reverse("accounts:password_reset"),
        reverse("accounts:password_reset_done"),
        reverse("accounts:password_reset_complete"),
    ]


def test_the_account_pages_keep_to_the_policy(organiser_client, client, club):
    from tests.support.security import inline_code

    html = client.get(reverse("accounts:signup")).content.decode()
    assert "<form" in html and inline_code(html) == []
    for address in account_pages():
        response = organiser_client.get(address)
        assert response.status_code == 200, address
        assert "Content-Security-Policy" in response.headers, address
        assert inline_code(response.content.decode()) == [], address


def test_the_account_pages_are_in_english_with_the_language_cookie(organiser_client, club):
    organiser_client.cookies["django_language"] = "en"
    assert "Start a club" in organiser_client.get(reverse("accounts:club_new")).content.decode()
    assert "Your account" in organiser_client.get(reverse("accounts:account")).content.decode()
    html = organiser_client.get(reverse("accounts:memberships", args=[club.slug])).content.decode()
    assert "Who can log in" in html


# --- joining by invitation through sign-up ---------------------------------------------------


def invitation_link(club, organiser, **kwargs) -> str:
    from league.accounts import invitations

    _invitation, secret = invitations.invitation_create(club=club, user=organiser, **kwargs)
    return reverse("accounts:invitation_join", args=[secret])


def test_an_invitation_sends_a_new_person_through_sign_up_and_back(client, club, organiser):
    link = invitation_link(club, organiser)
    page = client.get(link).content.decode()
    signup_link = reverse("accounts:signup") + "?next=" + link.replace("/", "%2F")
    assert signup_link in page
    response = client.post(
        reverse("accounts:signup") + f"?next={link}", signup_data(username="kawano")
    )
    assert response.status_code == 302 and response.url == link
    response = client.post(link, {"who": "new", "name": "河野"})
    assert response.status_code == 302
    user = User.objects.get(username="kawano")
    assert Membership.objects.get(club=club, user=user).role == Membership.MEMBER
    assert club.members.get(user=user).name == "河野"


def test_with_sign_up_off_only_a_valid_invitation_opens_it(client, club, organiser, settings):
    from league.accounts import invitations

    settings.SIGNUP = False
    link = invitation_link(club, organiser)
    address = reverse("accounts:signup") + f"?next={link}"
    assert client.get(address).status_code == 200
    for closed in ("/join/nonsense/", reverse("accounts:account"), "https://evil.example/join/x/"):
        assert client.get(reverse("accounts:signup") + f"?next={closed}").status_code == 404, closed
    invitation = invitations.Invitation.objects.get()
    invitations.invitation_revoke(invitation=invitation, user=organiser)
    assert client.post(address, signup_data()).status_code == 404
    assert User.objects.filter(username="yamada").count() == 0
    fresh = invitation_link(club, organiser)
    response = client.post(reverse("accounts:signup") + f"?next={fresh}", signup_data())
    assert response.status_code == 302 and response.url == fresh


def test_with_sign_up_off_one_link_makes_no_more_accounts_than_its_uses(club, organiser, settings):
    """A private installation: a one-use link cannot be used to make account after account."""
    settings.SIGNUP = False
    link = invitation_link(club, organiser)
    address = reverse("accounts:signup") + f"?next={link}"
    first = Client(REMOTE_ADDR="198.51.100.20").post(address, signup_data(username="first"))
    assert first.status_code == 302 and first.url == link
    again = Client(REMOTE_ADDR="198.51.100.21").post(address, signup_data(username="second"))
    assert again.status_code == 200
    assert "これ以上アカウントを作れません" in again.content.decode()
    assert not User.objects.filter(username="second").exists()
    assert AuditLog.objects.filter(action="invitation.signup").count() == 1


def test_with_sign_up_off_only_organisers_and_administrators_start_clubs(
    club, organiser, member_user, settings
):
    settings.SIGNUP = False
    member = Client()
    member.force_login(member_user)
    response = member.get(reverse("accounts:club_new"))
    assert response.status_code == 404
    assert member.post(reverse("accounts:club_new"), club_data(slug="mine")).status_code == 404
    assert not Club.objects.filter(slug="mine").exists()
    boss = Client()
    boss.force_login(organiser)
    assert boss.get(reverse("accounts:club_new")).status_code == 200
    settings.SIGNUP = True
    assert member.get(reverse("accounts:club_new")).status_code == 200
