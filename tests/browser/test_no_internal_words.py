"""No page shows the words the code uses inside: an audit action code (draw.recorded), a preset's
id (mame-no-kai), the placeholder date of a club's first rules (2000/01/01), or a note stored in
the other language (the undo's 記録直後に取り消し on an English page).

Every page of a club is walked, as in test_every_page_fits (its `club_pages`: a draw with a
recorded table, a payment marked and undone by a Japanese reader), in both languages.
"""

from __future__ import annotations

import re

import pytest
from django.utils import translation

import scoring
from league import limits
from league.models import AuditLog
from league.money.services import UNDO_NOTE
from league.recording.selectors import ACTION_LABELS

pytestmark = pytest.mark.django_db(transaction=True)

VISIBLE_TEXT = "() => document.title + '\\n' + document.body.innerText"
# Words and shapes seen on screen before (issue 41): a digest's name, the rating library's and
# its model's, a log's field path, an ISO date where the pages write 2026/11/25, and 第n戦 beside
# 第n半荘 (a game's one name).
SEEN_BEFORE = re.compile(
    r"sha256|openskill|Plackett|Luce|log\.hands\[|\b\d{4}-\d{2}-\d{2}\b|第\d+戦"
)


def internal_words() -> re.Pattern[str]:
    codes = set(AuditLog.objects.values_list("action", flat=True)) | set(ACTION_LABELS)
    assert "draw.recorded" in codes and "ledger.undo" in codes  # the pages have them to show
    words = sorted(codes | set(scoring.PRESETS), key=len, reverse=True)
    # Bounded by ASCII only: 「mame-no-kaiを元に」 is a slug beside Japanese text.
    return re.compile(
        r"(?<![A-Za-z0-9_.-])(" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9_-])"
    )


@pytest.mark.parametrize("language", ["ja", "en"])
def test_no_page_shows_an_internal_word(phone, live_server, log_in, club_pages, language):
    other = "en" if language == "ja" else "ja"
    with translation.override(other):
        foreign_note = str(UNDO_NOTE)
    earliest = limits.EARLIEST.strftime("%Y/%m/%d")
    pattern = internal_words()
    log_in("organiser")
    phone.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    problems, undo_seen = [], False
    for name, path in club_pages:
        response = phone.goto(live_server.url + path)
        assert response is not None and response.status == 200, path
        text = phone.evaluate(VISIBLE_TEXT)
        found = sorted(set(pattern.findall(text)) | set(SEEN_BEFORE.findall(text)))
        if found:
            problems.append(f"{name}: {found}")
        if foreign_note in text:
            problems.append(f"{name}: {foreign_note!r}")
        if earliest in text:
            problems.append(f"{name}: {earliest}")
        with translation.override(language):
            undo_seen = undo_seen or str(UNDO_NOTE) in text
    assert not problems, "\n".join(problems)
    # The control: the undone payment's note was on a page, in the reader's language.
    assert undo_seen
