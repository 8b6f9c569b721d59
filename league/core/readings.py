"""A name's reading (よみ) suggested from its writing, for members created without one.

pykakasi reads kanji by its dictionary: 長谷川 由美子 → はせがわ ゆみこ. A name it cannot read as
kana (Latin letters: Smith) gets no suggestion, and a reading typed by a person always wins; an
organiser corrects a wrong guess on the member's page.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from league.core import names

KANA_ONLY = re.compile(r"[\u3041-\u309f\u30fc ]+")


@functools.cache
def _kakasi():  # type: ignore[no-untyped-def]
    import pykakasi  # loaded once, on first use: its dictionaries take a moment

    return pykakasi.kakasi()


def reading_of(name: str) -> str:
    """The suggested reading in hiragana, one space between family and given name as written;
    "" when the name holds anything that is not read as kana."""
    text = names.fold_variants(" ".join(unicodedata.normalize("NFKC", name).split()))
    if not text:
        return ""
    reading = "".join(part["hira"] for part in _kakasi().convert(text))
    reading = " ".join(reading.split())
    return reading if KANA_ONLY.fullmatch(reading) else ""


KANJI = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003ffff々]")


@functools.lru_cache(maxsize=4096)
def name_parts(name: str) -> tuple[str, ...]:
    """A name's family and given name: as spaced (中村 優), or, for a name in kanji written
    without a space (中村優), where pykakasi's dictionary splits it into exactly two words;
    () when it cannot say (one word: 田中; three words; kana or Latin letters).
    Variant kanji are folded first (pykakasi cannot read 髙 or 﨑)."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    if " " in text:
        return tuple(text.split(" "))
    folded = names.fold_variants(text)
    if not KANJI.search(folded):
        return ()
    words = [part["orig"] for part in _kakasi().convert(folded)]
    if len(words) != 2 or "".join(words) != folded:
        return ()
    return tuple(words)


def reading_parts(name: str, kana: str) -> tuple[str, ...]:
    """A reading's family and given parts: as spaced (なかむら ゆう), or, for a reading written
    without a space (なかむらゆう), cut after the family name's own reading when it starts the
    reading (中村 → なかむら); () when it cannot say."""
    text = " ".join(unicodedata.normalize("NFKC", kana).split())
    if " " in text:
        return tuple(text.split(" "))
    parts = name_parts(name)
    if not text or len(parts) != 2:
        return ()
    family = reading_of(parts[0]).replace(" ", "")
    if family and text.startswith(family) and len(text) > len(family):
        return (family, text[len(family) :])
    return ()
