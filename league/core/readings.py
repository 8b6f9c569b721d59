"""A name's reading (よみ) suggested from its writing, for members created without one.

pykakasi reads kanji by its dictionary: 長谷川 由美子 → はせがわ ゆみこ. A name it cannot read as
kana (Latin letters: Smith) gets no suggestion, and a reading typed by a person always wins; an
organiser corrects a wrong guess on the member's page.
"""

from __future__ import annotations

import functools
import re
import unicodedata

KANA_ONLY = re.compile(r"[\u3041-\u309f\u30fc ]+")


@functools.cache
def _kakasi():  # type: ignore[no-untyped-def]
    import pykakasi  # loaded once, on first use: its dictionaries take a moment

    return pykakasi.kakasi()


def reading_of(name: str) -> str:
    """The suggested reading in hiragana, one space between family and given name as written;
    "" when the name holds anything that is not read as kana."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    if not text:
        return ""
    reading = "".join(part["hira"] for part in _kakasi().convert(text))
    reading = " ".join(reading.split())
    return reading if KANA_ONLY.fullmatch(reading) else ""
