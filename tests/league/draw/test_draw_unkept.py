"""Late entries and withdrawals between rounds (issue 42 item 5): the draw keeps the balance as
far as it can, and the draw page says, in players' words, what it could not keep today (pairs
met twice, by name; a player outside the wind balance, and why when the day says: joined late,
left; a player back at a table number), and nothing when all is balanced."""

from __future__ import annotations

from itertools import combinations

from django.urls import reverse

from league.draw import algorithm
from league.draw import selectors as sel
from league.draw import services as draw
from league.models import Day, Member
from league.models.draw import Attendance, DrawRound, DrawTable
from tests.support.draw import DATE, people, record_table


def test_unkept_names_pairs_winds_and_table_returns():
    rounds = [
        algorithm.Round(((1, 2, 3, 4), (5, 6, 7, 8)), ()),
        algorithm.Round(((1, 2, 5, 6), (7, 8, 3, 4)), ()),
    ]
    found = algorithm.unkept(rounds)
    assert found.repeats == [((1, 2), [0, 1]), ((3, 4), [0, 1]), ((5, 6), [0, 1]), ((7, 8), [0, 1])]
    # 1 to 4 keep their seats (東, 南, 西, 北): 2 of one wind in 2 rounds is beyond 2/4 ± 1.
    assert [(p, counts) for p, counts, _n in found.winds] == [
        (1, [2, 0, 0, 0]),
        (2, [0, 2, 0, 0]),
        (3, [0, 0, 2, 0]),
        (4, [0, 0, 0, 2]),
    ]
    assert found.returns == [(1, 0, [0, 1]), (2, 0, [0, 1]), (7, 1, [0, 1]), (8, 1, [0, 1])]
    # Seats left to the table count for no wind.
    assert algorithm.unkept(rounds, seats_drawn=[True, False]).winds == []
    balanced = [
        algorithm.Round(((1, 2, 3, 4), (5, 6, 7, 8)), ()),
        algorithm.Round(((5, 6, 1, 2), (3, 4, 7, 8)), ()),
    ]
    assert algorithm.unkept(balanced[:1]) == algorithm.Unkept([], [], [])


def _view(number, tables, members, *, seats_drawn=True):
    rv = sel.RoundView(DrawRound(number=number, seats_drawn=seats_drawn))
    for position, ids in enumerate(tables):
        rv.tables.append(sel.TableView(DrawTable(position=position), [members[i] for i in ids]))
    return rv


def test_the_words_say_why_a_late_entry_or_a_leaver_is_off(db):
    """In memory: P9 joined in round 2 and sits 東 twice; P1 left after round 2 and is back at
    table A; three rounds at one table of four are 'only 1 table'."""
    members = {i: Member(pk=i, name=f"P{i}") for i in range(1, 10)}
    rounds = [
        _view(1, [(1, 2, 3, 4)], members),
        _view(2, [(9, 1, 5, 6)], members),
        _view(3, [(9, 5, 6, 7)], members),
    ]
    attendance = [
        Attendance(member_id=9, from_round=2),
        Attendance(member_id=1, from_round=1, until_round=2),
    ]
    lines = sel.unkept(rounds, attendance)
    assert "P5とP6：今日2回同卓（第2回戦・第3回戦）" in lines
    assert any(
        line.startswith("P9：風の偏り（出場2回で東2・南0・西0・北0") and "第2回戦から参加" in line
        for line in lines
    )
    assert "P1：A卓に再び着席（第1回戦・第2回戦） — 第2回戦の後に退出、卓が1卓のみ" in lines
    assert sel.unkept(rounds[:1], attendance) == []


def _unkept(html: str) -> str:
    return html.split("data-draw-unkept")[1].split("</section>")[0]


def test_a_late_entry_and_a_withdrawal_before_round_three(organiser_client, club, organiser):
    """Eight players over two rounds at two tables, then four more check in before round 3 and
    one leaves. Two tables of four cannot split eight twice without pairs meeting again, and a
    third round at two tables sends the ones who played all three back to a table: the page
    names them; the pair it names are those the rounds stored seat together twice."""
    eight = people(club, 8)
    for m in eight:
        draw.attendance_check_in(club=club, user=organiser, date=DATE, member=m)
    day = Day.objects.get(club=club, date=DATE)
    page = reverse("draw:draw_day", args=[club.slug, DATE])
    draw.round_draw(club=club, user=organiser, date=DATE)
    assert "data-draw-unkept" not in organiser_client.get(page).content.decode()
    for tv in sel.current_rounds(day)[-1].tables:
        record_table(organiser_client, club, tv)
    draw.round_draw(club=club, user=organiser, date=DATE)
    # The leaver, at table A in round 1, is swapped back to table A for round 2.
    first, second = sel.current_rounds(day)
    leaver = first.tables[0].players[0]
    if leaver not in second.tables[0].players:
        draw.seat_swap(
            club=club, user=organiser, day=day, first=leaver, second=second.tables[0].players[0]
        )
    for tv in sel.current_rounds(day)[-1].tables:
        record_table(organiser_client, club, tv)
    late = [Member.objects.create(club=club, name=f"遅刻{i}", kana=f"ちこく{i}") for i in range(4)]
    for m in late:
        draw.attendance_check_in(club=club, user=organiser, date=DATE, member=m)
    draw.attendance_leave(club=club, user=organiser, day=day, member=leaver)
    draw.round_draw(club=club, user=organiser, date=DATE)
    rounds = sel.current_rounds(day)
    assert [rv.round.number for rv in rounds] == [1, 2, 3]
    third = {m.pk for tv in rounds[2].tables for m in tv.players}
    assert {m.pk for m in late} <= third and leaver.pk not in third

    html = _unkept(organiser_client.get(page).content.decode())
    assert "今日の組み合わせで守れなかったこと" in html
    # Every pair the stored rounds seat together twice is named, with its rounds.
    met: dict[tuple[str, str], list[int]] = {}
    for rv in rounds:
        for tv in rv.tables:
            for a, b in combinations(sorted(tv.players, key=lambda m: m.pk), 2):
                met.setdefault((a.name, b.name), []).append(rv.round.number)
    twice = {k: v for k, v in met.items() if len(v) > 1}
    assert twice  # eight at two tables twice: unavoidable
    for (a, b), at in twice.items():
        words = "・".join(f"第{n}回戦" for n in at)
        assert f"{a}と{b}：今日{len(at)}回同卓（{words}）" in html
    assert html.count("回同卓") == len(twice)
    # The leaver is back at table A, and the page says they left after round 2.
    assert f"{leaver.name}：A卓に再び着席（第1回戦・第2回戦） — 第2回戦の後に退出" in html
    # Whoever played all three rounds at two tables is back at one: "only 2 tables".
    for m in eight:
        if all(m.pk in {p.pk for tv in rv.tables for p in tv.players} for rv in rounds):
            assert f"{m.name}：" in html and "卓が2卓のみ" in html
    for m in late:  # one round each: nothing to keep
        assert m.name not in html
    # The schedule page says the same under how the draw came out.
    schedule = organiser_client.get(reverse("draw:draw_schedule", args=[club.slug, DATE]))
    assert f"{leaver.name}：A卓に再び着席" in schedule.content.decode()


def test_nothing_is_said_when_all_is_balanced(organiser_client, club, organiser):
    """Twenty players over two rounds at five tables: no pair again, nobody back at a table
    number (each table of round 2 takes one player from four of round 1's five, and is given
    the number of the one it lacks), winds spread: the draw page has no such card. (Sixteen at
    four tables could not: each table of round 2 then takes one from every table of round 1.)"""
    for m in people(club, 20):
        draw.attendance_check_in(club=club, user=organiser, date=DATE, member=m)
    day = Day.objects.get(club=club, date=DATE)
    draw.round_draw(club=club, user=organiser, date=DATE)
    for tv in sel.current_rounds(day)[-1].tables:
        record_table(organiser_client, club, tv)
    draw.round_draw(club=club, user=organiser, date=DATE)
    assert len(sel.current_rounds(day)) == 2
    html = organiser_client.get(reverse("draw:draw_day", args=[club.slug, DATE])).content.decode()
    assert "data-draw-unkept" not in html
