"""A player's page (statistics, games and charts over a season or all time) and a season's race."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import dateformat
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_safe

from league.access import club_for, club_page, results_page
from league.core.format import average, hundredths, percent, score, sign_class, yen
from league.models import Club, Member, Season
from league.standings import charts, stats
from league.standings import selectors as aggregate_selectors
from league.standings.tables import Shown
from league.standings.views import stats as views_stats

GAMES_SHOWN = 100  # the player's latest games listed; the statistics and the chart cover them all
CHART_GAMES = 300  # up to this many games the chart has a point per game; beyond, one per day
CHART_POINTS = 200  # at most this many days' points on a long history's chart
# The standings page's words (league.standings.tables), so that both pages read the same.
RANK_NAMES = (gettext_lazy("1st"), gettext_lazy("2nd"), gettext_lazy("3rd"), gettext_lazy("4th"))


# --- the period and the club's rules -----------------------------------------------------------


def _chosen_season(request: HttpRequest, seasons: Sequence[Season]) -> Season | None:
    """The season of `?season=` among the club's (404 for another club's or a bad id), or None."""
    wanted = request.GET.get("season")
    if not wanted:
        return None
    for season in seasons:
        if str(season.pk) == wanted:
            return season
    raise Http404


def _shown(club: Club, start: datetime.date | None, end: datetime.date | None) -> Shown:
    """The optional statistics, as on the standings page (the rules in force in the period)."""
    return Shown.for_rules(stats.rules_between(stats.rules_versions(club=club), start, end))


def _date_labels(dates: Sequence[datetime.date]) -> list[tuple[int, str]]:
    """The x axis of a chart whose point i (from 1) is after `dates[i - 1]`: the first and last."""
    if not dates:
        return []
    first = [(1, dateformat.format(dates[0], "n/j"))]
    return first if len(dates) == 1 else [*first, (len(dates), dateformat.format(dates[-1], "n/j"))]


# --- the player's page ------------------------------------------------------------------------


@dataclass(frozen=True)
class Stat:
    label: str
    text: str
    css: str = ""


def _stats(row: dict[str, Any], shown: Shown, extra: dict[str, int] | None = None) -> list[Stat]:
    """The standings row's statistics as the standings page writes them; `extra` the 飛ばした回数
    and 焼き鳥 counts (stats.bust_counts) where the rules have them."""
    items = [
        Stat(_("Games"), str(row["games"])),
        Stat(_("Total"), score(row["total"]), sign_class(row["total"])),
        Stat(_("Average"), average(row["average"]), sign_class(row["average"])),
        Stat(_("Avg. rank"), hundredths(row["avg_rank"])),
        Stat(_("Top two %"), percent(row["top_two_rate"])),
        Stat(_("Not last %"), percent(row["avoid_last_rate"])),
        Stat(_("Best"), score(row["best"]), sign_class(row["best"])),
        Stat(_("Busts"), str(row["busts"])),
        Stat(_("Chombo"), str(row["chombo"])),
    ]
    if extra and shown.busts_caused:
        items.append(Stat(_("Players busted"), str(extra["busts_caused"])))
    if extra and shown.yakitori:
        items.append(Stat(_("Yakitori"), str(extra["yakitori"])))
    if shown.chips:
        items.append(Stat(_("Chips"), str(row["chips"]), sign_class(row["chips"])))
    if shown.yen:
        items.append(Stat(_("Yen"), yen(row["yen"]), sign_class(row["yen"])))
    return items


def _rank_chart(row: dict[str, Any] | None, shown: Shown) -> SafeString:
    keys = ("first", "second", "third", "fourth")[: 4 if shown.fourth else 3]
    bars = [
        charts.Bar(
            label=str(name),
            value=row[key] if row else 0,
            text=f"{row[key]} ({percent(row[key + '_rate'])})" if row else "",
        )
        for name, key in zip(RANK_NAMES, keys, strict=False)
    ]
    summary = ", ".join(f"{bar.label}: {bar.text}" for bar in bars if row)
    title = _("Ranks") + (f": {summary}" if summary else "")
    return charts.bar_chart(bars, title=title)


def _cumulative(history: Sequence[tuple[datetime.date, int]]) -> list[charts.Point]:
    """The running total after each game (x = the game's index from 1), from 0 before the first."""
    points, total = [(0, 0)], 0
    for i, (_date, game_score) in enumerate(history, start=1):
        total += game_score
        points.append((i, total))
    return points


def _score_chart(
    points: Sequence[charts.Point], dates: Sequence[datetime.date], by_day: bool = False
) -> SafeString:
    if not dates:
        return charts.line_chart([], title=_("Cumulative score"))
    games, total = points[-1]
    title = ngettext(
        "Cumulative score: %(total)s after %(games)d game",
        "Cumulative score: %(total)s after %(games)d games",
        games,
    ) % {"total": score(total), "games": games}
    if by_day:  # x is the number of games at each day's end
        x_labels = [(points[1][0], dateformat.format(dates[0], "n/j"))]
        if len(dates) > 1:
            x_labels.append((games, dateformat.format(dates[-1], "n/j")))
    else:
        x_labels = _date_labels(dates)
    return charts.line_chart(
        [(title, points)],
        title=title,
        x_labels=x_labels,
        end_labels=[score(total)],
        markers=games <= 40,
    )


@require_safe
@club_page
@results_page
def player_detail(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    club = club_for(request, slug)
    member = get_object_or_404(Member, club=club, pk=member_id, fill_in=False)  # 黒子: no page
    if member.merged_into_id is not None:  # an old link to a merged record: the one that stayed
        address = reverse("standings:player_detail", args=[club.slug, member.merged_into_id])
        query = request.GET.urlencode()
        return redirect(f"{address}?{query}" if query else address)
    seasons = list(Season.objects.filter(club=club))
    season = _chosen_season(request, seasons)
    start, end = (season.start, season.end) if season else (None, None)
    shown = _shown(club, start, end)

    # One row of the standings query: the same numbers as the standings page, by construction.
    row = (
        stats.standings(
            club=club,
            start=start,
            end=end,
            min_games=season.min_games if season else 0,
            seasons=seasons,
        )
        .filter(member=member.pk)
        .first()
    )
    results = stats.counted_results(club=club, start=start, end=end).filter(member=member)
    if row is not None and row["games"] > CHART_GAMES:
        # A long history: the chart's points are the ends of the days played (kept totals),
        # at most CHART_POINTS of them, so the page costs the same at any length.
        kept = aggregate_selectors.member_day_points(
            member=member, start=start, end=end, points=CHART_POINTS
        )
        cumulative = [(0, 0), *((games, total) for _date, games, total in kept)]
        dates = [date for date, _games, _total in kept]
        score_chart = _score_chart(cumulative, dates, by_day=True)
    else:
        history = list(results.order_by("date", "game__number").values_list("date", "score"))
        cumulative = _cumulative(history)
        score_chart = _score_chart(cumulative, [date for date, _score in history])
    games = list(results.select_related("game").order_by("-date", "-game__number")[:GAMES_SHOWN])
    context = {
        "club": club,
        "member": member,
        "seasons": seasons,
        "season": season,
        "row": row,
        "stats": _stats(row, shown, _bust_counts(club, member, start, end, shown)) if row else [],
        "shown": shown,
        "games": games,
        "games_capped": row is not None and row["games"] > len(games),
        "cumulative": cumulative,
        "score_chart": score_chart,
        "rank_chart": _rank_chart(row, shown),
        "hand_stats": _hand_stats(
            aggregate_selectors.hand_stats(member=member, start=start, end=end)
        ),
        **views_stats.player_sections(club=club, member=member, season=season),
    }
    return render(request, "league/standings/player_detail.html", context)


def _hand_stats(h: dict[str, Any] | None) -> dict[str, Any] | None:
    """The statistics of the games recorded hand by hand (league.table), as the page writes them."""
    if h is None:
        return None
    items = [
        Stat(_("Games with hands"), str(h["games"])),
        Stat(_("Hands"), str(h["hands"])),
        Stat(_("Win %"), percent(h["win_rate"])),
        Stat(_("Deal-in %"), percent(h["deal_in_rate"])),
        Stat(_("Riichi %"), percent(h["riichi_rate"])),
        Stat(_("Called wins %"), percent(h["called_rate"])),
        Stat(_("Avg. win"), yen(h["avg_win"]) if h["avg_win"] is not None else ""),
        Stat(_("Avg. deal-in"), yen(h["avg_deal_in"]) if h["avg_deal_in"] is not None else ""),
        Stat(_("Tenpai at draws %"), percent(h["draw_tenpai_rate"])),
        Stat(_("Ippatsu"), str(h["ippatsu"])),
        Stat(_("Yakuman"), str(h["yakuman"])),
    ]
    return {"items": items, "yaku": h["yaku"]}


def _bust_counts(
    club: Club, member: Member, start: datetime.date | None, end: datetime.date | None, shown: Shown
) -> dict[str, int] | None:
    """One query, and only for clubs whose rules have 飛び賞 to the buster or 焼き鳥."""
    if not (shown.busts_caused or shown.yakitori):
        return None
    return stats.bust_counts(club=club, members=[member], start=start, end=end)[member.pk]


# --- the season's race ------------------------------------------------------------------------


@dataclass(frozen=True)
class Runner:
    member_id: int
    games: int
    line: list[int]  # the cumulative score at the end of each of the season's days

    @property
    def total(self) -> int:
        return self.line[-1]


def _runners(rows: Sequence[dict[str, Any]]) -> tuple[list[datetime.date], list[Runner]]:
    """The season's days and each player's running total, from rows of (member, date) sums."""
    days: list[datetime.date] = []
    daily: dict[int, dict[int, int]] = {}
    games: dict[int, int] = {}
    for row in rows:  # ordered by date
        if not days or days[-1] != row["date"]:
            days.append(row["date"])
        daily.setdefault(row["member"], {})[len(days) - 1] = row["score"]
        games[row["member"]] = games.get(row["member"], 0) + row["games"]
    runners = []
    for member_id, scores in daily.items():
        running, line = 0, []
        for day in range(len(days)):
            running += scores.get(day, 0)
            line.append(running)
        runners.append(Runner(member_id, games[member_id], line))
    return days, runners


def _short_name(name: str) -> str:
    """A name short enough for a line's end: the family name, at most four characters."""
    first = name.split()[0] if name.split() else name
    return first if len(first) <= 4 else first[:3] + "…"


def _race_chart(
    runners: Sequence[Runner], members: dict[int, Member], days: Sequence[datetime.date]
) -> SafeString:
    names = [members[r.member_id].name for r in runners]
    return charts.line_chart(
        [
            (name, [(0, 0), *enumerate(r.line, start=1)])
            for name, r in zip(names, runners, strict=True)
        ],
        title=_("Cumulative score of each player by day"),
        x_labels=_date_labels(days),
        end_labels=[_short_name(name) for name in names],
        height=320,
        right=52,
    )


@require_safe
@club_page
@results_page
def season_race(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug)
    season = get_object_or_404(Season, club=club, pk=season_id)
    context = {"club": club, "season": season, **race(club=club, season=season)}
    return render(request, "league/standings/season_race.html", context)


def race(*, club: Club, season: Season) -> dict[str, Any]:
    """The race page's chart and legend (also the public page's, league.public): two queries."""
    rows = aggregate_selectors.race_rows(club=club, season=season)
    days, runners = _runners(list(rows))
    qualified = [r for r in runners if r.games >= season.min_games]
    everyone = bool(runners) and not qualified  # nobody has the minimum yet: show everyone
    shown = runners if everyone else qualified
    members = Member.objects.filter(club=club, pk__in=[r.member_id for r in shown]).in_bulk()
    # The leaders first: they get the solid lines, the first labels and the top of the legend.
    shown.sort(key=lambda r: (-r.total, members[r.member_id].kana, members[r.member_id].name))
    return {
        "runners": shown,
        "legend": [(members[r.member_id], r.total, charts.swatch(i)) for i, r in enumerate(shown)],
        "everyone": everyone,
        "chart": _race_chart(shown, members, days),
    }
