"""Japanese is the default language and complete; English is the source language.

The catalogs are read with a tiny .po reader (polib is not a dependency) and the compiled .mo
with the standard library's gettext, so that these tests need no gettext tools installed.
"""

from __future__ import annotations

import ast
import datetime
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from league.core.format import chip_kind, wind
from league.recording import services
from tests.support import record as record_form

ROOT = Path(settings.BASE_DIR)
LOCALE = ROOT / "locale"
DATE = datetime.date(2026, 11, 21)

# Words of the Japanese screens (UI text, not data): none of them may show in English.
JAPANESE_UI = (
    "対局を記録",
    "素点",
    "順位",
    "成績",
    "供託",
    "保存",
    "確認",
    "ログアウト",
    "メンバー",
)
PLACEHOLDER = re.compile(r"%(?:\([A-Za-z_]\w*\))?[sd]|%%")


# --- reading .po files -----------------------------------------------------------------------


@dataclass
class PoEntry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)

    @property
    def key(self) -> str:
        """The entry's key in a compiled catalog: context and msgid joined by EOT."""
        return f"{self.msgctxt}\x04{self.msgid}" if self.msgctxt is not None else self.msgid

    @property
    def label(self) -> str:
        return f"{self.msgctxt}|{self.msgid}" if self.msgctxt is not None else self.msgid


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")$')


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES[m.group(1)], text.strip()[1:-1])


def read_po(path: Path) -> list[PoEntry]:
    """The entries of a .po file, header included (msgid ""), obsolete (#~) ones left out."""
    entries: list[PoEntry] = []
    entry, target = PoEntry(), None
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip() or (line.startswith("#") and target and target[0] == "msgstr"):
            if target is not None:
                entries.append(entry)
            entry, target = PoEntry(), None
        if line.startswith("#,"):
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith('"'):
            value = _unquote(line)
            name, index = target  # type: ignore[misc]
            if name == "msgstr":
                entry.msgstr[index] += value
            else:
                setattr(entry, name, getattr(entry, name) + value)
        elif match := _KEYWORD.match(line):
            keyword, index, value = match.group(1), match.group(2), _unquote(match.group(3))
            if keyword.startswith("msgstr"):
                target = ("msgstr", int(index or 0))
                entry.msgstr[target[1]] = value
            else:
                target = (keyword, 0)
                setattr(entry, keyword, value)
    return entries


def messages_of(language: str) -> list[PoEntry]:
    return [e for e in read_po(LOCALE / language / "LC_MESSAGES" / "django.po") if e.msgid]


def compiled(language: str) -> dict[Any, str]:
    with open(LOCALE / language / "LC_MESSAGES" / "django.mo", "rb") as f:
        return dict(gettext.GNUTranslations(f)._catalog)  # type: ignore[attr-defined]


def expected_catalog(entries: list[PoEntry], nplurals: int) -> dict[Any, str]:
    """What msgfmt puts in the .mo: translated entries only (plurals keyed by (msgid, n))."""
    out: dict[Any, str] = {}
    for e in entries:
        if "fuzzy" in e.flags or not all(e.msgstr.values()):
            continue
        if e.msgid_plural is None:
            out[e.key] = e.msgstr[0]
        else:
            out |= {(e.key, n): e.msgstr[n] for n in range(nplurals)}
    return out


# --- (a) the Japanese catalog is complete ----------------------------------------------------


def test_japanese_catalog_has_a_translation_for_every_message():
    entries = messages_of("ja")
    assert len(entries) > 250
    assert [e.label for e in entries if "fuzzy" in e.flags] == []
    assert [e.label for e in entries if not e.msgstr or not all(e.msgstr.values())] == []
    # Japanese has one plural form.
    assert [e.label for e in entries if e.msgid_plural and sorted(e.msgstr) != [0]] == []


def test_japanese_header_is_final_and_has_one_plural_form():
    header = read_po(LOCALE / "ja" / "LC_MESSAGES" / "django.po")[0]
    assert header.msgid == "" and "fuzzy" not in header.flags
    assert "Language: ja\n" in header.msgstr[0]
    assert "Plural-Forms: nplurals=1; plural=0;\n" in header.msgstr[0]


def test_japanese_translations_keep_every_placeholder():
    for e in messages_of("ja"):
        wanted = sorted(set(PLACEHOLDER.findall(e.msgid_plural or e.msgid)))
        # Positional %s may be reordered only by name; named ones may appear in any order.
        assert sorted(set(PLACEHOLDER.findall(e.msgstr[0]))) == wanted, e.label
        if "%s" in wanted or "%%" in wanted:
            got = PLACEHOLDER.findall(e.msgstr[0])
            assert got.count("%s") == PLACEHOLDER.findall(e.msgid).count("%s"), e.label
        assert e.msgstr[0].count("<") == e.msgid.count("<"), e.label  # no HTML lost or added


def test_both_catalogs_hold_the_same_messages():
    assert {e.key for e in messages_of("ja")} == {e.key for e in messages_of("en")}


def test_english_catalog_is_the_source_text():
    """English msgstrs stay empty: Django then shows the msgid, which is the English text."""
    entries = messages_of("en")
    assert [e.label for e in entries if any(e.msgstr.values())] == []
    assert [e.label for e in entries if "fuzzy" in e.flags] == []


# --- every marked string is in the catalogs (makemessages was run) ----------------------------

_GETTEXT_NAMES = {"_", "gettext", "gettext_lazy", "ngettext", "ngettext_lazy"}
_PGETTEXT_NAMES = {"pgettext", "pgettext_lazy", "npgettext", "npgettext_lazy"}


def python_msgids(path: Path) -> set[str]:
    """Literal strings passed to gettext and friends in a Python module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if node.func.id in _GETTEXT_NAMES and args and isinstance(args[0], str):
            found.add(args[0])
        elif node.func.id in _PGETTEXT_NAMES and len(args) >= 2:
            found.add(f"{args[0]}\x04{args[1]}")
    return found


_TRANSLATE = re.compile(
    r"""\{%\s*(?:translate|trans)\s+(?:"([^"]*)"|'([^']*)')"""
    r"""(?:\s+context\s+(?:"([^"]*)"|'([^']*)'))?"""
)
_BLOCK = re.compile(
    r"\{%\s*blocktrans(?:late)?\b[^%]*%\}(.*?)\{%\s*endblocktrans(?:late)?\s*%\}", re.S
)


def template_msgids(path: Path) -> set[str]:
    """{% translate "…" %} strings and {% blocktranslate %} bodies, as makemessages writes them."""
    text = path.read_text(encoding="utf-8")
    found = set()
    for m in _TRANSLATE.finditer(text):
        msgid = (m.group(1) or m.group(2)).replace("%", "%%")
        context = m.group(3) or m.group(4)
        found.add(f"{context}\x04{msgid}" if context else msgid)
    for m in _BLOCK.finditer(text):
        singular = re.split(r"\{%\s*plural\s*%\}", m.group(1))[0].replace("%", "%%")
        found.add(re.sub(r"\{\{\s*(\w+)\s*\}\}", r"%(\1)s", singular))
    return found


def test_every_marked_string_is_in_the_japanese_catalog():
    known = {e.key for e in messages_of("ja")}
    sources = [*sorted((ROOT / "league").rglob("*.py"))]
    marked = set().union(*(python_msgids(p) for p in sources if "migrations" not in p.parts))
    marked |= set().union(
        *(template_msgids(p) for p in sorted((ROOT / "templates").rglob("*.html")))
    )
    assert len(marked) > 250
    assert sorted(marked - known) == [], "run makemessages and translate the new strings"


# --- (b) the compiled catalogs match their sources --------------------------------------------


@pytest.mark.parametrize(("language", "nplurals"), [("ja", 1), ("en", 2)])
def test_compiled_catalog_is_up_to_date(language, nplurals):
    entries = messages_of(language)
    catalog = compiled(language)
    catalog.pop("", None)  # the header
    assert catalog == expected_catalog(entries, nplurals), "run compilemessages"


def test_runtime_translates_every_japanese_message():
    with translation.override("ja"):
        for e in messages_of("ja"):
            if e.msgid_plural is not None:
                got = (
                    translation.npgettext(e.msgctxt, e.msgid, e.msgid_plural, 2)
                    if e.msgctxt
                    else translation.ngettext(e.msgid, e.msgid_plural, 2)
                )
            elif e.msgctxt is not None:
                got = translation.pgettext(e.msgctxt, e.msgid)
            else:
                got = translation.gettext(e.msgid)
            assert got == e.msgstr[0], e.label


def test_seat_winds_and_chip_kinds_use_their_contexts():
    with translation.override("ja"):
        assert [wind(i) for i in range(4)] == ["東", "南", "西", "北"]
        assert (chip_kind("ippatsu"), chip_kind("yakuman")) == ("一発", "役満")
        assert translation.gettext("N") == "N"  # only the "seat" context means 北
    with translation.override("en"):
        assert [wind(i) for i in range(4)] == ["E", "S", "W", "N"]
        assert (chip_kind("ippatsu"), chip_kind("yakuman")) == ("ippatsu", "yakuman")


# --- (c) pages are Japanese by default, English on request ------------------------------------


def english(client: Client) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def game(club, members, organiser):
    seats = [
        services.SeatInput(m, p)
        for m, p in zip(members, (52000, 31000, 19000, -3000), strict=False)
    ]
    data = services.GameInput(date=DATE, seats=seats, table="A", deposits=1000, rate="0.3")
    return services.game_record(club=club, user=organiser, data=data)


def pages(club, game) -> dict[str, str]:
    return {
        "home": reverse("recording:club_home", args=[club.slug]),
        "record": reverse("recording:game_new", args=[club.slug]),
        "day": reverse("recording:day_detail", args=[club.slug, DATE]),
        "game": reverse("recording:game_detail", args=[club.slug, game.pk]),
    }


JAPANESE_WORDS = {
    "home": ["対局を記録", "最近の対局", "メンバー", "ログアウト"],
    "record": ["対局を記録", "素点", "供託", "確認", "起家から順に"],
    "day": ["集計", "素点", "順位", "成績", "収支", "この日の対局を記録"],
    "game": ["第1半荘", "素点", "順位", "履歴", "記録", "修正", "無効にする"],
}
ENGLISH_WORDS = {
    "home": ["Record a game", "Recent games", "Members", "Log out"],
    "record": ["Record a game", "Points", "Deposits", "Check", "from the first dealer"],
    "day": ["Totals", "Points", "Rank", "Score", "Yen", "Record a game for this day"],
    "game": ["Game 1", "Points", "Rank", "History", "created", "Edit", "Void"],
}


@pytest.mark.parametrize("page", sorted(JAPANESE_WORDS))
def test_pages_are_japanese_by_default(organiser_client, club, game, page):
    response = organiser_client.get(pages(club, game)[page])
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="ja">' in html
    for word in JAPANESE_WORDS[page]:
        assert word in html, word
    for word in ENGLISH_WORDS[page]:
        assert f">{word}<" not in html, word


@pytest.mark.parametrize("page", sorted(ENGLISH_WORDS))
def test_pages_are_english_with_the_language_cookie(organiser_client, club, game, page):
    response = english(organiser_client).get(pages(club, game)[page])
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="en">' in html
    for word in ENGLISH_WORDS[page]:
        assert word in html, word
    for word in JAPANESE_UI:
        assert word not in html, word


def test_record_script_texts_are_translated(organiser_client, club, members):
    """record.js reads its texts from data- attributes: they are translated, with %s kept."""
    url = reverse("recording:game_new", args=[club.slug])
    html = organiser_client.get(url).content.decode()
    assert 'data-sum-short="合計 %s / %s点：%s点足りません"' in html
    assert 'data-sum-over="合計 %s / %s点：%s点多すぎます"' in html
    assert 'data-sum-ok="合計 %s / %s点：OK"' in html
    assert 'data-preview-stale="確認後に変更されています。' in html
    html = english(organiser_client).get(url).content.decode()
    assert 'data-sum-short="Total %s / %s: %s short"' in html
    assert 'data-sum-over="Total %s / %s: %s over"' in html
    assert 'data-sum-ok="Total %s / %s: OK"' in html
    assert 'data-preview-stale="Changed since the check: check again before saving."' in html


def test_preview_shows_japanese_winds_and_columns(organiser_client, club, members):
    response = organiser_client.post(
        reverse("recording:game_new", args=[club.slug]), posted("preview")
    )
    html = response.content.decode()
    assert "結果を確認してから保存してください" in html
    assert '<span class="wind-cell">東</span>' in html


# --- (d) the record form's errors are Japanese ------------------------------------------------


def posted(action: str = "save", **overrides: str) -> dict[str, str]:
    """The standard game of マメの会: 52,000 / 31,000 / 19,000 / ▲3,000 and 1,000 deposits."""
    return record_form.posted(action, ("52000", "31000", "19000", "▲3000"), **overrides)


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ("18000", "素点と供託の合計が99,000点です。100,000点になるはずなので、1,000点足りません。"),
        (
            "21000",
            "素点と供託の合計が102,000点です。100,000点になるはずなので、2,000点多すぎます。",
        ),
    ],
)
def test_sum_error_is_japanese(organiser_client, club, members, points, message):
    url = reverse("recording:game_new", args=[club.slug])
    response = organiser_client.post(url, posted(points_2=points))
    assert response.status_code == 200
    assert message in response.content.decode()
    response = english(organiser_client).post(url, posted(points_2=points))
    html = response.content.decode()
    assert "short" in html or "over" in html
    assert "素点と供託" not in html


def test_date_and_number_errors_are_japanese(organiser_client, club, members):
    url = reverse("recording:game_new", args=[club.slug])
    html = organiser_client.post(url, posted(date="あした", points_1="たくさん")).content.decode()
    assert "日付は 2026/11/21 のように入力してください。" in html
    assert "25,000 や ▲3,000 のように整数で入力してください。" in html
    html = english(organiser_client).post(url, posted(date="tomorrow")).content.decode()
    assert "Enter a date such as 2026/11/21." in html


def test_unknown_member_error_is_japanese(organiser_client, club, members):
    url = reverse("recording:game_new", args=[club.slug])
    html = organiser_client.post(url, posted(member_3="知らない人")).content.decode()
    assert "該当するメンバーがいません" in html
    assert "新しいゲストとして追加" in html


def test_success_message_is_japanese(organiser_client, club, members):
    response = organiser_client.post(
        reverse("recording:game_new", args=[club.slug]), posted("save"), follow=True
    )
    assert "第1半荘（A卓）を保存しました。" in response.content.decode()


# --- (e) switching the language ---------------------------------------------------------------


def test_set_language_switches_to_english_and_back(organiser_client, club):
    home = reverse("recording:club_home", args=[club.slug])
    assert "対局を記録" in organiser_client.get(home).content.decode()

    response = organiser_client.post(reverse("i18n:set_language"), {"language": "en", "next": home})
    assert response.status_code == 302 and response["Location"] == home
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    html = organiser_client.get(home).content.decode()
    assert "Record a game" in html and "対局を記録" not in html

    response = organiser_client.post(reverse("i18n:set_language"), {"language": "ja", "next": home})
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ja"
    html = organiser_client.get(home).content.decode()
    assert "対局を記録" in html and "Record a game" not in html


def test_language_switch_is_on_every_page_in_each_languages_own_name(organiser_client, club):
    html = organiser_client.get(reverse("recording:club_home", args=[club.slug])).content.decode()
    assert f'action="{reverse("i18n:set_language")}"' in html
    assert 'value="ja" lang="ja"' in html and "日本語" in html
    assert 'value="en" lang="en"' in html and "English" in html


def test_login_page_is_japanese_by_default(client, db):
    html = client.get(reverse("accounts:login")).content.decode()
    assert "ログイン" in html and "パスワード" in html
    html = english(client).get(reverse("accounts:login")).content.decode()
    assert "Log in" in html and "パスワード" not in html
