"""A merge (league.club.services.member_merge) moves what the kept hand statistics and the team
rosters say of the merged record: its HandStat rows go to the survivor, whose kept HandStatTotal
then equals a rebuild from scratch (the merged record keeps none, as its other kept totals); its
team places go to the survivor (a place on the team both held: one stays, the captain's; places on
two teams of one season: refused, nothing merged). Audited with the rest of the merge.

Runs on SQLite and on PostgreSQL (DATABASE_URL=postgres://…/janchou_<branch> … --create-db)."""

from __future__ import annotations

import datetime
import uuid

import pytest

from league.club import services as club_services
from league.core import changes
from league.core.errors import ServiceError
from league.models import AuditLog, HandStat, HandStatTotal, Member, TeamMember
from league.table import services as table
from league.teams import services as teams
from tests.support.hand_totals import kept, summed
from tests.support.seasons import make_season
from tests.support.table import DATE, game_hands, record_all


def _table_game(club, user, players):
    tg = table.table_start(
        club=club, user=user, key=uuid.uuid4(), date=DATE, members=players, rate="0.3"
    )
    record_all(tg, user, game_hands(players))
    return table.table_game_save(tg=tg, user=user)


def _kept_rows(member):
    return list(HandStatTotal.objects.filter(member=member).values())


def test_a_merge_moves_the_hand_statistics_and_the_total_equals_a_rebuild(club, members, organiser):
    a, b, c, d, guest = members  # 江藤 stands for a guest record of 青木
    _table_game(club, organiser, [a, b, c, d])
    _table_game(club, organiser, [b, guest, d, c])  # the guest in another seat
    gone_rows = sorted(HandStat.objects.filter(member=guest).values_list("pk", flat=True))
    assert gone_rows and _kept_rows(guest)
    preview = club_services.merge_preview(keep=a, gone=guest)
    assert preview.hand_stats == len(gone_rows) == 1

    club_services.member_merge(keep=a, gone=guest, user=organiser, key=preview.key)

    assert not HandStat.objects.filter(member=guest).exists()
    assert HandStat.objects.filter(member=a, counted=True).count() == 2
    merged = _kept_rows(a)
    assert merged[0]["games"] == 2
    assert kept([a]) == summed([a])
    assert _kept_rows(guest) == []  # as its standings totals: rebuilt from nothing
    HandStatTotal.objects.all().delete()
    changes.club_rebuild(club.pk)
    assert _kept_rows(a) == merged
    assert _kept_rows(guest) == []
    entry = AuditLog.objects.get(action="member.merge")
    assert entry.after["moved"]["hand_stats"] == gone_rows


@pytest.fixture
def season(club):
    return make_season(
        club=club, name="2026秋", start=datetime.date(2026, 10, 1), end=datetime.date(2026, 12, 31)
    )


def _team(season, user, name, roster, captains=()):
    data = teams.TeamInput(
        name=name, short_name=name[:2], colour="#c53030", members=roster, captains=list(captains)
    )
    return teams.team_create(season=season, user=user, data=data)


def _places(team):
    return sorted(
        (p.member_id, p.is_captain)
        for p in TeamMember.objects.filter(team=team, removed_at__isnull=True)
    )


def test_a_merge_of_a_rostered_guest_moves_the_place(club, members, organiser, season):
    a, b, c, d, guest = members
    red = _team(season, organiser, "赤組", [b, guest], captains=[guest])
    blue = _team(season, organiser, "青組", [c, d])
    place = TeamMember.objects.get(member=guest)
    preview = club_services.merge_preview(keep=a, gone=guest)
    assert preview.team_places == 1

    club_services.member_merge(keep=a, gone=guest, user=organiser, key=preview.key)

    assert _places(red) == [(a.pk, True), (b.pk, False)]  # the captain's mark goes with it
    assert _places(blue) == [(c.pk, False), (d.pk, False)]
    assert not TeamMember.objects.filter(member=guest).exists()
    entry = AuditLog.objects.get(action="member.merge")
    assert entry.after["moved"]["team_places"] == [place.pk]
    assert entry.before["team_places_ended"] == []


@pytest.mark.parametrize("captain", ["keep", "gone", "none"])
def test_a_place_both_records_held_on_one_team_is_kept_once(
    club, members, organiser, season, captain
):
    a, b, _c, _d, guest = members
    captains = {"keep": [a], "gone": [guest], "none": []}[captain]
    red = _team(season, organiser, "赤組", [a, b, guest], captains=captains)
    ended = TeamMember.objects.get(member=a if captain == "gone" else guest)

    club_services.member_merge(keep=a, gone=guest, user=organiser)

    assert _places(red) == [(a.pk, captain != "none"), (b.pk, False)]
    ended.refresh_from_db()
    assert ended.removed_at is not None and ended.member_id == a.pk  # ended, not deleted
    entry = AuditLog.objects.get(action="member.merge")
    assert entry.before["team_places_ended"] == [ended.pk]


def test_places_on_two_teams_of_one_season_are_refused(club, members, organiser, season):
    a, b, _c, _d, guest = members
    _team(season, organiser, "赤組", [a])
    _team(season, organiser, "青組", [b, guest])
    with pytest.raises(ServiceError) as e:
        club_services.merge_preview(keep=a, gone=guest)
    assert "2026秋" in e.value.errors["other"][0]
    with pytest.raises(ServiceError) as e:
        club_services.member_merge(keep=a, gone=guest, user=organiser)
    assert "2026秋" in e.value.errors["other"][0]
    assert Member.objects.get(pk=guest.pk).merged_into_id is None
    assert TeamMember.objects.filter(member=guest, removed_at__isnull=True).count() == 1
    assert not AuditLog.objects.filter(action="member.merge").exists()


def _match(season, organiser, teams_):
    """One team match table of the season's teams (four teams at tables of four)."""
    (match,) = teams.match_day_schedule(
        season=season, user=organiser, date=datetime.date(2026, 10, 10), games=1
    )
    return {s.team_id: s for s in match.slots.all()}


def test_a_merge_moves_the_named_team_match_seat(club, members, organiser, season):
    a, b, c, d, guest = members
    ones = [_team(season, organiser, f"組{i}", [m]) for i, m in enumerate([guest, b, c, d])]
    slots = _match(season, organiser, ones)
    slot = teams.slot_name(slot=slots[ones[0].pk], user=organiser, member=guest, organiser=True)

    club_services.member_merge(keep=a, gone=guest, user=organiser)

    slot.refresh_from_db()
    assert slot.member_id == a.pk
    entry = AuditLog.objects.get(action="member.merge")
    assert entry.after["moved"]["team_slots"] == [slot.pk]


def test_two_records_named_at_one_team_match_table_are_refused(club, members, organiser, season):
    a, b, c, d, guest = members
    ones = [_team(season, organiser, f"組{i}", [m]) for i, m in enumerate([guest, b, c, d])]
    slots = _match(season, organiser, ones)
    teams.slot_name(slot=slots[ones[0].pk], user=organiser, member=guest, organiser=True)
    teams.slot_name(slot=slots[ones[1].pk], user=organiser, member=a, organiser=True)  # a sub
    with pytest.raises(ServiceError) as e:
        club_services.member_merge(keep=a, gone=guest, user=organiser)
    assert "江藤" in e.value.errors["other"][0]
    assert Member.objects.get(pk=guest.pk).merged_into_id is None


def _stage_entry(season, stage_number, member, place):
    from league.models import Stage, StageEntry

    stage, _ = Stage.objects.get_or_create(
        club=season.club,
        season=season,
        number=stage_number,
        defaults={"name": f"第{stage_number}", "first_day": season.start, "last_day": season.end},
    )
    return StageEntry.objects.create(
        stage=stage, member=member, place=place, total_before=0, carried=0
    )


def test_a_merge_moves_a_stage_entry_and_refuses_two_in_one_stage(club, members, organiser, season):
    from league.models import StageEntry

    a, b, _c, _d, guest = members
    _stage_entry(season, 2, guest, 1)
    _stage_entry(season, 2, b, 2)
    _stage_entry(season, 3, guest, 1)
    entry = _stage_entry(season, 3, a, 2)
    with pytest.raises(ServiceError) as e:  # both went through to stage 3
        club_services.member_merge(keep=a, gone=guest, user=organiser)
    assert "江藤" in e.value.errors["other"][0]

    club_services.member_merge(keep=b, gone=a, user=organiser)  # 青木 only in stage 3

    entry.refresh_from_db()
    assert entry.member_id == b.pk
    stages = StageEntry.objects.filter(member=b).values_list("stage__number", flat=True)
    assert sorted(stages) == [2, 3]
    audit = AuditLog.objects.get(action="member.merge")
    assert audit.after["moved"]["stage_entries"] == [entry.pk]
