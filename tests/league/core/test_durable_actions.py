"""Every top-level write is an action (league.core.actions): a durable transaction that nothing
can wrap by accident. Called inside another transaction, each refuses to run (RuntimeError) and
writes nothing; the parts other actions use inside their own transaction (member_create, the
`..._in` functions) still run there."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from league.accounts import invitations
from league.accounts import services as accounts
from league.club import services as club_services
from league.excel import imports
from league.excel import services as excel_services
from league.models import AuditLog, Member, Membership, Season
from league.public import services as public
from tests.support.clubs import make_user
from tests.support.imports import STANDARD, game, plan_of, simple
from tests.support.online import record

DATE = datetime.date(2026, 5, 9)


@pytest.fixture
def season(club, organiser) -> Season:
    return club_services.season_create(
        club=club, user=organiser, name="2026年", start=DATE, end=datetime.date(2026, 12, 31)
    )


@pytest.fixture
def closed_season(season, organiser) -> Season:
    return club_services.season_close(season=season, user=organiser)


@pytest.fixture
def link(club, organiser) -> tuple[invitations.Invitation, str]:
    return invitations.invitation_create(club=club, user=organiser, role=Membership.ORGANISER)


@pytest.fixture
def newcomer(db):
    return make_user("newcomer")


@pytest.fixture
def mailed(settings, club, organiser) -> invitations.Invitation:
    """An invitation whose mail waits for the worker."""
    settings.PASSWORD_RESET_BY_MAIL = True
    invitation, _secret = invitations.invitation_create(
        club=club, user=organiser, email="newcomer@example.jp"
    )
    return invitation


@pytest.fixture
def mail_failed(mailed) -> invitations.Invitation:
    invitations._mail_failed(mailed.pk, "the mail server is away")
    return mailed


@pytest.fixture
def membership(club, member_user) -> Membership:
    return Membership.objects.get(club=club, user=member_user)


@pytest.fixture
def share_on(club, organiser):
    return public.share_enable(club=club, user=organiser)


@pytest.fixture
def plan(club, members) -> imports.Plan:
    return plan_of(club, simple(game(*STANDARD)))


@pytest.fixture
def upload(club, organiser):
    return excel_services.upload_keep(
        club=club, user=organiser, filename="a.xlsx", parsed=b"", games=0
    )


# Each: the fixtures it needs, and the call with them (valid input: only the nesting is wrong).
Call = Callable[[dict[str, Any]], Any]
ACTIONS: dict[str, tuple[tuple[str, ...], Call]] = {
    "member_edit": (
        ("members", "organiser"),
        lambda f: club_services.member_edit(
            member=f["members"][0], user=f["organiser"], name="青木 大", kana="あおき だい"
        ),
    ),
    "member_merge": (
        ("members", "organiser"),
        lambda f: club_services.member_merge(
            keep=f["members"][0], gone=f["members"][1], user=f["organiser"]
        ),
    ),
    "members_create": (
        ("club", "organiser"),
        lambda f: club_services.members_create(
            club=f["club"], user=f["organiser"], people={0: ("新井", "あらい", False)}
        ),
    ),
    "member_set_active": (
        ("members", "organiser"),
        lambda f: club_services.member_set_active(
            member=f["members"][0], user=f["organiser"], active=False
        ),
    ),
    "season_create": (
        ("club", "organiser"),
        lambda f: club_services.season_create(
            club=f["club"], user=f["organiser"], name="秋", start=DATE, end=DATE
        ),
    ),
    "season_edit": (
        ("season", "organiser"),
        lambda f: club_services.season_edit(
            season=f["season"], user=f["organiser"], name="秋", start=DATE, end=DATE
        ),
    ),
    "season_close": (
        ("season", "organiser"),
        lambda f: club_services.season_close(season=f["season"], user=f["organiser"]),
    ),
    "season_reopen": (
        ("closed_season", "organiser"),
        lambda f: club_services.season_reopen(season=f["closed_season"], user=f["organiser"]),
    ),
    "club_rename": (
        ("club", "organiser"),
        lambda f: club_services.club_rename(club=f["club"], user=f["organiser"], name="豆の会"),
    ),
    "club_set_rating_min_games": (
        ("club", "organiser"),
        lambda f: club_services.club_set_rating_min_games(
            club=f["club"], user=f["organiser"], games=7
        ),
    ),
    "invitation_create": (
        ("club", "organiser"),
        lambda f: invitations.invitation_create(club=f["club"], user=f["organiser"]),
    ),
    "invitation_revoke": (
        ("link", "organiser"),
        lambda f: invitations.invitation_revoke(invitation=f["link"][0], user=f["organiser"]),
    ),
    "invitation_use": (
        ("link", "newcomer"),
        lambda f: invitations.invitation_use(secret=f["link"][1], user=f["newcomer"]),
    ),
    "invitation_mail_again": (
        ("mail_failed", "organiser"),
        lambda f: invitations.invitation_mail_again(
            invitation=f["mail_failed"], user=f["organiser"]
        ),
    ),
    "invitation_mail_send": (
        ("mailed",),
        lambda f: invitations.invitation_mail_send(
            invitation_id=f["mailed"].pk, base_url="http://testserver/"
        ),
    ),
    "invitation mail failed": (
        ("mailed",),
        lambda f: invitations._mail_failed(f["mailed"].pk, "the mail server is away"),
    ),
    "signup": (
        ("db",),
        lambda f: accounts.signup(username="newcomer", password="tsumo-pinfu-2026"),
    ),
    "email_change": (
        ("organiser",),
        lambda f: accounts.email_change(user=f["organiser"], email="o@example.jp"),
    ),
    "club_create": (
        ("organiser",),
        lambda f: accounts.club_create(
            user=f["organiser"],
            name="豆の会",
            slug="mame2",
            rules_from="preset:mame-no-kai",
            player_name="幹事",
        ),
    ),
    "membership_add": (
        ("club", "newcomer", "organiser"),
        lambda f: accounts.membership_add(
            club=f["club"], user=f["newcomer"], role=Membership.MEMBER, actor=f["organiser"]
        ),
    ),
    "membership_set_role": (
        ("membership", "organiser"),
        lambda f: accounts.membership_set_role(
            membership=f["membership"], role=Membership.ORGANISER, actor=f["organiser"]
        ),
    ),
    "membership_remove": (
        ("membership", "organiser"),
        lambda f: accounts.membership_remove(membership=f["membership"], actor=f["organiser"]),
    ),
    "share_enable": (
        ("club", "organiser"),
        lambda f: public.share_enable(club=f["club"], user=f["organiser"]),
    ),
    "share_rotate": (
        ("club", "organiser"),
        lambda f: public.share_rotate(club=f["club"], user=f["organiser"]),
    ),
    "share_disable": (
        ("share_on", "organiser"),
        lambda f: public.share_disable(club=f["share_on"], user=f["organiser"]),
    ),
    "share_set_money": (
        ("club", "organiser"),
        lambda f: public.share_set_money(club=f["club"], user=f["organiser"], money=True),
    ),
    "upload_claim": (
        ("upload",),
        lambda f: excel_services.upload_claim(upload=f["upload"]),
    ),
    "upload_release": (
        ("upload",),
        lambda f: excel_services.upload_release(upload=f["upload"]),
    ),
    "plan_apply": (
        ("plan", "organiser"),
        lambda f: imports.plan_apply(plan=f["plan"], user=f["organiser"]),
    ),
    "import_stored": (
        ("club", "members", "organiser"),
        lambda f: imports.import_stored(
            club=f["club"],
            settled=imports.settled_of(
                club=f["club"],
                parsed=imports.workbook_read(simple(game(*STANDARD)), players=4),
            ),
            user=f["organiser"],
            mapping={},
            kana={},
            duplicates=False,
        ),
    ),
    "online_game_record": (
        ("club", "members", "organiser"),
        lambda f: record(f["club"], f["organiser"], f["members"][:4]),
    ),
}


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_an_action_refuses_to_run_inside_another_transaction(request, name):
    needs, call = ACTIONS[name]
    fixtures = {n: request.getfixturevalue(n) for n in needs}
    logged = AuditLog.objects.count()
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        call(fixtures)
    assert AuditLog.objects.count() == logged  # nothing written
    call(fixtures)  # on its own, it runs


def test_the_inner_parts_run_inside_the_callers_transaction(club, members, organiser):
    with transaction.atomic():
        made = club_services.member_create(club=club, user=organiser, name="新井")
        club_services.member_set_active_in(member=made, user=organiser, active=False)
        season = club_services.season_create_in(
            club=club, user=organiser, name="秋", start=DATE, end=DATE
        )
    assert not Member.objects.get(pk=made.pk).is_active
    assert Season.objects.filter(pk=season.pk).exists()


def test_an_action_made_of_a_shared_part_is_durable_and_keeps_its_name(club, organiser):
    """league.core.actions.as_action: game_record is game_record_in in its own durable block."""
    from league.core.actions import as_action
    from league.money import services as money
    from league.recording import services as recording
    from league.rules import services as rules

    for made, part in [
        (recording.game_record, recording.game_record_in),
        (recording.game_edit, recording.game_edit_in),
        (recording.game_void, recording.game_void_in),
        (money.day_close, money.day_close_in),
        (money.day_attendees_add, money.day_attendees_add_in),
        (rules.rules_version_create, rules.rules_version_create_in),
    ]:
        assert made.__name__ == part.__name__.removesuffix("_in") and made.__wrapped__ is part
    with pytest.raises(RuntimeError), transaction.atomic():
        money.day_attendees_add(club=club, user=organiser, date=DATE, members=[])
    day = money.day_attendees_add(club=club, user=organiser, date=DATE, members=[])
    assert day.date == DATE
    with transaction.atomic():  # the part runs inside another transaction
        assert money.day_attendees_add_in(club=club, user=organiser, date=DATE, members=[]) == day
    assert as_action(len)("abc") == 3
