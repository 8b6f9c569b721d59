"""Property tests of the record form against random and malformed input.

A valid game is broken by one to four hostile changes (huge numbers, negative zero, decimals,
empty seats, a player twice, unknown members, another club's member names and ids, HTML, NUL
bytes, 10,000-character strings, impossible dates, bad rates, chips and deposits): every such POST
is refused with its messages on the page and stores nothing. A positive control saves random valid
games typed the way people type them, exactly once. Each example runs in a transaction that is
rolled back, so every example starts from the same database.
"""

from __future__ import annotations

import datetime
import html
import uuid
from dataclasses import dataclass

import pytest
from django import forms
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import scoring
from league import limits
from league.core.clock import parse_date
from league.core.names import clean_label, name_key
from league.models import AuditLog, ChipEvent, Club, Day, Game, Member, Result
from league.recording import services
from league.recording.forms import CHIP_ROWS
from tests.support.clubs import MEMBER_NAMES
from tests.support.db import rolled_back

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    database=None,  # no .hypothesis/ directory left behind
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # each example rolls back its own transaction
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

DATE = datetime.date(2026, 11, 21)
FIRST_RULES = datetime.date(2020, 1, 1)  # tests/conftest.py make_club
SEATED = MEMBER_NAMES[:4]
POINTS = (52000, 31000, 19000, -3000)  # with 1,000 deposits: 100,000 at マメの会
DEPOSITS = 1000
RATES = ("0.2", "0.3", "0.5")
CHIP_KINDS = ("ippatsu", "yakuman")
FOREIGN_NAMES = ("大西", "山本", "<b>石田</b>")  # another club's members
SEAT_CHOICES = ("0", "1", "2", "3")

FULL_WIDTH = str.maketrans("0123456789,-/", "０１２３４５６７８９，－／")
MINUS = ("▲", "△", "-", "−", "－", "ー")
BLANK = ("", " ", "\u3000", "\t", "\n", " \u3000 ")
JUNK = (
    "\x00",
    "青\x00木",
    "5\x002",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "{{ 7|add:7 }}",
    "{% debug %}",
    "'; DROP TABLE league_game; --",
    "%s%n%x",
    "../../etc/passwd",
    "\u202e",
    "🀄" * 30,
    "null",
    "None",
    "NaN",
    "∞",
    "[]",
    "{}",
    "true",
)
NUMBER_JUNK = (
    "9" * 5000,  # longer than int() reads by default
    "９" * 40,
    str(10**30),
    f"-{10**30}",
    "25000.5",
    "25,000.0",
    "1e5",
    "0x1F",
    "1_000",
    "5000-",
    "--5000",
    "▲▲5000",
    "5 000",
    "+-5000",
    "1,0,0",
    "٥٢٠٠٠",  # Arabic-Indic digits
    "五万二千",
    "52000点点",
)
DATE_JUNK = (
    "2026/13/40",
    "0000-00-00",
    "2026-02-30",
    "２０２６年１３月４０日",
    "２０２６－００－１０",
    "26-11-21",
    "2026-11",
    "11月21日",
    "21/11/2026",
    "2026-11-21T00:00",
    "99999-01-01",
    "2019-12-31",  # before the club's first rules
    "１９９９年１月１日",
)


def long_text(least: int = 51) -> st.SearchStrategy[str]:
    """A few thousand characters, cheaply: one random character repeated."""
    return st.builds(
        lambda c, n: c * n,
        st.characters(exclude_categories=("Cs",)),
        st.integers(least, 10_000),
    )


JUNK_TEXT = st.one_of(
    st.sampled_from(BLANK + JUNK),
    st.text(max_size=40),
    long_text(),
)


# --- typing numbers and dates the way people do -------------------------------------------------


@st.composite
def typed_number(draw: st.DrawFn, value: int) -> str:
    """`value` with or without commas, each character half- or full-width, ▲ or another minus
    (also before a zero), maybe 点 and spaces around."""
    text = f"{abs(value):,}" if draw(st.booleans()) else str(abs(value))
    wide = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    text = "".join(c.translate(FULL_WIDTH) if w else c for c, w in zip(text, wide, strict=True))
    if value < 0 or (value == 0 and draw(st.booleans())):
        text = draw(st.sampled_from(MINUS)) + text
    if draw(st.booleans()):
        text += "点"
    pad = st.sampled_from(("", " ", "\u3000"))
    return draw(pad) + text + draw(pad)


@st.composite
def typed_date(draw: st.DrawFn, date: datetime.date) -> str:
    text = draw(
        st.sampled_from(
            (
                date.isoformat(),
                f"{date:%Y/%m/%d}",
                f"{date.year}年{date.month}月{date.day}日",
                f"{date.year}/{date.month}/{date.day}",
            )
        )
    )
    return text.translate(FULL_WIDTH) if draw(st.booleans()) else text


def typed_name(name: str, kana: str) -> st.SearchStrategy[str]:
    """A member as typed: the name or the reading, maybe with spaces around."""
    pad = st.sampled_from(("", " ", "\u3000"))
    return st.builds(lambda a, t, b: a + t + b, pad, st.sampled_from((name, kana)), pad)


# --- the database side ----------------------------------------------------------------------


@dataclass(frozen=True)
class Known:
    """What the strategies need to know about the database: who resolves, whose ids exist."""

    club: Club
    own_keys: frozenset[str]  # names and readings of this club's members, as the form compares
    pks: tuple[str, ...]  # ids of this club's and another club's members


@pytest.fixture
def known(club, members, other_club) -> Known:
    foreign = [Member.objects.create(club=other_club, name=n) for n in FOREIGN_NAMES]
    keys = {name_key(m.name) for m in members} | {name_key(m.kana) for m in members}
    return Known(club, frozenset(keys), tuple(str(m.pk) for m in [*members, *foreign]))


@pytest.fixture
def client(organiser_client) -> Client:
    organiser_client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"
    return organiser_client


def counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Game, Result, ChipEvent, Member, Day, AuditLog)
    }


def new_url(club: Club) -> str:
    return reverse("recording:game_new", args=[club.slug])


def standard_post() -> dict[str, str]:
    data = {
        "date": DATE.isoformat(),
        "table": "A",
        "deposits": f"{DEPOSITS:,}",
        "rate": "0.3",
        "submission_key": str(uuid.uuid4()),
        "action": "save",
    }
    for i, ((name, _kana), points) in enumerate(zip(SEATED, POINTS, strict=True)):
        data.update({f"member_{i}": name, f"points_{i}": f"{points:,}", f"chombo_{i}": "0"})
    return data


def shown_errors(response) -> list[str]:
    """Every message the form holds; each must be on the page (escaped)."""
    form = response.context["form"]
    with translation.override("en"):
        messages = [str(m) for ms in form.errors.values() for m in ms]
        messages += [str(m) for ms in form.block_errors.values() for m in ms]
    page = response.content.decode()
    missing = [m for m in messages if html.escape(m) not in page]
    assert not missing, f"messages not shown: {missing}"
    return messages


def assert_refused(client: Client, url: str, data: dict[str, str]) -> None:
    before = counts()
    with rolled_back():
        response = client.post(url, data)
        assert response.status_code == 200
        assert response.context["preview"] is None
        assert shown_errors(response), "refused without a message"
        form = response.context["form"]
        for name in [*form.errors, *form.block_errors]:  # --hypothesis-show-statistics
            event(f"refused on {name.rstrip('0123456789').rstrip('_')}")
        assert counts() == before


# --- hostile changes to a valid game ----------------------------------------------------------


def parses_to(text: str) -> int | None:
    try:
        return scoring.parse_integer(text)
    except ValueError:
        return None


def field_refuses(field: forms.Field, value: str) -> bool:
    """Django's own field decides for the fields that are plain Django (no project code)."""
    try:
        field.clean(value)
    except forms.ValidationError:
        return True
    return False


MUTATIONS = (
    "member",
    "twice",
    "number",
    "date",
    "rate",
    "chombo",
    "chip_kind",
    "chip_seat",
    "chip_multiplier",
    "table",
    "submission_key",
)
# The edit form shows the date without reading it and has no submission key, but a revision.
EDIT_MUTATIONS = (*(k for k in MUTATIONS if k not in ("date", "submission_key")), "revision")


def mutate(draw: st.DrawFn, data: dict[str, str], kind: str, known: Known) -> None:
    """One change that is wrong on its own, whatever else was changed (but one number: two could
    cancel out)."""
    seat = draw(st.integers(0, 3))
    row = draw(st.integers(0, CHIP_ROWS - 1))
    if kind == "member":
        value = draw(
            st.one_of(
                st.sampled_from(FOREIGN_NAMES + known.pks + BLANK),
                JUNK_TEXT.filter(lambda t: name_key(t) not in known.own_keys),
            )
        )
        data[f"member_{seat}"] = value
    elif kind == "twice":
        other = draw(st.sampled_from([i for i in range(4) if i != seat]))
        data[f"member_{seat}"] = data[f"member_{other}"]
    elif kind == "number":
        name = draw(st.sampled_from([f"points_{seat}", "deposits"]))
        wanted = POINTS[seat] if name != "deposits" else DEPOSITS
        value = draw(
            st.one_of(
                st.integers().flatmap(typed_number),
                st.sampled_from((10**30, -(10**30), 10**7 + 100, -1000, 0)).flatmap(typed_number),
                st.sampled_from(NUMBER_JUNK + known.pks),
                JUNK_TEXT,
            ).filter(lambda t: parses_to(t) != wanted)
        )
        data[name] = value
    elif kind == "date":
        data["date"] = draw(st.one_of(st.sampled_from(DATE_JUNK), JUNK_TEXT).filter(_bad_date))
    elif kind == "rate":
        data["rate"] = draw(
            st.one_of(st.sampled_from((" 0.3", "０.３", "0.30", "1")), JUNK_TEXT).filter(
                lambda t: t not in (*RATES, "")
            )
        )
    elif kind == "chombo":
        data[f"chombo_{seat}"] = draw(
            st.one_of(st.sampled_from(("-1", "10", "３", " 1", "1.0")), JUNK_TEXT).filter(
                lambda t: t not in (*SEAT_CHOICES, "4", "5", "6", "7", "8", "9", "")
            )
        )
    elif kind == "chip_kind":
        data[f"chip_kind_{row}"] = draw(
            st.one_of(st.sampled_from(("IPPATSU", "ippatsu ", "tobi")), JUNK_TEXT).filter(
                lambda t: t not in (*CHIP_KINDS, "")
            )
        )
    elif kind == "chip_seat":
        # No kind chosen in this row: any winner or discarder at all is refused.
        name = draw(st.sampled_from([f"chip_winner_{row}", f"chip_from_{row}"]))
        data.pop(f"chip_kind_{row}", None)
        value = draw(st.one_of(st.sampled_from(SEAT_CHOICES + known.pks), JUNK_TEXT))
        data[name] = value if value else "0"
    elif kind == "chip_multiplier":
        field = forms.IntegerField(min_value=1, max_value=9, required=False)
        data[f"chip_multiplier_{row}"] = draw(
            st.one_of(
                st.integers().map(str), st.sampled_from(NUMBER_JUNK + known.pks), JUNK_TEXT
            ).filter(lambda t: field_refuses(field, t))
        )
    elif kind == "table":
        data["table"] = draw(
            st.one_of(
                # Too long once stripped: the form strips surrounding white space, so a label of
                # 21 line breaks is a blank table, which is allowed.
                long_text(21).filter(lambda t: len(t.strip()) > 20),
                st.sampled_from(("A\x00", "\x00", "<script>x</script>" * 2)),
                # A line break or a bidirectional control inside the label (issue 26, item 10).
                st.builds(
                    lambda a, c, b: a + c + b,
                    st.text(st.characters(categories=("L", "N")), min_size=1, max_size=8),
                    st.sampled_from(("\n", "\r", "\x1b", "\u2028", "\u202e", "\u2066", "\u200f")),
                    st.text(st.characters(categories=("L", "N")), min_size=1, max_size=8),
                ),
            )
        )
    elif kind == "revision":  # the game is at revision 1
        field = forms.IntegerField(min_value=1)
        data["revision"] = draw(
            st.one_of(st.integers().map(str), st.sampled_from(NUMBER_JUNK), JUNK_TEXT).filter(
                lambda t: field_refuses(field, t) or field.clean(t) != 1
            )
        )
    elif kind == "submission_key":
        field = forms.UUIDField(required=False)
        data["submission_key"] = draw(
            st.one_of(st.sampled_from((*known.pks, "0" * 33, "g" * 32)), JUNK_TEXT).filter(
                lambda t: field_refuses(field, t)
            )
        )


def _bad_date(text: str) -> bool:
    if len(text.strip()) > 30:  # the field's max_length
        return True
    try:
        return parse_date(text) < FIRST_RULES
    except ValueError:
        return True


@st.composite
def hostile_posts(
    draw: st.DrawFn, known: Known, data: dict[str, str], kinds: tuple[str, ...] = MUTATIONS
) -> dict[str, str]:
    data = dict(data)
    chosen = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4))
    if chosen.count("number") > 1:
        chosen = [k for k in chosen if k != "number"] + ["number"]
    for kind in chosen:
        mutate(draw, data, kind, known)
    # Fields the form does not have are ignored, whatever they hold.
    extra = draw(
        st.dictionaries(st.sampled_from(("club", "recorded_by", "member_4", "x")), JUNK_TEXT)
    )
    data.update({k: v for k, v in extra.items() if k not in data})
    data["action"] = draw(st.sampled_from(("save", "preview", "", "SAVE", "<script>")))
    return data


@SETTINGS
@given(st.data())
def test_a_game_with_hostile_values_is_refused_and_nothing_is_stored(client, known, data):
    post = data.draw(hostile_posts(known, standard_post()))
    assert_refused(client, new_url(known.club), post)


@settings(SETTINGS, max_examples=40)
@given(st.data())
def test_an_edit_with_hostile_values_is_refused_and_the_game_is_unchanged(
    client, known, organiser, data
):
    club = known.club
    seats = [
        services.SeatInput(Member.objects.get(club=club, name=name), points)
        for (name, _kana), points in zip(SEATED, POINTS, strict=True)
    ]
    stored = services.GameInput(date=DATE, seats=seats, table="A", deposits=DEPOSITS, rate="0.3")
    unchanged = {k: v for k, v in standard_post().items() if k not in ("date", "submission_key")}
    post = data.draw(hostile_posts(known, unchanged | {"revision": "1"}, EDIT_MUTATIONS))
    with rolled_back():
        game = services.game_record(club=club, user=organiser, data=stored)
        assert_refused(client, reverse("recording:game_edit", args=[club.slug, game.pk]), post)
        game.refresh_from_db()
        assert game.revision == 1


@settings(SETTINGS, max_examples=25)
@given(st.data())
def test_a_post_of_nothing_but_junk_is_refused(client, known, data):
    """Every field junk at once (the member names never resolve)."""
    fields = [
        "date",
        "table",
        "deposits",
        "rate",
        "submission_key",
        *(f"{f}_{i}" for i in range(4) for f in ("member", "points", "chombo", "guest")),
        *(
            f"chip_{f}_{j}"
            for j in range(CHIP_ROWS)
            for f in ("kind", "winner", "from", "multiplier")
        ),
    ]
    junk = JUNK_TEXT.filter(lambda t: name_key(t) not in known.own_keys)
    post = data.draw(st.fixed_dictionaries({}, optional=dict.fromkeys(fields, junk)))
    post["action"] = data.draw(st.sampled_from(("save", "preview")))
    assert_refused(client, new_url(known.club), post)


@settings(SETTINGS, max_examples=25)
@given(
    st.data(),
    st.lists(
        st.text(st.characters(categories=("L", "N", "P", "S")), min_size=1, max_size=20),
        min_size=1,
        max_size=4,
        unique_by=name_key,
    ),
    st.integers(-50, 50).filter(bool),
)
def test_new_guests_are_not_kept_when_the_game_is_refused(client, known, data, guests, off):
    """The guests are created inside the game's transaction: the service refuses the points after
    creating them, and they are gone with the game."""
    guests = [g for g in guests if name_key(g) not in known.own_keys]
    post = standard_post()
    for i, name in enumerate(guests):
        post.update({f"member_{i}": name, f"guest_{i}": "on"})
    post["points_3"] = data.draw(typed_number(POINTS[3] + 100 * off))
    before = counts()
    with rolled_back():
        response = client.post(new_url(known.club), post)
        assert response.status_code == 200
        assert response.context["form"].block_errors.get("points")
        assert shown_errors(response)
        assert counts() == before


# --- the positive control: valid games, typed in every way, are saved once ----------------------


@dataclass(frozen=True)
class ValidGame:
    seated: tuple[int, ...]  # indices into MEMBER_NAMES, from 起家
    points: tuple[int, ...]
    deposits: int
    chombo: tuple[int, ...]
    chips: tuple[tuple[str, int, int | None, int], ...]  # kind, winner seat, discarder seat, times
    rate: str
    date: datetime.date
    table: str


@st.composite
def valid_games(draw: st.DrawFn) -> ValidGame:
    seated = tuple(draw(st.permutations(range(len(MEMBER_NAMES))))[:4])
    deposits = 1000 * draw(st.integers(0, 4))
    # Mostly real scores, sometimes millions: the last seat stays within the engine's ±10,000,000.
    hundreds = st.one_of(st.integers(-300, 1000), st.integers(-30_000, 30_000))
    first = draw(st.lists(hundreds.map(lambda h: h * 100), min_size=3, max_size=3))
    points = (*first, 100_000 - deposits - sum(first))
    chip = st.integers(0, 3).flatmap(
        lambda w: st.tuples(
            st.sampled_from(CHIP_KINDS),
            st.just(w),
            st.one_of(st.none(), st.sampled_from([s for s in range(4) if s != w])),
            st.integers(1, 3),
        )
    )
    return ValidGame(
        seated=seated,
        points=points,
        deposits=deposits,
        chombo=tuple(draw(st.lists(st.integers(0, 2), min_size=4, max_size=4))),
        chips=tuple(draw(st.lists(chip, max_size=CHIP_ROWS))),
        rate=draw(st.sampled_from((*RATES, ""))),
        date=draw(st.dates(FIRST_RULES, limits.latest_date())),  # dates are bounded
        # A table is kept in NFKC (names.clean_label), which may lengthen it past its column.
        table=draw(
            st.text(st.characters(categories=("L", "N", "P", "S", "Zs")), max_size=20).filter(
                lambda t: len(clean_label(t)) <= 20
            )
        ),
    )


def typed_post(draw: st.DrawFn, game: ValidGame) -> dict[str, str]:
    data = {
        "date": draw(typed_date(game.date)),
        "table": game.table,
        "deposits": draw(typed_number(game.deposits))
        if game.deposits or draw(st.booleans())
        else "",
        "rate": game.rate,
        "submission_key": str(uuid.uuid4()),
    }
    for i, (m, points, chombo) in enumerate(
        zip(game.seated, game.points, game.chombo, strict=True)
    ):
        data[f"member_{i}"] = draw(typed_name(*MEMBER_NAMES[m]))
        data[f"points_{i}"] = draw(typed_number(points))
        data[f"chombo_{i}"] = str(chombo)
    for j, (kind, winner, discarder, times) in enumerate(game.chips):
        data[f"chip_kind_{j}"] = kind
        data[f"chip_winner_{j}"] = str(winner)
        data[f"chip_from_{j}"] = "" if discarder is None else str(discarder)
        data[f"chip_multiplier_{j}"] = str(times)
    return data


def settled(club: Club, game: ValidGame) -> scoring.GameResult:
    """What the engine itself says: the page must store exactly this."""
    names = [MEMBER_NAMES[m][0] for m in game.seated]
    return scoring.settle_game(
        club.rules_versions.get().rules,
        scoring.Game(
            seats=tuple(scoring.Seat(n, p) for n, p in zip(names, game.points, strict=True)),
            deposits=game.deposits,
            chombo=tuple(n for n, c in zip(names, game.chombo, strict=True) for _ in range(c)),
            chips=tuple(
                scoring.ChipEvent(k, names[w], None if d is None else names[d], t)
                for k, w, d, t in game.chips
            ),
            rate=game.rate or None,
        ),
    )


@settings(SETTINGS, max_examples=30)  # three requests each
@given(st.data(), valid_games())
def test_a_valid_game_typed_any_way_is_previewed_then_saved_once(client, known, data, game):
    club = known.club
    post = typed_post(data.draw, game)
    before = counts()
    with rolled_back():
        preview = client.post(new_url(club), {**post, "action": "preview"})
        assert preview.status_code == 200
        assert preview.context["preview"] is not None, preview.context["form"].errors
        assert counts() == before

        for _twice in range(2):  # the same submission again (a double tap) changes nothing
            saved = client.post(new_url(club), {**post, "action": "save"})
            assert saved.status_code == 302
            assert saved["Location"] == reverse("recording:day_detail", args=[club.slug, game.date])

        stored = Game.objects.get()
        assert (stored.date, stored.table, stored.deposits, stored.rate) == (
            game.date,
            clean_label(game.table),
            game.deposits,
            game.rate,
        )
        rows = list(stored.results.select_related("member").order_by("seat"))
        expected = settled(club, game).players
        assert [r.member.name for r in rows] == [MEMBER_NAMES[m][0] for m in game.seated]
        assert [(r.points, r.chombo, r.rank, r.score, r.chips, r.yen) for r in rows] == [
            (p.points, p.chombo, p.rank, p.score, p.chips, p.yen) for p in expected
        ]
        assert stored.chip_events.count() == len(game.chips)
        after = counts()
        assert (after["Game"], after["Result"], after["Day"], after["Member"]) == (
            before["Game"] + 1,
            before["Result"] + 4,
            before["Day"] + 1,
            before["Member"],
        )
        assert AuditLog.objects.filter(action="game.create").count() == 1


# --- the fields of issue 26: the account's e-mail and password, a club address checked, a guest
# checked in on the draw. Junk in any of them is an answer, never a 500, and stores nothing. -----


@settings(SETTINGS, max_examples=30)
@given(email=JUNK_TEXT, password=JUNK_TEXT, slug=JUNK_TEXT, name=JUNK_TEXT)
def test_junk_in_the_new_fields_is_never_a_500(
    client, known, organiser, email, password, slug, name
):
    with rolled_back():
        account = client.post(reverse("accounts:account"), {"email": email, "password": password})
        assert account.status_code == 200  # the password is never right: refused, with a message
        assert account.context["email_form"].errors
        organiser.refresh_from_db()
        assert organiser.email == ""
        check = client.get(reverse("accounts:slug_check"), {"slug": slug, "name": name})
        assert check.status_code in (200, 429)
        assert set(check.json()) == {"slug", "error"}
        day = Day.objects.create(club=known.club, date=DATE)
        drawn = client.post(
            reverse("draw:draw_check_in", args=[known.club.slug, day.date]),
            {"name": name, "guest": "on"},
        )
        assert drawn.status_code == 302
