"""The day's ledger page and settling up on it: the two days of tests/data/cases/ledger.json entered
through the app, paying, borrowing, deferring, correcting, attendees and session shūgi."""

from __future__ import annotations

import datetime
import json
import re
from collections import Counter
from typing import Any

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

import scoring
from league import money
from league.models import AuditLog, Club, Day, DayShugi, LedgerEntry, Member, Membership
from league.money import services as money_services
from league.recording import services
from tests.support import paths
from tests.support.clubs import make_club, make_user

DATE = datetime.date(2026, 11, 21)
CASES = json.loads((paths.DATA / "cases" / "ledger.json").read_text("utf-8"))
MAME_CASE, KAGETSU_CASE = CASES


# --- helpers ---------------------------------------------------------------------------------


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def url(name: str, club: Club, *args: Any) -> str:
    return reverse(name, args=[club.slug, *args])


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def club_members(club: Club, names: list[str]) -> dict[str, Member]:
    return {n: Member.objects.get_or_create(club=club, name=n)[0] for n in names}


def game_input(
    game: dict[str, Any], members: dict[str, Member], rate: str, date: datetime.date = DATE
) -> services.GameInput:
    chombo = Counter(game.get("chombo", []))
    seats = [
        services.SeatInput(members[p["name"]], p["points"], chombo[p["name"]])
        for p in game["players"]
    ]
    chips = [
        services.ChipInput(
            c["kind"],
            members[c["winner"]],
            members[c["from"]] if c.get("from") else None,
            c.get("multiplier", 1),
        )
        for c in game.get("chips", [])
    ]
    return services.GameInput(
        date=date, seats=seats, deposits=game.get("deposits", 0), rate=rate, chips=chips
    )


def record_case_games(club: Club, user, case: dict[str, Any]) -> dict[str, Member]:
    """The case's games recorded through the service, as the recording page does."""
    day = case["input"]
    names = [p["name"] for g in day["games"] for p in g["players"]] + day.get("attendees", [])
    members = club_members(club, list(dict.fromkeys(names)))
    for game in day["games"]:
        data = game_input(game, members, day.get("rate", ""))
        services.game_record(club=club, user=user, data=data)
    return members


def ledger_of(client: Client, club: Club, date: datetime.date = DATE) -> money.DayLedger:
    response = client.get(url("money:day_ledger", club, date))
    assert response.status_code == 200
    return response.context["ledger"]


def day_totals(ledger: money.DayLedger) -> dict[str, tuple[int, str, int, int]]:
    return {
        ledger.members[int(p.name)].name: (p.games, scoring.format_score(p.score), p.chips, p.yen)
        for p in ledger.players
    }


def expected_totals(case: dict[str, Any]) -> dict[str, tuple[int, str, int, int]]:
    return {
        p["name"]: (p["games"], p["score"], p["chips"], p["yen"])
        for p in case["expected"]["players"]
    }


def named_transfers(ledger: money.DayLedger, club: Club) -> list[tuple[str, str, int]]:
    def name(party: str | None) -> str:
        return club.name if party is None else ledger.members[int(party)].name

    return [(name(t.payer), name(t.payee), t.yen) for t in ledger.transfers]


def assert_valid_transfers(ledger: money.DayLedger) -> None:
    """Each positive, they settle what is still outstanding exactly, at most parties − 1."""
    left = dict(ledger.outstanding)
    for t in ledger.transfers:
        assert t.yen > 0
        left[money.party(t.payer)] += t.yen
        left[money.party(t.payee)] -= t.yen
    assert not any(left.values())
    parties = [p for p, yen in ledger.outstanding.items() if yen]
    assert len(ledger.transfers) <= max(len(parties) - 1, 0)


def page_totals(html: str) -> tuple[dict[int, str], str]:
    """The day totals as the page shows them: member id → text, and the club's."""
    rows = re.findall(r'<tr data-member="(\d+)">.*?data-total>([^<]*)<', html, re.S)
    house = re.search(r"<tr data-house>.*?data-total>([^<]*)<", html, re.S)
    assert house is not None
    return {int(pk): total.strip() for pk, total in rows}, house.group(1).strip()


def settle(client: Client, club: Club, action: str, payer: Member, payee: Member | None, **more):
    data = {
        "action": action,
        "payer": payer.pk,
        "payee": "club" if payee is None else payee.pk,
        **more,
    }
    return client.post(url("money:transfer_settle", club, DATE), data)


@pytest.fixture
def mame_day(club, organiser) -> dict[str, Member]:
    return record_case_games(club, organiser, MAME_CASE)


@pytest.fixture
def kagetsu(db) -> Club:
    return make_club("kagetsu", "kagetsu-cup", "花月杯")


@pytest.fixture
def kagetsu_organiser(kagetsu):
    return make_user("kagetsu-organiser", kagetsu, Membership.ORGANISER)


@pytest.fixture
def kagetsu_day(kagetsu, kagetsu_organiser) -> dict[str, Member]:
    return record_case_games(kagetsu, kagetsu_organiser, KAGETSU_CASE)


# --- the two days of ledger.json -------------------------------------------------------------


def test_mame_day_shows_the_cases_totals_house_and_valid_transfers(
    organiser_client, club, mame_day
):
    response = english(organiser_client).get(url("money:day_ledger", club, DATE))
    assert response.status_code == 200
    ledger = response.context["ledger"]
    assert day_totals(ledger) == expected_totals(MAME_CASE)
    assert ledger.house == MAME_CASE["expected"]["house"]
    assert_valid_transfers(ledger)
    shown, house = page_totals(response.content.decode())
    expected = {p["name"]: p["yen"] for p in MAME_CASE["expected"]["players"]}
    assert shown == {mame_day[n].pk: f"{yen:,}" for n, yen in expected.items()}
    assert house == "30"
    # Both games were at 0.3: each game's own tier is named on the page.
    assert "rate 0.3: #1, #2" in response.content.decode()


def test_kagetsu_day_with_waiting_attendee_and_double_yakuman_shugi(kagetsu, kagetsu_organiser):
    members = record_case_games(kagetsu, kagetsu_organiser, KAGETSU_CASE)
    client = logged_in(kagetsu_organiser)
    fujii, baba = members["藤井"], members["馬場"]
    response = client.post(url("money:day_attendees", kagetsu, DATE), {"members": [fujii.pk]})
    assert response.status_code == 302
    assert response["Location"] == url("money:day_ledger", kagetsu, DATE)
    response = client.post(
        url("money:day_shugi", kagetsu, DATE), {"winner": baba.pk, "multiplier": 2}
    )
    assert response.status_code == 302

    ledger = ledger_of(client, kagetsu)
    assert day_totals(ledger) == expected_totals(KAGETSU_CASE)
    assert ledger.house == KAGETSU_CASE["expected"]["house"] == 1000
    assert_valid_transfers(ledger)
    page = client.get(url("money:day_ledger", kagetsu, DATE))
    assert [m.name for m in page.context["waiting"]] == ["藤井"]
    assert {a.action for a in AuditLog.objects.filter(club=kagetsu)} >= {
        "day.attendees",
        "ledger.shugi",
    }


def test_voiding_a_shugi_takes_it_out_of_the_day(kagetsu, kagetsu_organiser, kagetsu_day):
    client = logged_in(kagetsu_organiser)
    baba = kagetsu_day["馬場"]
    client.post(url("money:day_shugi", kagetsu, DATE), {"winner": baba.pk, "multiplier": 2})
    shugi = DayShugi.objects.get()
    response = client.post(url("money:day_shugi", kagetsu, DATE), {"shugi": shugi.pk})
    assert response.status_code == 302
    shugi.refresh_from_db()
    assert shugi.voided  # marked, never deleted
    totals = day_totals(ledger_of(client, kagetsu))
    assert totals["馬場"][3] == 0  # 2nd place: no fee, no shūgi
    assert AuditLog.objects.filter(action="ledger.shugi_void", target=f"shugi:{shugi.pk}").exists()
    again = client.post(url("money:day_shugi", kagetsu, DATE), {"shugi": shugi.pk})
    assert again.status_code == 302 and messages_of(again)  # already void: refused


def test_a_shugi_winner_must_have_been_there(kagetsu, kagetsu_organiser, kagetsu_day):
    stranger = Member.objects.create(club=kagetsu, name="欠席者")
    client = logged_in(kagetsu_organiser)
    client.post(url("money:day_shugi", kagetsu, DATE), {"winner": stranger.pk, "multiplier": 1})
    assert not DayShugi.objects.exists()
    client.post(
        url("money:day_shugi", kagetsu, DATE), {"winner": kagetsu_day["馬場"].pk, "multiplier": 7}
    )
    assert not DayShugi.objects.exists()


def test_shugi_is_404_when_the_rules_have_none(organiser_client, club, mame_day):
    data = {"winner": mame_day["青木"].pk, "multiplier": 1}
    assert organiser_client.post(url("money:day_shugi", club, DATE), data).status_code == 404
    page = organiser_client.get(url("money:day_ledger", club, DATE))
    assert 'name="multiplier"' not in page.content.decode()


# --- settling up -----------------------------------------------------------------------------


def test_pay_defer_borrow_then_correct(organiser_client, club, mame_day):
    m = mame_day
    client = english(organiser_client)
    start = named_transfers(ledger_of(client, club), club)
    assert start == [
        ("土井", "青木", 1860),
        ("千葉", "馬場", 1140),
        ("千葉", "江藤", 300),
        ("千葉", "青木", 180),
        ("千葉", "マメの会", 30),
    ]

    response = settle(client, club, "pay", m["土井"], m["青木"])
    assert response.status_code == 302
    assert messages_of(response) == ["Paid: 土井 → 青木 1,860 yen"]
    assert named_transfers(ledger_of(client, club), club) == start[1:]

    response = settle(client, club, "defer", m["千葉"], m["馬場"])
    deferral = LedgerEntry.objects.get(kind=LedgerEntry.DEFERRAL)
    assert (deferral.borrower, deferral.payee, deferral.amount) == (m["千葉"], m["馬場"], 1140)
    assert deferral.surcharge == 114  # マメの会 rule 4: +10%
    assert "1,254" in messages_of(response)[0]
    assert named_transfers(ledger_of(client, club), club) == start[2:]

    settle(client, club, "borrow", m["千葉"], m["江藤"], lender=m["青木"].pk)
    loan = LedgerEntry.objects.get(kind=LedgerEntry.LOAN)
    assert (loan.payer, loan.borrower, loan.payee) == (m["青木"], m["千葉"], m["江藤"])
    assert (loan.amount, loan.surcharge) == (300, 0)
    after = named_transfers(ledger_of(client, club), club)
    assert after == start[3:]

    # A second tap on the same "Paid": refused, nothing recorded.
    count = LedgerEntry.objects.count()
    response = settle(client, club, "pay", m["土井"], m["青木"])
    assert response.status_code == 302
    assert LedgerEntry.objects.count() == count
    assert any("no longer due" in text for text in messages_of(response))

    payment = LedgerEntry.objects.get(kind=LedgerEntry.PAYMENT)
    response = client.post(url("money:entry_reverse", club, payment.pk), {"note": "wrong player"})
    assert response.status_code == 302
    assert response["Location"] == url("money:day_ledger", club, DATE)
    reversal = LedgerEntry.objects.get(kind=LedgerEntry.REVERSAL)
    assert (reversal.reverses, reversal.note) == (payment, "wrong player")
    ledger = ledger_of(client, club)
    assert ("土井", "青木", 1860) in named_transfers(ledger, club)
    assert_valid_transfers(ledger)

    actions = set(AuditLog.objects.filter(club=club).values_list("action", flat=True))
    assert {"ledger.payment", "ledger.deferral", "ledger.loan", "ledger.reversal"} <= actions


def test_the_page_lists_entries_with_reversed_ones_struck_through(organiser_client, club, mame_day):
    settle(organiser_client, club, "pay", mame_day["土井"], mame_day["青木"])
    payment = LedgerEntry.objects.get()
    reverse_url = url("money:entry_reverse", club, payment.pk)
    html = organiser_client.get(url("money:day_ledger", club, DATE)).content.decode()
    assert f'data-entry="{payment.pk}"' in html and reverse_url in html
    organiser_client.post(reverse_url, {"note": "mistake"})
    html = organiser_client.get(url("money:day_ledger", club, DATE)).content.decode()
    assert re.search(rf'class="entry void" data-entry="{payment.pk}"', html)
    assert reverse_url not in html  # neither it nor its reversal can be corrected again
    assert "organiser" in html  # who recorded it


def test_settled_when_no_transfers_remain(organiser_client, club, mame_day):
    client = english(organiser_client)
    for _ in range(10):
        ledger = ledger_of(client, club)
        if not ledger.transfers:
            break
        t = ledger.transfers[0]
        client.post(
            url("money:transfer_settle", club, DATE),
            {"action": "pay", "payer": t.payer or "club", "payee": t.payee or "club"},
        )
    response = client.get(url("money:day_ledger", club, DATE))
    assert response.context["ledger"].settled
    assert "data-settled" in response.content.decode()
    assert "data-settle=" not in response.content.decode()


def test_a_part_typed_full_width_with_commas(organiser_client, club, mame_day):
    settle(organiser_client, club, "pay", mame_day["土井"], mame_day["青木"], amount="１，０００")
    assert LedgerEntry.objects.get().amount == 1000
    transfers = named_transfers(ledger_of(organiser_client, club), club)
    assert ("土井", "青木", 860) in transfers


def test_a_deferred_part_rounds_its_surcharge_up(organiser_client, club, mame_day):
    settle(organiser_client, club, "defer", mame_day["土井"], mame_day["青木"], amount="1,005")
    entry = LedgerEntry.objects.get()
    assert (entry.amount, entry.surcharge) == (1005, 101)  # 100.5 rounded up


@pytest.mark.parametrize(
    ("action", "more", "field_text"),
    [
        ("pay", {"amount": "2,000"}, "from 1 to 1,860"),
        ("pay", {"amount": "abc"}, "whole number"),
        ("borrow", {}, "lends"),
        ("borrow", {"lender": "土井"}, ""),
        ("fly", {}, ""),
    ],
)
def test_bad_settle_input_records_nothing(
    organiser_client, club, mame_day, action, more, field_text
):
    response = settle(
        english(organiser_client), club, action, mame_day["土井"], mame_day["青木"], **more
    )
    assert response.status_code == 302
    assert not LedgerEntry.objects.exists()
    texts = messages_of(response)
    assert texts and field_text in " ".join(texts)


def test_a_lender_cannot_be_the_payer_or_payee(organiser_client, club, mame_day):
    m = mame_day
    settle(organiser_client, club, "borrow", m["土井"], m["青木"], lender=m["青木"].pk)
    assert not LedgerEntry.objects.exists()


def test_the_club_cannot_defer_or_borrow(organiser_client, club, mame_day):
    data = {"action": "defer", "payer": "club", "payee": mame_day["青木"].pk}
    response = organiser_client.post(url("money:transfer_settle", club, DATE), data)
    assert response.status_code == 302 and not LedgerEntry.objects.exists()


def test_the_defer_button_shows_the_surcharge(organiser_client, club, mame_day):
    html = english(organiser_client).get(url("money:day_ledger", club, DATE)).content.decode()
    assert "+114 yen (10%)" in html  # 千葉 → 馬場 1,140
    assert "+186 yen (10%)" in html  # 土井 → 青木 1,860


def test_members_see_the_ledger_without_buttons(member_client, club, mame_day):
    html = member_client.get(url("money:day_ledger", club, DATE)).content.decode()
    assert "data-transfer" in html
    assert "data-settle=" not in html and "money:transfer_settle" not in html
    assert url("money:transfer_settle", club, DATE) not in html
    assert url("money:day_attendees", club, DATE) not in html


def test_entry_reverse_needs_a_reason(organiser_client, club, mame_day):
    settle(organiser_client, club, "pay", mame_day["土井"], mame_day["青木"])
    payment = LedgerEntry.objects.get()
    page = organiser_client.get(url("money:entry_reverse", club, payment.pk))
    assert page.status_code == 200 and page.context["entry"] == payment
    response = organiser_client.post(url("money:entry_reverse", club, payment.pk), {"note": "  "})
    assert response.status_code == 200
    assert response.context["form"].errors["note"]
    assert LedgerEntry.objects.count() == 1


def test_a_corrected_entry_cannot_be_corrected_again(organiser_client, club, mame_day):
    settle(organiser_client, club, "pay", mame_day["土井"], mame_day["青木"])
    payment = LedgerEntry.objects.get()
    organiser_client.post(url("money:entry_reverse", club, payment.pk), {"note": "x"})
    reversal = LedgerEntry.objects.get(kind=LedgerEntry.REVERSAL)
    for entry in (payment, reversal):
        response = organiser_client.post(url("money:entry_reverse", club, entry.pk), {"note": "y"})
        assert response.status_code == 302
        assert response["Location"] == url("money:day_ledger", club, DATE)
    assert LedgerEntry.objects.count() == 2


def test_a_repayment_correction_goes_back_to_the_debts(organiser_client, organiser, club, mame_day):
    settle(organiser_client, club, "defer", mame_day["土井"], mame_day["青木"])
    repayment = money.debt_repay(debt_entry=LedgerEntry.objects.get(), user=organiser)
    response = organiser_client.post(url("money:entry_reverse", club, repayment.pk), {"note": "no"})
    assert response.status_code == 302
    assert response["Location"] == url("money:debt_list", club)
    assert LedgerEntry.objects.filter(reverses=repayment).exists()


def test_a_pot_payout_correction_goes_back_to_the_pot(organiser_client, club, mame_day):
    payout = LedgerEntry.objects.create(club=club, kind=LedgerEntry.EXPENSE, amount=5000)
    response = organiser_client.post(url("money:entry_reverse", club, payout.pk), {"note": "venue"})
    assert response["Location"] == url("money:club_pot", club)
    assert LedgerEntry.objects.filter(reverses=payout).exists()


def test_another_clubs_entry_is_404(organiser_client, club, mame_day, other_club):
    entry = LedgerEntry.objects.create(club=other_club, kind=LedgerEntry.PAYMENT, amount=1)
    assert organiser_client.get(url("money:entry_reverse", club, entry.pk)).status_code == 404


def test_attendees_already_playing_or_present_are_not_offered(organiser_client, club, mame_day):
    fujii = Member.objects.create(club=club, name="藤井")
    response = organiser_client.get(url("money:day_ledger", club, DATE))
    assert [m.name for m in response.context["addable"]] == ["藤井"]
    organiser_client.post(url("money:day_attendees", club, DATE), {"members": [fujii.pk]})
    response = organiser_client.get(url("money:day_ledger", club, DATE))
    assert response.context["addable"] == []
    assert [m.name for m in response.context["waiting"]] == ["藤井"]


def test_attendees_from_another_club_are_refused(organiser_client, club, mame_day, other_club):
    outsider = Member.objects.create(club=other_club, name="部外者")
    organiser_client.post(url("money:day_attendees", club, DATE), {"members": [outsider.pk]})
    assert not Day.objects.get(club=club).attendees.exists()


# --- clubs without money, days that do not exist ---------------------------------------------


def test_a_club_without_money_has_no_ledger(db):
    kenko = make_club("kenko", "takabari-kenko", "高針健康麻雀")
    organiser = make_user("kenko-organiser", kenko, Membership.ORGANISER)
    members = club_members(kenko, ["青木", "馬場", "千葉", "土井"])
    seats = [
        services.SeatInput(members[n], p)
        for n, p in zip(members, (40000, 30000, 20000, 10000), strict=True)
    ]
    services.game_record(
        club=kenko, user=organiser, data=services.GameInput(date=DATE, seats=seats)
    )
    client = logged_in(organiser)
    assert client.get(url("money:day_ledger", kenko, DATE)).status_code == 404
    data = {"action": "pay", "payer": members["土井"].pk, "payee": members["青木"].pk}
    assert client.post(url("money:transfer_settle", kenko, DATE), data).status_code == 404
    data = {"members": [members["青木"].pk]}
    assert client.post(url("money:day_attendees", kenko, DATE), data).status_code == 404
    day_page = client.get(url("recording:day_detail", kenko, DATE)).content.decode()
    assert "data-ledger-link" not in day_page
    assert url("money:day_ledger", kenko, DATE) not in day_page


def test_the_day_page_links_to_the_ledger_when_there_is_money(member_client, club, mame_day):
    day_page = member_client.get(url("recording:day_detail", club, DATE)).content.decode()
    assert url("money:day_ledger", club, DATE) in day_page


def test_a_day_without_games_is_404(organiser_client, club, mame_day):
    other = DATE + datetime.timedelta(days=1)
    assert organiser_client.get(url("money:day_ledger", club, other)).status_code == 404
    data = {"action": "pay", "payer": mame_day["土井"].pk, "payee": mame_day["青木"].pk}
    assert organiser_client.post(url("money:transfer_settle", club, other), data).status_code == 404


def test_another_clubs_day_is_404(organiser_client, club, mame_day, other_club, stranger):
    game = {**MAME_CASE["input"]["games"][1], "chips": []}  # 金曜会 has no chips, no rates
    record_case_games(other_club, stranger, {"input": {"games": [game]}})
    assert Day.objects.filter(club=other_club, date=DATE).exists()
    # Logged in to マメの会, asking for 金曜会's day by its own slug: 404, it is not theirs.
    assert organiser_client.get(url("money:day_ledger", other_club, DATE)).status_code == 404


# --- who may do what -------------------------------------------------------------------------


@pytest.fixture
def matrix(kagetsu, kagetsu_organiser, kagetsu_day) -> dict[str, Any]:
    """Every view of this module on 花月杯's day, with a request that would succeed."""
    money_services.day_attendees_add(
        club=kagetsu, user=None, date=DATE, members=[kagetsu_day["藤井"]]
    )
    day = Day.objects.get(club=kagetsu)
    money.shugi_add(day=day, user=None, winner=kagetsu_day["馬場"], multiplier=2)
    ledger = money.day_ledger(day=day)
    t = ledger.transfers[0]
    entry = money.transfer_pay(
        day=ledger.day, user=None, payer=money.party(t.payer), payee=money.party(t.payee)
    )
    t = money.day_ledger(day=ledger.day).transfers[0]
    return {
        "day_ledger": (url("money:day_ledger", kagetsu, DATE), "get", {}),
        "transfer_settle": (
            url("money:transfer_settle", kagetsu, DATE),
            "post",
            {"action": "pay", "payer": t.payer or "club", "payee": t.payee or "club"},
        ),
        "day_attendees": (
            url("money:day_attendees", kagetsu, DATE),
            "post",
            {"members": [kagetsu_day["藤井"].pk]},
        ),
        "day_shugi": (
            url("money:day_shugi", kagetsu, DATE),
            "post",
            {"winner": kagetsu_day["馬場"].pk, "multiplier": 1},
        ),
        "entry_reverse": (url("money:entry_reverse", kagetsu, entry.pk), "post", {"note": "test"}),
    }


VIEWS = ["day_ledger", "transfer_settle", "day_attendees", "day_shugi", "entry_reverse"]
WRONG_METHOD = {
    "day_ledger": "post",
    "transfer_settle": "get",
    "day_attendees": "get",
    "day_shugi": "get",
    "entry_reverse": "put",
}


@pytest.mark.parametrize("view", VIEWS)
def test_organisers_may(matrix, kagetsu_organiser, view):
    path, method, data = matrix[view]
    response = getattr(logged_in(kagetsu_organiser), method)(path, data)
    assert response.status_code == (200 if view == "day_ledger" else 302)
    assert not [m for m in messages_of(response) if "error" in m]


@pytest.mark.parametrize("view", VIEWS)
def test_plain_members_see_but_may_not_change(matrix, kagetsu, view):
    member = make_user("kagetsu-member", kagetsu, Membership.MEMBER)
    path, method, data = matrix[view]
    response = getattr(logged_in(member), method)(path, data)
    assert response.status_code == (200 if view == "day_ledger" else 403)
    if view == "entry_reverse":
        assert logged_in(member).get(path).status_code == 403


@pytest.mark.parametrize("view", VIEWS)
def test_strangers_and_logged_out_users_get_404(matrix, stranger_client, client, view):
    path, method, data = matrix[view]
    count = LedgerEntry.objects.count()
    assert getattr(stranger_client, method)(path, data).status_code == 404
    assert getattr(client, method)(path, data).status_code == 404
    assert LedgerEntry.objects.count() == count


@pytest.mark.parametrize("view", VIEWS)
def test_wrong_method_is_405(matrix, kagetsu_organiser, view):
    path, _method, data = matrix[view]
    response = getattr(logged_in(kagetsu_organiser), WRONG_METHOD[view])(path, data)
    assert response.status_code == 405


def test_no_inline_script(organiser_client, club, mame_day):
    html = organiser_client.get(url("money:day_ledger", club, DATE)).content.decode()
    assert "<script>" not in html and " onclick=" not in html and " onsubmit=" not in html
    assert "league/ledger.js" in html


# --- query counts ----------------------------------------------------------------------------


def fill_day(club: Club, user, players: int, games: int, waiting: int) -> None:
    members = [
        Member.objects.create(club=club, name=f"P{i:02}", kana=f"p{i:02}")
        for i in range(players + waiting)
    ]
    points = (52000, 31000, 19000, -3000)
    for g in range(games):
        seats = [
            services.SeatInput(members[(g + k) % players], points[k], 1 if k == 1 else 0)
            for k in range(4)
        ]
        data = services.GameInput(date=DATE, seats=seats, deposits=1000, rate="0.3")
        services.game_record(club=club, user=user, data=data)
    if waiting:
        money_services.day_attendees_add(club=club, user=user, date=DATE, members=members[players:])
    day = Day.objects.get(club=club, date=DATE)
    for settle_one in (money.transfer_pay, money.transfer_defer):
        t = money.day_ledger(day=day).transfers[0]
        settle_one(day=day, user=user, payer=int(t.payer), payee=money.party(t.payee))


# session, user, the club with the role; day, rules; the day's games, results, attendees, shūgi;
# entries, their reversals; from the book, the players' parts and the open transfers; members,
# who recorded the entries; the active members (lenders).
LEDGER_QUERIES = 16


@pytest.mark.parametrize(("games", "players", "waiting"), [(2, 4, 0), (12, 12, 3)])
def test_ledger_query_count_does_not_grow(
    organiser_client, club, organiser, games, players, waiting, django_assert_num_queries
):
    fill_day(club, organiser, players, games, waiting)
    with django_assert_num_queries(LEDGER_QUERIES):
        response = organiser_client.get(url("money:day_ledger", club, DATE))
    assert response.status_code == 200
    assert len(response.context["players"]) == players + waiting
