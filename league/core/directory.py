"""The one rule for finding a club's member by what someone typed: the record form, check-in
at the table draw, the Excel import, the API and the chat all ask a Directory.

In order, each step taken only when the one before found nothing:
1. the name as written (league.core.names.name_key: spaces of either width, kana width and case
   do not matter, so 阿部誠 finds 阿部 誠), or a merged record's name;
2. the name with variant kanji folded (names.variant_key: 斉藤 由美子 finds 斎藤 由美子,
   渡邉 finds 渡辺), when only one member has it;
3. a reading (kana) only one member has, with or without its space;
4. a family or given name, or its reading, only one member has (高橋 finds 高橋 真由美;
   なかむら finds 中村優, a name written without a space, split by league.core.readings).
Several members answering a step is Ambiguous (naming them), never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, Protocol, TypeVar

from rapidfuzz import fuzz

from league.core import names
from league.core.readings import name_parts, reading_of, reading_parts


class Named(Protocol):
    pk: Any
    name: str
    kana: str


M = TypeVar("M", bound=Named)


class Ambiguous(Exception):
    """Several members answer to what was typed; `names` are theirs, sorted."""

    def __init__(self, found: Iterable[Named]):
        self.names = sorted(m.name for m in found)
        super().__init__("、".join(self.names))


def _add(table: dict[str, list[M]], key: str, member: M) -> None:
    if not key:
        return
    found = table.setdefault(key, [])
    if member not in found:
        found.append(member)


class Directory(Generic[M]):
    """Members found as people type them (see the module's steps)."""

    def __init__(self, members: Iterable[M], aliases: Iterable[Any] = ()):
        self.by_id: dict[Any, M] = {m.pk: m for m in members}
        self._by_name: dict[str, M] = {names.name_key(m.name): m for m in self.by_id.values()}
        # A record merged into another (league.club): its name finds the record that stayed.
        for alias in aliases:
            survivor = self.by_id.get(alias.merged_into_id)
            if survivor is not None:
                self._by_name.setdefault(names.name_key(alias.name), survivor)
        self._by_variant: dict[str, list[M]] = {}
        self._by_kana: dict[str, list[M]] = {}
        self._by_part: dict[str, list[M]] = {}
        for m in self.by_id.values():
            _add(self._by_variant, names.variant_key(m.name), m)
            if m.kana:
                _add(self._by_kana, names.name_key(m.kana), m)
            parts = name_parts(m.name)
            if len(parts) > 1:
                for part in (*parts, *reading_parts(m.name, m.kana or "")):
                    _add(self._by_part, names.variant_key(part), m)

    @staticmethod
    def _one(found: list[M]) -> M | None:
        if len(found) > 1:
            raise Ambiguous(found)
        return found[0] if found else None

    def whole(self, name: str) -> M | None:
        """The member by the whole name (as written, or with variant kanji) or the whole
        reading; None; Ambiguous when several share the variant or the reading."""
        member = self._by_name.get(names.name_key(name))
        if member is not None:
            return member
        return self._one(self._by_variant.get(names.variant_key(name), [])) or self._one(
            self._by_kana.get(names.name_key(name), [])
        )

    def find(self, name: str) -> M | None:
        """The member by every step (whole names and readings, then a family or given name);
        None; Ambiguous when several members answer the step that found them."""
        return self.whole(name) or self._one(self._by_part.get(names.variant_key(name), []))

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """The members' names closest to `name`, the closest first (rapidfuzz): by name (江籐 健
        for 江藤 健) or by reading (えとお for えとう), the typed name's own suggested reading too."""
        key = names.variant_key(name)
        if not key:
            return []
        typed = {key, names.name_key(reading_of(name))} - {""}
        best: dict[Any, float] = {}
        for text, member in self._by_name.items():  # a merged record's name too
            score = max(fuzz.ratio(t, names.fold_variants(text)) for t in typed)
            best[member.pk] = max(best.get(member.pk, 0), score)
        for kana, found in self._by_kana.items():
            for member in found:
                score = max(fuzz.ratio(t, kana) for t in typed)
                best[member.pk] = max(best.get(member.pk, 0), score)
        close = sorted((pk for pk, score in best.items() if score >= 50), key=lambda pk: -best[pk])
        return [self.by_id[pk].name for pk in close][:limit]
