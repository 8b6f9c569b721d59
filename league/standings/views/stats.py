"""The statistics pages: a season's head-to-head matrix, the rating ranking, the club by seat and
the club's records; and the player page's head-to-head, seat and rating sections.

Every page reads rows kept at write time (league.models.stats, league.models.totals): a fixed
number of queries, one row per member (or pair of members) at most, whatever the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import dateformat
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from league.access import club_for, club_page, results_page
from league.core.format import rating as rating_text
from league.core.format import score, sign_class
from league.models import Club, Member, MemberGame, Season
from league.models.rules import club_has_money
from league.standings import charts
from league.standings import selectors as kept
from league.standings.rating import MICRO, Z
from league.standings.views.standings import season_leaders
from league.teams.selectors import with_teams

EXPECTED_SHOWN = 10  # the latest games listed with their expected and actual place


def _tenths(millionths: int) -> int:
    """A rating in tenths, rounded half up (also below zero), for the chart."""
    sign = -1 if millionths < 0 else 1
    return sign * ((abs(millionths) * 10 + MICRO // 2) // MICRO)


def _plain(tenths: int) -> str:
    return rating_text(tenths * MICRO // 10)


def rating_chart(history: Sequence[MemberGame]) -> SafeString:
    """μ and the ordinal (μ − 3σ) after each of the games (x: the member's n-th game)."""
    if not history:
        return charts.line_chart([], title=_("Rating"), y_text=_plain)
    mu = [(history[0].n - 1, _tenths(history[0].mu_before))]
    ordinal = [(history[0].n - 1, _tenths(history[0].mu_before - Z * history[0].sigma_before))]
    for g in history:
        mu.append((g.n, _tenths(g.mu)))
        ordinal.append((g.n, _tenths(g.mu - Z * g.sigma)))
    last = history[-1]
    title = _("Rating after %(games)d games: μ %(mu)s ± σ %(sigma)s, ordinal %(ordinal)s") % {
        "games": last.n,
        "mu": rating_text(last.mu),
        "sigma": rating_text(last.sigma),
        "ordinal": rating_text(last.mu - Z * last.sigma),
    }
    x_labels = [(mu[0][0], dateformat.format(history[0].date, "n/j"))]
    if len(history) > 1:
        x_labels.append((last.n, dateformat.format(last.date, "n/j")))
    return charts.line_chart(
        [(_("μ"), mu), (_("Ordinal (μ − 3σ)"), ordinal)],
        title=title,
        x_labels=x_labels,
        end_labels=[_("μ"), _("ordinal")],
        markers=len(history) <= 40,
        y_text=_plain,
    )


def player_sections(*, club: Club, member: Member, season: Season | None) -> dict[str, Any]:
    """The player page's head-to-head and seats (the page's period) and rating (all time)."""
    history = kept.rating_history(member=member)
    last = history[-1] if history else None  # the member's latest game: the rating now
    return {
        "head_to_head": kept.head_to_head(member=member, season=season),
        "seats": kept.seat_rows(club=club, season=season, member=member),
        "rating": last,
        "rating_ordinal": last.mu - Z * last.sigma if last else None,
        "rating_rank": kept.rating_rank_of(club=club, rated=last) if last else None,
        "rating_chart": rating_chart(history),
        "expected": [
            {
                "game_id": g.game_id,
                "date": g.date,
                "number": g.number,
                "expected": g.expected,
                "rank": g.rank,
                "mu": g.mu,
                # better than expected by half a place or more: plus; worse: minus
                "css": sign_class((g.expected - g.rank * 100) // 50),
            }
            for g in reversed(history[-EXPECTED_SHOWN:])
        ],
        "rating_url": reverse("standings:rating_list", args=[club.slug]),
        "rating_pending": kept.rating_pending(club=club),
    }


def _chosen_season(request: HttpRequest, club: Club) -> Season | None:
    wanted = request.GET.get("season")
    if not wanted:
        return None
    try:
        return Season.objects.get(club=club, pk=int(wanted))
    except (ValueError, Season.DoesNotExist):
        raise Http404 from None


SELF_CELL = '<td class="self"></td>'
UNMET_CELL = '<td class="muted num">–</td>'


def _matrix_rows(regulars: Sequence[Member], cells: dict[tuple[int, int], Any]) -> list[SafeString]:
    """Every row's cells of the matrix, formatted here: a 40-player matrix is 1,600 cells, too
    many for the template language (or format_html per cell) to render quickly. Names are
    escaped once; everything else written is a number or a fixed class."""
    names = {m.pk: escape(m.name) for m in regulars}
    games_texts: dict[int, str] = {}
    rows = []
    for me in regulars:
        parts = []
        for them in regulars:
            pair, back = cells.get((me.pk, them.pk)), cells.get((them.pk, me.pk))
            if them == me:
                parts.append(SELF_CELL)
            elif pair is None or back is None:
                parts.append(UNMET_CELL)
            else:
                if pair.games not in games_texts:
                    games_texts[pair.games] = escape(games_text(pair.games))
                parts.append(
                    f'<td class="num {sign_class(pair.net)}" title="{names[me.pk]} – '
                    f'{names[them.pk]}: {games_texts[pair.games]}">{escape(score(pair.net))}'
                    f'<br><span class="muted">{pair.above}–{back.above}</span></td>'
                )
        rows.append(mark_safe("".join(parts)))  # names and texts escaped above
    return rows


def games_text(games: int) -> str:
    return ngettext("%(games)s game", "%(games)s games", games) % {"games": games}


def matrix_context(*, club: Club, season: Season, row: str | None) -> dict[str, Any]:
    """The season's matrix and the one row a phone shows (?row=member id; the first regular)."""
    regulars, cells = kept.season_matrix(club=club, season=season)
    chosen = 0
    if row:
        ids = [str(m.pk) for m in regulars]
        if row not in ids:
            raise Http404
        chosen = ids.index(row)
    focus = None
    if regulars:
        me = regulars[chosen]
        focus = (
            me,
            [
                (them, cells.get((me.pk, them.pk)), cells.get((them.pk, me.pk)))
                for them in regulars
                if them != me
            ],
        )
    return {
        "regulars": regulars,
        "grid": list(zip(regulars, _matrix_rows(regulars, cells), strict=True)),
        "focus": focus,
        "previous": regulars[chosen - 1] if regulars and chosen > 0 else None,
        "next": regulars[chosen + 1] if chosen + 1 < len(regulars) else None,
    }


@require_safe
@club_page
@results_page
def season_matrix(request: HttpRequest, slug: str, season_id: int) -> HttpResponse:
    club = club_for(request, slug)
    season = get_object_or_404(Season, club=club, pk=season_id)
    context = {
        "club": club,
        "season": season,
        **matrix_context(club=club, season=season, row=request.GET.get("row")),
    }
    return render(request, "league/standings/season_matrix.html", context)


@require_safe
@club_page
@results_page
def rating_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    ranked, others = kept.rating_ranking(club=club)
    context = {
        "club": club,
        "ranked": ranked,
        "others": others,
        "rating_pending": kept.rating_pending(club=club),
    }
    return render(request, "league/standings/rating_list.html", context)


@require_safe
@club_page
@results_page
def club_seats(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    season = _chosen_season(request, club)
    context = {
        "club": club,
        "season": season,
        "seasons": list(Season.objects.filter(club=club)),
        "seats": kept.seat_rows(club=club, season=season),
    }
    return render(request, "league/standings/club_seats.html", context)


# The latest seasons' winners and most games (the standings page lists every season's leader)
WINNERS_SHOWN = 12


def records_context(*, club: Club) -> dict[str, Any]:
    seasons = list(
        with_teams(Season.objects.filter(club=club)).order_by("-start", "-pk")[:WINNERS_SHOWN]
    )
    leaders = season_leaders(club=club, seasons=seasons)
    return {
        **kept.records(club=club, seasons=seasons),
        "season_winners": [(s, leaders[s.pk]) for s in seasons],
    }


@require_safe
@club_page
@results_page
def records(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    context = {"club": club, "show_money": club_has_money(club=club), **records_context(club=club)}
    return render(request, "league/standings/records.html", context)
