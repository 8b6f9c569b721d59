"""The read pages: a user's clubs, a club's home, a day with its running totals, one game."""

from __future__ import annotations

import datetime

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from league.access import club_for, club_page, day_for, shared_part
from league.core import clock
from league.models import Club, Game, RulesVersion
from league.models import draw as draw_selectors
from league.recording import breakdown, selectors, services
from league.recording.forms import WINDS
from league.standings import charts
from league.teams import selectors as team_selectors


@require_safe
@login_required
def home(request: HttpRequest) -> HttpResponse:
    clubs = selectors.user_clubs(user=request.user)
    if len(clubs) == 1:
        return redirect("recording:club_home", clubs[0].slug)
    return render(request, "league/recording/home.html", {"clubs": clubs})


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, asked for by browsers and bookmarks: the icon every page names."""
    return redirect(static("league/favicon.svg"))


@require_safe
def club_home(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    today = clock.today()
    context = {
        "club": club,
        "today": today,
        "today_day": selectors.club_day(club=club, date=today),
        "recent_games": _shown_games(club, selectors.club_recent_games(club=club)),
        "recent_days": selectors.club_recent_days(club=club),
        "running": team_selectors.running_seasons(club_id=club.pk, date=today),
    }
    return render(request, "league/recording/club_home.html", context)


def _shown_games(club: Club, games: list[Game]) -> list[Game]:
    """`games` less those of a round held back (issue 42), for all but the organisers."""
    if club.is_organiser or not games:  # type: ignore[attr-defined]
        return games
    held = set(draw_selectors.held_game_ids(round__day__club=club))
    return [g for g in games if g.pk not in held]


@require_safe
@club_page
def day_detail(request: HttpRequest, slug: str, date: datetime.date) -> HttpResponse:
    club = club_for(request, slug)
    day = day_for(club, date)

    def body() -> str:
        # A round held back (issue 42): its games and their results show to organisers only.
        hidden = draw_selectors.hidden_games(day, organiser=club.is_organiser)  # type: ignore[attr-defined]
        games = [g for g in selectors.day_games(day=day) if g.pk not in hidden]
        ledger = selectors.day_ledger_rows(day=day, hidden=hidden)
        context = {
            "club": club,
            "day": day,
            "held": bool(hidden),
            "games": games,
            "ledger": ledger,
            "ledger_has_yen": any(row["yen"] is not None for row in ledger),
        }
        return render_to_string("league/recording/_day_body.html", context, request)

    # The day's totals and games: the same for every member, kept until the next write.
    shared = shared_part(request, club, "day", day.pk, build=body)
    version = RulesVersion.in_force(club, day.date)
    context = {
        "club": club,
        "day": day,
        "body": shared,
        # Where an organiser's next game starts from.
        "last_by_table": selectors.day_table_heads(day=day) if club.is_organiser else [],  # type: ignore[attr-defined]
        "has_money": bool(version and version.rules.has_money),
    }
    return render(request, "league/recording/day_detail.html", context)


@require_safe
def game_detail(request: HttpRequest, slug: str, game_id: int) -> HttpResponse:
    club = club_for(request, slug)
    game = selectors.club_game(club=club, game_id=game_id)
    if game is None or game.pk in draw_selectors.hidden_games(
        game.day,
        organiser=club.is_organiser,  # type: ignore[attr-defined]
    ):
        raise Http404
    seats = sorted(game.current_results, key=lambda r: r.seat)  # type: ignore[attr-defined]
    names = [r.member.name for r in seats]
    hands, hands_key = selectors.game_hands(game=game, names=names)
    context = {
        "club": club,
        "game": game,
        "history": selectors.game_history(game=game),
        "breakdown": _game_breakdown(game),
        "hands": hands,
        "hands_key": hands_key,
        "hand_names": names,
        "hands_chart": _hands_chart(hands, names) if hands else "",
    }
    return render(request, "league/recording/game_detail.html", context)


def _hands_chart(hands: list[selectors.HandRow], names: list[str]) -> str:
    """Each player's points over the hands (charts.line_chart; y in hundreds of points, which is
    the chart's tenths of 1,000), from the start to the last hand."""
    start = [s - d for s, d in zip(hands[0].scores, hands[0].deltas, strict=True)]
    series = [
        (name, [(0, start[i] // 100)] + [(h.index + 1, h.scores[i] // 100) for h in hands])
        for i, name in enumerate(names)
    ]
    step = max(1, -(-len(hands) // 6))  # six labels at most: "南3-1" is wide on a phone
    labels = [(h.index + 1, h.label) for h in hands[::step]]
    return charts.line_chart(
        series,
        title=_("Points over the hands"),
        x_labels=labels,
        end_labels=names,
        markers=True,
        right=56,
    )


def _game_breakdown(game: Game) -> breakdown.Breakdown | None:
    """How each score of the game's current revision came about (settled again: a few
    microseconds, no query)."""
    result = services.game_settled_again(game=game)
    if result is None:
        return None
    seats = sorted(game.current_results, key=lambda r: r.seat)  # type: ignore[attr-defined]
    return breakdown.breakdown(result, [r.member.name for r in seats], WINDS[: len(seats)])
