"""Keep the statistics of league.models.stats up to date at write time.

Called by league.standings.services only, from the same places as the standings totals, inside
the writer's transaction and after the members' all-time rows are locked:

- `results_changed`: head-to-head and seat rows moved by deltas (per game: every pair of its
  players, every seat), and the club's games replayed from the earliest changed game on
  (`replay`): the rating, the expected places and the runs of every member game after it.
- `member_rebuilt`, `season_rebuilt`, `club_rebuilt`: recomputed from the stored results.

A replay reads and rewrites the member games from one game on: a game recorded on the latest
day replays that game alone; an edit or void of an old game replays every game after it, once,
in the writer's transaction when at most settings.RATING_INLINE_GAMES member games follow it, or
else by a worker (`replay_or_defer`, league.standings.tasks), never on a page. The replay starts
from the earliest place of the changed games, as they are now or as their kept rows have them.
Head-to-head and seat rows move by a constant number of queries per write (`_apply`).
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Min, Q

from league.core.locks import for_update
from league.models import ChipEvent, Game, Member, Result, Season
from league.models.stats import ClubChronicle, MemberGame, MemberRating, PairTotal, SeatTotal
from league.standings import rating
from league.standings.competitions import Counting, in_season

PAIR_FIELDS = ("games", "rank_sum", "opponent_rank_sum", "above", "net")
SEAT_FIELDS = ("games", "rank_sum", "total", "first")
YAKUMAN = "yakuman"  # the chip kind of a yakuman (league.core.format.CHIP_KINDS)
CHUNK = 1000

PairKey = tuple[int, int, int | None]  # member, opponent, season (None: all time)
SeatKey = tuple[int, int | None, int]  # member, season, seat
Deltas = dict[Any, dict[str, int]]


# --- head-to-head and seats ---------------------------------------------------------------


def _by_game(rows: Iterable[Any]) -> dict[int, list[Any]]:
    games: dict[int, list[Any]] = defaultdict(list)
    for r in rows:
        games[r.game_id].append(r)
    return games


def _add(deltas: Deltas, key: Any, **values: int) -> None:
    row = deltas.setdefault(key, {})
    for name, value in values.items():
        row[name] = row.get(name, 0) + value


def pair_and_seat_deltas(
    removed: Iterable[Any], added: Iterable[Any], counting: Counting
) -> tuple[Deltas, Deltas]:
    """The changes to PairTotal and SeatTotal rows of `added` minus `removed` rows (whole games:
    every counted row of each game; rows have game_id, member_id, seat, rank, score, date)."""
    pairs: Deltas = {}
    seats: Deltas = {}
    for sign, rows in ((-1, removed), (1, added)):
        for game_id, game_rows in _by_game(rows).items():
            scopes = [None, *counting.holding(game_id, game_rows[0].date)]
            for r in game_rows:
                for scope in scopes:
                    _add(
                        seats,
                        (r.member_id, scope, r.seat),
                        games=sign,
                        rank_sum=sign * r.rank,
                        total=sign * r.score,
                        first=sign * int(r.rank == 1),
                    )
                    for o in game_rows:
                        if o.member_id == r.member_id:
                            continue
                        _add(
                            pairs,
                            (r.member_id, o.member_id, scope),
                            games=sign,
                            rank_sum=sign * r.rank,
                            opponent_rank_sum=sign * o.rank,
                            above=sign * int(r.rank < o.rank),
                            net=sign * (r.score - o.score),
                        )
    return pairs, seats


def _pair_row(club_id: int, key: PairKey) -> PairTotal:
    return PairTotal(club_id=club_id, member_id=key[0], opponent_id=key[1], season_id=key[2])


def _seat_row(club_id: int, key: SeatKey) -> SeatTotal:
    return SeatTotal(club_id=club_id, member_id=key[0], season_id=key[1], seat=key[2])


def _pair_key(row: PairTotal) -> PairKey:
    return (row.member_id, row.opponent_id, row.season_id)


def _seat_key(row: SeatTotal) -> SeatKey:
    return (row.member_id, row.season_id, row.seat)


def _apply(
    model: type[models.Model], club_id: int, deltas: Deltas, make: Any, key_of: Any, where: Q
) -> None:
    """Add `deltas` to their rows (made when missing): one read of exactly those rows, then the
    rows written back with their new values (`rewrite`: one DELETE and one INSERT per CHUNK
    rows), however many rows a game or a day moves. The members' all-time standings rows are
    locked by the caller, so no other writer moves or makes these rows between the read and the
    write."""
    changed = {k: d for k, d in deltas.items() if any(d.values())}
    if not changed:
        return
    members = sorted({k[0] for k in changed})
    rows = []
    for start in range(0, len(members), CHUNK):
        for row in model.objects.filter(where, member_id__in=members[start : start + CHUNK]):
            delta = changed.get(key_of(row))
            if delta is None:
                continue
            for name, value in delta.items():
                setattr(row, name, getattr(row, name) + value)
            rows.append(row)
    found = {key_of(row) for row in rows}
    ordered = sorted(changed, key=lambda k: tuple(-1 if v is None else v for v in k))
    for key in ordered:
        if key not in found:
            row = make(club_id, key)
            for name, value in changed[key].items():
                setattr(row, name, value)
            rows.append(row)
    rewrite(model, rows)


def rewrite(model: type[models.Model], rows: Sequence[models.Model]) -> None:
    """Write `rows` of a kept table back with the values they hold now: those stored (read in
    this transaction, with their pk) deleted and inserted again with the same pk, the new ones
    inserted, in a DELETE and an INSERT per CHUNK rows. Django's bulk_update writes a CASE per
    field and row, whose making cost about 0.1 s a day of an import for the head-to-head rows
    alone (issue 38). Only for rows that nothing refers to and that no writer locks (the caller
    holds the lock that guards them: the members' all-time standings rows)."""
    stored = [row.pk for row in rows if row.pk is not None]
    for start in range(0, len(stored), CHUNK):
        model._base_manager.filter(pk__in=stored[start : start + CHUNK]).delete()
    model._base_manager.bulk_create(rows, batch_size=CHUNK)


def _scopes_q(scopes: set[int | None]) -> Q:
    scope_q = Q(season_id__in=sorted(s for s in scopes if s is not None))
    if None in scopes:
        scope_q |= Q(season__isnull=True)
    return scope_q


def _move(club_id: int, pairs: Deltas, seats: Deltas) -> None:
    pair_q = _scopes_q({k[2] for k in pairs})
    opponents = sorted({k[1] for k in pairs})
    if len(opponents) <= CHUNK:  # a game's rows: exactly its pairs (an import: its members' rows)
        pair_q &= Q(opponent_id__in=opponents)
    _apply(PairTotal, club_id, pairs, _pair_row, _pair_key, pair_q)
    _apply(SeatTotal, club_id, seats, _seat_row, _seat_key, _scopes_q({k[1] for k in seats}))


def _insert(club_id: int, pairs: Deltas, seats: Deltas, keep: Any = None) -> None:
    """Insert rebuilt rows (`keep`: a filter on keys)."""
    PairTotal.objects.bulk_create(
        (
            PairTotal(club_id=club_id, member_id=m, opponent_id=o, season_id=s, **pairs[(m, o, s)])
            for m, o, s in pairs
            if pairs[(m, o, s)]["games"] and (keep is None or keep(m, o))
        ),
        batch_size=CHUNK,
    )
    SeatTotal.objects.bulk_create(
        (
            SeatTotal(club_id=club_id, member_id=m, season_id=s, seat=seat, **seats[(m, s, seat)])
            for m, s, seat in seats
            if seats[(m, s, seat)]["games"] and (keep is None or keep(m, m))
        ),
        batch_size=CHUNK,
    )


_ROW_FIELDS = ("game_id", "member_id", "seat", "rank", "score", "date", "last")


def _rows(results: models.QuerySet[Result]) -> Iterable[Result]:
    return results.order_by("game_id", "seat").only(*_ROW_FIELDS).iterator(chunk_size=5000)


# --- the chronicle: rating and runs, in the club's order of games -------------------------

Key = tuple[datetime.date, int]  # a game's place in the club's order: (date, number)


def _from(key: Key | None) -> Q:
    """The games from `key` on, written as a range on the date (date >= d, less the day's games
    before number n) rather than as "date > d OR (date = d AND number >= n)": an index on
    (club, date, number) serves the range, where SQLite scanned the club's whole history for the
    OR (issue 38: recording one game grew with history on SQLite)."""
    if key is None:
        return Q()
    date, number = key
    return Q(date__gte=date) & ~Q(date=date, number__lt=number)


class _Carried:
    """A member's state between games: the rating and the current runs."""

    __slots__ = ("clean", "state", "tops")

    def __init__(self, state: rating.State, tops: int, clean: int) -> None:
        self.state, self.tops, self.clean = state, tops, clean


def _chronicle(club_id: int) -> ClubChronicle:
    """The club's chronicle row, locked: replays of one club (and the writers deciding whether to
    replay) queue up on it."""
    locked = for_update(ClubChronicle.objects).filter(club_id=club_id).first()
    if locked is not None:
        return locked
    ClubChronicle.objects.bulk_create([ClubChronicle(club_id=club_id)], ignore_conflicts=True)
    return for_update(ClubChronicle.objects).get(club_id=club_id)


def _pending(chronicle: ClubChronicle) -> Key | None:
    if chronicle.pending_date is None:
        return None
    return (chronicle.pending_date, chronicle.pending_number or 0)


def replay(
    club_id: int,
    since: Key | None,
    chronicle: ClubChronicle | None = None,
    old_rows: list[tuple[int, ...]] | None = None,
) -> int:
    """Rewrite the club's member games from the game at `since` on (None: from the first game)
    from the counted results; return how many member games were written. A replay left to a
    worker from an earlier game (`ClubChronicle.pending_date`) is done by this one. `chronicle`:
    the club's row when the caller has locked it already; `old_rows`: the kept games from `since`
    on as `_old_rows` reads them, when the caller has read them already."""
    chronicle = chronicle or _chronicle(club_id)
    pending = _pending(chronicle)
    if pending is not None and since is not None and pending < since:
        since, old_rows = pending, None
    written = _replay(club_id, since, old_rows)
    chronicle.replayed += written
    chronicle.pending_date = chronicle.pending_number = None
    chronicle.save(update_fields=["replayed", "pending_date", "pending_number"])
    return written


def replay_or_defer(club_id: int, since: Key) -> bool:
    """Replay from `since` now when at most settings.RATING_INLINE_GAMES member games follow it;
    otherwise note `since` on the chronicle for a worker (league.standings.tasks) and return True:
    the caller enqueues the task on commit. Pages say that the rating is being recomputed until
    it has run."""
    chronicle = _chronicle(club_id)
    pending = _pending(chronicle)
    start = since if pending is None else min(since, pending)
    limit = settings.RATING_INLINE_GAMES
    if pending is not None and pending <= since and list(_old_rows(club_id, start)[limit:][:1]):
        # Left to a worker already, from no later a game (a re-settle's later days): that
        # replay covers this change, and there is no need to read what follows it again.
        return True
    later = list(_old_rows(club_id, start)[: limit + 1])
    if len(later) <= limit:
        replay(club_id, start, chronicle, later)
        return False
    chronicle.pending_date, chronicle.pending_number = start
    chronicle.save(update_fields=["pending_date", "pending_number"])
    return True


def replay_pending(club_id: int) -> int:
    """The worker's part: replay from the game a writer left (nothing when already done)."""
    chronicle = _chronicle(club_id)
    pending = _pending(chronicle)
    if pending is None:
        return 0
    return replay(club_id, pending, chronicle)


def _old_rows(club_id: int, since: Key | None) -> models.QuerySet[MemberGame, tuple[int, ...]]:
    """The kept games from `since` on, in order, with what a replay carries in from before."""
    return (
        MemberGame.objects.filter(_from(since), club_id=club_id)
        .order_by("date", "number")
        .values_list("member_id", "n", "mu_before", "sigma_before", "tops_before", "clean_before")
    )


# A replayed member game, as _replay writes it (no model instance is made for it).
_WRITTEN = (
    "club_id",
    "member_id",
    "game_id",
    "date",
    "number",
    "n",
    "rank",
    "score",
    "yakuman",
    "mu_before",
    "sigma_before",
    "mu",
    "sigma",
    "expected",
    "tops_before",
    "tops",
    "clean_before",
    "clean",
)


def _replay(club_id: int, since: Key | None, old_rows: list[tuple[int, ...]] | None) -> int:
    after = _from(since)
    carried: dict[int, _Carried] = {}
    old = MemberGame.objects.filter(after, club_id=club_id)
    rows = _old_rows(club_id, since).iterator(chunk_size=5000) if old_rows is None else old_rows
    for row in rows:
        if row[0] not in carried:  # a member's first game replayed: its state before
            member, n, mu, sigma, tops, clean = row
            carried[member] = _Carried(rating.State(mu, sigma, n - 1), tops, clean)
    games = list(
        Game.objects.filter(after, club_id=club_id, voided=False)
        .order_by("date", "number")
        .values_list("pk", "date", "number", "revision")
    )
    results: dict[int, list[tuple[int, int, int, int, bool]]] = defaultdict(list)
    yakuman: dict[tuple[int, int], int] = defaultdict(int)
    revision = {pk: rev for pk, _d, _n, rev in games}
    if since is None:
        parts = [
            (
                Result.objects.filter(club_id=club_id, counted=True, member__fill_in=False),
                ChipEvent.objects.filter(game__club_id=club_id, kind=YAKUMAN),
            )
        ]
    else:
        ids = [pk for pk, *_rest in games]
        parts = [
            (
                Result.objects.filter(
                    game_id__in=ids[i : i + CHUNK], counted=True, member__fill_in=False
                ),
                ChipEvent.objects.filter(game_id__in=ids[i : i + CHUNK], kind=YAKUMAN),
            )
            for i in range(0, len(ids), CHUNK)
        ]
    for result_rows, chip_rows in parts:
        for game_id, member_id, seat, rank, score, last in result_rows.order_by(
            "game_id", "seat"
        ).values_list("game_id", "member_id", "seat", "rank", "score", "last"):
            results[game_id].append((member_id, seat, rank, score, last))
        for game_id, rev, winner, times in chip_rows.values_list(
            "game_id", "revision", "winner_id", "multiplier"
        ):
            if revision.get(game_id) == rev:
                yakuman[(game_id, winner)] += times
    new_members = {m for rows in results.values() for m, *_rest in rows} - set(carried)
    for current in MemberRating.objects.filter(member_id__in=sorted(new_members)):
        carried[current.member_id] = _Carried(
            rating.State(current.mu, current.sigma, current.games), current.tops, current.clean
        )
    written = []
    for game_id, date, number, _revision in games:
        rows = results.get(game_id)
        if not rows:
            continue
        states = [carried.setdefault(m, _Carried(rating.START, 0, 0)) for m, *_rest in rows]
        outcomes = rating.play([c.state for c in states], [rank for _m, _s, rank, _sc, _l in rows])
        for (member_id, _seat, rank, score, last), c, outcome in zip(
            rows, states, outcomes, strict=True
        ):
            tops = c.tops + 1 if rank == 1 else 0
            clean = 0 if last else c.clean + 1
            written.append(
                (
                    club_id,
                    member_id,
                    game_id,
                    date,
                    number,
                    outcome.after.games,
                    rank,
                    score,
                    yakuman.get((game_id, member_id), 0),
                    c.state.mu,
                    c.state.sigma,
                    outcome.after.mu,
                    outcome.after.sigma,
                    outcome.expected,
                    c.tops,
                    tops,
                    c.clean,
                    clean,
                )
            )
            c.state, c.tops, c.clean = outcome.after, tops, clean
    old.delete()
    # Made from the values in the order of MemberGame's columns (_WRITTEN, after the id: pinned
    # by tests/league/standings), Model's positional fast path: by keyword it took three times
    # as long.
    MemberGame.objects.bulk_create(
        [MemberGame(None, *values) for values in written], batch_size=CHUNK
    )
    touched = sorted(carried)
    for start in range(0, len(touched), CHUNK):
        MemberRating.objects.filter(member_id__in=touched[start : start + CHUNK]).delete()
    MemberRating.objects.bulk_create(
        (
            MemberRating(
                club_id=club_id,
                member_id=m,
                games=c.state.games,
                mu=c.state.mu,
                sigma=c.state.sigma,
                ordinal=c.state.ordinal,
                tops=c.tops,
                clean=c.clean,
            )
            for m, c in sorted(carried.items())
            if c.state.games
        ),
        batch_size=CHUNK,
    )
    return len(written)


def _earliest(game_ids: Iterable[int]) -> Key | None:
    """The earliest place in the club's order of these games, as they are now or as their kept
    rows have them (an edit may move a game to another day: its old rows are replayed too)."""
    ids = sorted(set(game_ids))
    keys: list[Key] = []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        now = Game.objects.filter(pk__in=chunk).order_by().values_list("date", "number")
        before = MemberGame.objects.filter(game_id__in=chunk).order_by()
        before = before.values_list("date", "number")
        first = now.union(before).order_by("date", "number").first()
        if first is not None:
            keys.append(first)
    return min(keys) if keys else None


# --- the entry points (league.standings.services) ----------------------------------------


def results_changed(
    *, club_id: int, removed: Sequence[Any], added: Sequence[Any], counting: Counting
) -> bool:
    """Move the head-to-head and seat rows; replay the rating from the earliest changed game, or
    leave it to a worker (True: the caller enqueues league.standings.tasks.replay_ratings).
    An action's changes come once (league.core.changes): a re-settle's step moves the rows
    and replays once for all its games."""
    pairs, seats = pair_and_seat_deltas(removed, added, counting)
    _move(club_id, pairs, seats)
    since = _earliest(r.game_id for r in (*removed, *added))
    return since is not None and replay_or_defer(club_id, since)


def season_rebuilt(*, season: Season) -> None:
    PairTotal.objects.filter(season=season).delete()
    SeatTotal.objects.filter(season=season).delete()
    rows = Result.objects.filter(
        in_season(season), club_id=season.club_id, counted=True, member__fill_in=False
    )
    pairs, seats = pair_and_seat_deltas([], _rows(rows), Counting([season], ()))
    _insert(
        season.club_id,
        {k: v for k, v in pairs.items() if k[2] is not None},
        {k: v for k, v in seats.items() if k[1] is not None},
    )


def member_rebuilt(*, member: Member) -> bool:
    """One member's rows (and their opponents' rows against them), and the games replayed from
    the earlier of the member's first kept game and first counted game."""
    PairTotal.objects.filter(Q(member=member) | Q(opponent=member)).delete()
    SeatTotal.objects.filter(member=member).delete()
    games = Result.objects.filter(member=member, counted=True).values("game_id")
    rows = Result.objects.filter(game_id__in=games, counted=True, member__fill_in=False)
    counting = Counting(list(Season.objects.filter(club_id=member.club_id)))
    pairs, seats = pair_and_seat_deltas([], _rows(rows), counting)
    _insert(member.club_id, pairs, seats, keep=lambda m, o: member.pk in (m, o))
    keys = []
    first_kept = (
        MemberGame.objects.filter(member=member)
        .order_by("date", "number")
        .values_list("date", "number")
    ).first()
    if first_kept is not None:
        keys.append(first_kept)
    first_date = Result.objects.filter(member=member, counted=True).aggregate(d=Min("date"))["d"]
    if first_date is not None:
        number = Result.objects.filter(member=member, counted=True, date=first_date).aggregate(
            n=Min("game__number")
        )["n"]
        keys.append((first_date, number))
    return bool(keys) and replay_or_defer(member.club_id, min(keys))


def club_rebuilt(*, club_id: int) -> None:
    PairTotal.objects.filter(club_id=club_id).delete()
    SeatTotal.objects.filter(club_id=club_id).delete()
    counting = Counting(list(Season.objects.filter(club_id=club_id)))
    rows = Result.objects.filter(club_id=club_id, counted=True, member__fill_in=False)
    pairs, seats = pair_and_seat_deltas([], _rows(rows), counting)
    _insert(club_id, pairs, seats)
    replay(club_id, None)
