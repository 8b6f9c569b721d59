"""The rules pages: the versions, a new version with its worked example, and re-settling the games
a version governs."""

from __future__ import annotations

import datetime
import hashlib
import json
from dataclasses import dataclass

from django.contrib import messages
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

import scoring
from league.access import club_for
from league.core import clock
from league.core import errors as core_errors
from league.core import format as jancho
from league.core.errors import problem_message
from league.jobs import job_state
from league.models import Club, ResettleRun, RulesVersion
from league.rules import services as rules_services
from league.rules import tasks as rules_tasks
from league.rules.forms import RulesForm, hand_options_initial, rules_initial, rules_summary
from league.rules.presets import hand_preset_label, preset_label
from league.web import add_errors
from scoring.hand_options import HandOptions, default_hand_options


@require_GET
def rules_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    versions = list(
        RulesVersion.objects.filter(club=club)
        .annotate(game_count=Count("games"))
        .order_by("-effective_from")
    )
    today = clock.today()
    in_force = next((v for v in versions if v.effective_from <= today), None)
    # Each version's settlement rules, then its hand options (issue 40: every hand rule shown).
    rows = [
        (v, [*rules_summary(v.rules), *_hand_summary(v.hand_options.to_json()).items()])
        for v in versions
    ]
    return render(
        request,
        "league/rules/rules_list.html",
        {"club": club, "rows": rows, "in_force": in_force, "today": today},
    )


def _base_rules(club: Club, choice: str) -> tuple[str, dict[str, object], str, HandOptions]:
    """What a new version starts from: ("current" or a preset's name, its rules, its preset, its
    hand options: the current version's, or the preset's)."""
    if choice not in scoring.PRESETS:
        current = RulesVersion.in_force(club, clock.today())
        current = current or RulesVersion.objects.filter(club=club).first()
        if current is not None:
            return "current", current.rules_json, current.preset, current.hand_options
        choice = next(iter(scoring.PRESETS))  # a new club: its first rules come from a preset
    rules = scoring.PRESETS[choice].rules
    return choice, rules.to_json(), choice, default_hand_options(choice, rules.players)


@dataclass(frozen=True)
class _Preset:
    name: str
    label: str
    description: str


@dataclass(frozen=True)
class RulesCheck:
    """What saving a new version would change: the lines of the rules that differ from the
    version in force on its date, and how many recorded games would then settle differently."""

    token: str  # the confirmation names exactly these rules from this date
    changes: list[tuple[str, str, str]]  # label, before ("" for a first version), after
    games: int  # recorded games from this date that the new rules would settle differently
    failing: int  # recorded games from this date that the new rules cannot settle


def _check_token(effective_from: object, rules: scoring.Rules, hand: object = None) -> str:
    text = json.dumps(
        [str(effective_from), rules.to_json(), hand], sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _hand_summary(options: dict[str, object]) -> dict[str, str]:
    form = RulesForm()
    lines = {}
    for name, value in options.items():
        field = form.fields[f"hand_{name}"]
        if isinstance(value, bool):
            lines[str(field.label)] = _("yes") if value else _("no")
        elif isinstance(value, int):  # a number of the hand rules (points)
            lines[str(field.label)] = f"{value:,}"
        elif name == "preset":
            lines[str(field.label)] = hand_preset_label(str(value))
        else:
            lines[str(field.label)] = str(dict(field.choices).get(value, value))  # type: ignore[attr-defined]
    return lines


def rules_check(
    club: Club,
    effective_from: datetime.date,
    rules: scoring.Rules,
    hand: dict[str, object] | None = None,
) -> RulesCheck:
    before = RulesVersion.in_force(club, effective_from)
    old = dict(rules_summary(before.rules)) if before else {}
    new = dict(rules_summary(rules))
    if hand is not None:
        new |= _hand_summary(hand)
        if before is not None:
            old |= _hand_summary(before.hand_options.to_json())
    changes = [(label, old.get(label, ""), value) for label, value in new.items()]
    changes += [(label, value, "") for label, value in old.items() if label not in new]
    unsaved = RulesVersion(club=club, effective_from=effective_from, rules_json=rules.to_json())
    preview = rules_services.resettle_preview(version=unsaved)
    return RulesCheck(
        token=_check_token(effective_from, rules, hand),
        changes=[c for c in changes if c[1] != c[2]],
        games=sum(1 for change in preview if change.changed),
        failing=sum(1 for change in preview if change.after is None),
    )


@require_http_methods(["GET", "POST"])
def rules_new(request: HttpRequest, slug: str) -> HttpResponse:
    """The rules form. Saving takes two steps: the first shows what would change (field by field
    against the rules in force on that date, and how many recorded games would settle
    differently); the second, confirming exactly those rules, saves them."""
    club = club_for(request, slug, organiser=True)
    base, base_json, preset, hand_options = _base_rules(club, request.GET.get("from", ""))
    initial = {
        **rules_initial(base_json),
        **hand_options_initial(hand_options),
        "preset": preset,
        "effective_from": clock.today(),
    }
    form = RulesForm(request.POST or None, initial=initial)
    check = None
    if request.method == "POST" and form.is_valid():
        assert form.rules is not None
        effective_from = form.cleaned_data["effective_from"]
        hand = form.hand_options_json()
        if request.POST.get("confirm") != _check_token(effective_from, form.rules, hand):
            check = rules_check(club, effective_from, form.rules, hand)
        else:
            check = None
    if request.method == "POST" and form.is_valid() and check is None:
        assert form.rules is not None
        try:
            version = rules_services.rules_version_create(
                club=club,
                user=request.user,
                effective_from=form.cleaned_data["effective_from"],
                rules_json=form.rules.to_json(),
                preset=form.cleaned_data["preset"],
                note=form.cleaned_data["note"],
                hand_options=form.hand_options_json(),
            )
        except core_errors.ServiceError as e:
            add_errors(form, e)
        else:
            _rules_created_messages(request, club, version)
            return redirect("rules:rules_list", club.slug)
    context = {
        "club": club,
        "form": form,
        "base": base,
        "presets": [_Preset(p.name, *preset_label(p.name)) for p in scoring.PRESETS.values()],
        "has_current": RulesVersion.objects.filter(club=club).exists(),
        "check": check,
        "example_seats": _example_seats(form),
        "preset_label": preset_label(form["preset"].value() or "")[0],
    }
    return render(request, "league/rules/rules_form.html", context)


def _example_seats(form: RulesForm) -> list[tuple[str, str]]:
    """The example's seats (wind, final points): what was sent back, else the usual points for
    the form's number of players (4 boxes always; the script hides the 4th for 3 players)."""
    try:
        players = int(form["players"].value())
    except (TypeError, ValueError):
        players = 4
    defaults = EXAMPLE_POINTS.get(players, EXAMPLE_POINTS[4])
    seats = []
    for i in range(4):
        sent = form.data.get(f"example_{i}") if form.is_bound else None
        value = sent if sent is not None else (f"{defaults[i]}" if i < len(defaults) else "")
        seats.append((str(jancho.SEAT_WINDS[i]), value))
    return seats


@require_http_methods(["POST"])
def rules_example(request: HttpRequest, slug: str) -> JsonResponse:
    """The rules form's worked example: one hanchan settled under the rules as they stand in the
    form (not saved), so the organiser sees what a rule does before saving it.

    Takes the form's fields and example_0 … example_3 (final points); answers {"players": […],
    "rate": …} or {"errors": […]} naming what the form must fix first."""
    club_for(request, slug, organiser=True)
    form = RulesForm(request.POST)
    form.fields["effective_from"].required = False  # the example does not depend on the date
    if not form.is_valid() or form.rules is None:
        errors = [
            f"{form[name].label}: {message}"
            if name in form.fields and name != "__all__"
            else message
            for name, field_errors in form.errors.items()
            for message in field_errors
        ]
        return JsonResponse({"errors": errors[:5]})
    rules = form.rules
    points = []
    for seat in range(rules.players):
        try:
            points.append(scoring.parse_integer(request.POST.get(f"example_{seat}", "")))
        except ValueError:
            return JsonResponse({"errors": [_("Enter the example's final points as numbers.")]})
    return example_response(rules, points)


def example_points(rules: scoring.Rules) -> list[int]:
    """The usual example points for `rules`: EXAMPLE_POINTS moved to its start points."""
    defaults = EXAMPLE_POINTS.get(rules.players, EXAMPLE_POINTS[4])
    shift = rules.start - sum(defaults) // len(defaults)
    return [p + shift for p in defaults][: rules.players]


def example_response(rules: scoring.Rules, points: list[int]) -> JsonResponse:
    """One hanchan with these final points settled under `rules`, as the worked example's JSON
    (also used by the new club page, league.accounts.views.account)."""
    rate = next(iter(rules.rates), "")
    seats = tuple(scoring.Seat(str(jancho.SEAT_WINDS[i]), p) for i, p in enumerate(points))
    deposits = max(rules.players * rules.start - sum(points), 0)  # riichi sticks left over
    busts = None
    if rules.bust_bonus is not None and rules.bust_bonus.to == "buster":
        # The example's busted players were busted by its top (who busted whom is a fact of
        # the game, not of the rules; this shows what the bonus does).
        top = max(seats, key=lambda seat: seat.points).name
        busts = tuple(
            scoring.Bust(seat.name, top)
            for seat in seats
            if seat.points < 0 or (seat.points == 0 and rules.bust_bonus.at_zero)
        )
    game = scoring.Game(seats=seats, deposits=deposits, rate=rate or None, busts=busts)
    try:
        result = scoring.settle_game(rules, game)
    except scoring.InputError as e:
        return JsonResponse({"errors": [problem_message(p) for p in e.problems][:5]})
    players = [
        {
            "name": p.name,
            "points": jancho.points(p.points),
            "rank": p.rank,
            "score": jancho.score(p.score),
            "yen": jancho.yen(p.yen) if rate else "",
            "sign": jancho.sign_class(p.score),
        }
        for p in result.players
    ]
    return JsonResponse({"players": players, "rate": rate, "deposits": jancho.points(deposits)})


def _rules_created_messages(request: HttpRequest, club: Club, version: RulesVersion) -> None:
    messages.success(
        request,
        _("The rules taking effect on %(date)s were saved.")
        % {"date": f"{version.effective_from:%Y/%m/%d}"},
    )
    count = rules_services.resettle_count(version=version)
    days = rules_services.resettle_day_count(version=version)
    if count or days:
        texts = []
        if count:
            texts.append(
                ngettext(
                    "%(n)s game from this date on is settled under other rules.",
                    "%(n)s games from this date on are settled under other rules.",
                    count,
                )
                % {"n": count}
            )
        if days:  # their money (fees, shūgi) stays as it is until they are re-settled
            texts.append(
                ngettext(
                    "%(n)s day from this date on keeps its money under other rules.",
                    "%(n)s days from this date on keep their money under other rules.",
                    days,
                )
                % {"n": days}
            )
        text = " ".join(texts)
        url = reverse("rules:rules_resettle", args=[club.slug, version.pk])
        messages.warning(
            request, format_html('{} <a href="{}">{}</a>', text, url, _("Re-settle them"))
        )


SHOWN_DAYS = 60  # days listed in the preview (every day is counted)
SHOWN_MONEY_DAYS = 30  # days whose money is shown player by player


@require_http_methods(["GET", "POST"])
def rules_resettle(request: HttpRequest, slug: str, version_id: int) -> HttpResponse:
    """The summarised preview of re-settling the games a version governs (counts and totals per
    season and day, the largest movements, the days' money); an organiser's confirmation queues
    it for a worker (league.rules.tasks.resettle_run) and shows its progress."""
    # Everyone in the club may look at what would change; only organisers apply it.
    club = club_for(request, slug, organiser=request.method == "POST")
    version = get_object_or_404(RulesVersion, pk=version_id, club=club)
    running = rules_services.resettle_running(club_id=club.pk)
    if request.method == "POST":
        if running is not None:  # one re-settle of a club at a time
            return redirect("rules:rules_resettle_run", club.slug, running.pk)
        # Only what the preview showed is applied: a concurrent re-settle or edit is refused
        # with a message, never a server error.
        expected = request.POST.get("expected", "")[:100]  # a SHA-256 digest
        if rules_services.resettle_key_now(version=version) != expected:
            messages.error(request, str(rules_services.RESETTLE_CHANGED))
            return redirect("rules:rules_resettle", club.slug, version.pk)
        run = rules_tasks.resettle_start(version=version, user=request.user)
        return redirect("rules:rules_resettle_run", club.slug, run.pk)
    summary = rules_services.resettle_summary(version=version)
    days = rules_services.resettle_days(version=version, changes=summary.moved)
    context = {
        "club": club,
        "version": version,
        "summary": summary,
        "expected": summary.key,
        "day_lines": summary.days[:SHOWN_DAYS],
        "hidden_days": max(len(summary.days) - SHOWN_DAYS, 0),
        "days": days[:SHOWN_MONEY_DAYS],
        "hidden_money_days": max(len(days) - SHOWN_MONEY_DAYS, 0),
        "running": running,
    }
    return render(request, "league/rules/rules_resettle.html", context)


@require_GET
def rules_resettle_run(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """How a re-settle stands, from any app server: waiting, how far, done, or stopped."""
    club = club_for(request, slug)
    run = get_object_or_404(
        ResettleRun.objects.select_related("version", "job"), pk=run_id, club=club
    )
    context = {"club": club, "run": run, "state": job_state(run.job)}
    return render(request, "league/rules/rules_resettle_run.html", context)


# The worked example's final points, by the number of players: 4 × 25,000 and 3 × 35,000, the
# usual starts, with hundreds that show what the rounding does.
EXAMPLE_POINTS = {4: [48300, 31200, 15600, 4900], 3: [52300, 35200, 17500]}
