"""Recording a hanchan at the table: one screen, one confirmation (preview), then save.

Also correcting a game (a new revision) and voiding one. Organisers only; every game is looked
up inside the club from the URL, so another club's game is a 404 like a missing one.
"""

from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from league import limits
from league.access import club_for
from league.core.clock import parse_date, today
from league.core.errors import ServiceError
from league.models import Club, Game, Member, Result, RulesVersion, ScorePhoto, TeamMatch
from league.recording import breakdown, photos, services
from league.recording.forms import CHIP_ROWS, WINDS, GameForm, VoidForm
from league.recording.services import GameInput, Preview
from league.web import add_errors


@dataclass(frozen=True)
class PreviewRow:
    wind: str
    member: Member
    points: int
    chombo: int
    rank: int
    score: int
    chips: int
    yen: int | None
    busted_by: str = ""  # the wind of whoever busted this player (飛び賞), as entered
    yakitori: bool = False


def _preview_rows(preview: Preview, form: GameForm) -> list[PreviewRow]:
    data = form.cleaned_data
    rows = []
    for i, (m, p) in enumerate(zip(preview.members, preview.result.players, strict=True)):
        by = data.get(f"busted_by_{i}")
        rows.append(
            PreviewRow(
                WINDS[i],
                m,
                p.points,
                p.chombo,
                p.rank,
                p.score,
                p.chips,
                p.yen,
                busted_by=WINDS[by] if by is not None else "",
                yakitori=bool(data.get(f"yakitori_{i}")),
            )
        )
    return rows


def _breakdown(preview: Preview) -> breakdown.Breakdown | None:
    names = [m.name for m in preview.members]
    return breakdown.breakdown(preview.result, names, WINDS[: len(names)])


def _date_or_today(text: str) -> datetime.date:
    try:
        return parse_date(text)
    except ValueError:
        return today()


def _rules_version(club: Club, date: datetime.date) -> RulesVersion | None:
    """The version in force on `date`; before the club's first version, that first one (the
    form can still be shown, and the service reports the date as having no rules)."""
    return (
        RulesVersion.in_force(club, date)
        or RulesVersion.objects.filter(club=club).order_by("effective_from").first()
    )


def _members(
    club: Club, seated: GameInput | None = None
) -> tuple[list[Member], list[Member], list[Member]]:
    """(offered, inactive, merged): the active members, and on an edit whoever already sits
    there; the inactive others, who are found when typed but offered to be brought back; the
    records merged into another, whose names find the survivor (one query)."""
    sitting = {s.member.pk for s in seated.seats} if seated is not None else set()
    offered, inactive, merged = [], [], []
    for member in Member.objects.filter(club=club):
        if member.merged_into_id is not None:  # never offered: its name finds the survivor
            merged.append(member)
            continue
        (offered if member.is_active or member.pk in sitting else inactive).append(member)
    return offered, inactive, merged


def _wants_save(request: HttpRequest) -> bool:
    # Anything but an explicit "save" (e.g. Enter in a field) only previews.
    return request.POST.get("action") == "save"


def _new_players(form: GameForm) -> services.NewPlayers:
    return services.NewPlayers(guests=form.guest_names(), reactivate=form.reactivations())


DUPLICATE_UNCONFIRMED = gettext_lazy(
    "Tick the box to save a game with the same result as one already saved."
)
RATE_UNCONFIRMED = gettext_lazy("Tick the box to save the game at this rate.")


def _record(request: HttpRequest, club: Club, form: GameForm) -> Game:
    return services.game_save_new(
        club=club,
        user=request.user,
        data=form.game_input(),
        new=_new_players(form),
        draw_table=limits.row_id(request.GET.get("draw_table", "")),
        confirm_duplicate=form.cleaned_data["confirm_duplicate"],
        confirm_rate=form.cleaned_data["confirm_rate"],
        team_match=limits.row_id(request.GET.get("team_match", "")),
    )


def _render_form(
    request: HttpRequest,
    club: Club,
    form: GameForm,
    preview: Preview | None,
    game: Game | None,
    rate_warning: str = "",
    duplicate: Game | None = None,
    score_photo: ScorePhoto | None = None,
) -> HttpResponse:
    return render(
        request,
        "league/recording/game_form.html",
        {
            "club": club,
            "form": form,
            "game": game,
            "preview": _preview_rows(preview, form) if preview else None,
            "preview_has_yen": bool(preview and preview.result.rate),
            "breakdown": _breakdown(preview) if preview else None,
            "rate_warning": rate_warning,
            "duplicate": duplicate,
            "duplicate_message": services.duplicate_message(duplicate) if duplicate else "",
            "table_mode_query": _table_mode_query(request, form),
            "photo_rows": _photo_rows(request, form, score_photo) if score_photo else None,
            "photo": score_photo,
            "photos_available": game is None and score_photo is None and photos.available(),
        },
    )


@dataclass(frozen=True)
class PhotoRow:
    wind: str
    name: str | None
    points: int | None
    checksum: bool
    choices: list[tuple[str, str]]  # (name, the form's address with that name at this seat)


def _photo_initial(request: HttpRequest, score_photo: ScorePhoto, players: int) -> dict[str, str]:
    """The form's seats from what the photo says: the names read (or the ones picked from the
    suggestions, name_<seat>), and the points only when the rows passed the checksum."""
    initial = {}
    for i, row in enumerate(score_photo.rows[:players]):
        name = request.GET.get(f"name_{i}", "")[:50] or row.get("name") or ""
        if name:
            initial[f"member_{i}"] = name
        if score_photo.valid and row.get("points") is not None:
            initial[f"points_{i}"] = f"{row['points']:,}"
    return initial


def _photo_rows(request: HttpRequest, form: GameForm, score_photo: ScorePhoto) -> list[PhotoRow]:
    """Each row read, with buttons for the members its name may be (by name, reading or a close
    match, as a typed name is found) when it is not one member's already."""
    rows = []
    for i, row in enumerate(score_photo.rows[: form.rules.players]):
        name = request.GET.get(f"name_{i}", "") or row.get("name") or ""
        choices = []
        if name:
            try:
                found = form.directory.find(name)
            except forms.ValidationError:
                found = None
            if found is None:
                for close in form.directory.suggest(name):
                    query = request.GET.copy()
                    query[f"name_{i}"] = close
                    choices.append((close, f"?{query.urlencode()}"))
        rows.append(
            PhotoRow(
                WINDS[i], row.get("name"), row.get("points"), bool(row.get("checksum")), choices
            )
        )
    return rows


def _table_mode_query(request: HttpRequest, form: GameForm) -> str:
    """The query of the link to table mode: what the form was opened with (a draw card's table),
    with the date, table, rate and players the form shows (「同じ4人で」 seats a game's four
    again by its id, which table mode does not read)."""
    query = request.GET.copy()
    for name in ("seats", "rotate"):
        query.pop(name, None)
    if not form.is_bound:
        for name, value in form.initial.items():
            if name in ("date", "table", "rate") or name.startswith("member_"):
                query[name] = str(value)
    return query.urlencode()


UNCONFIRMED = (services.DuplicateGame, services.RateDiffers)


def _unconfirmed(
    club: Club,
    form: GameForm,
    error: services.DuplicateGame | services.RateDiffers,
    game: Game | None = None,
) -> Game | None:
    """Saving was refused for repeating a game or for its rate: the preview asks again, the box
    is pointed at. The game repeated, if any (a duplicate already confirmed keeps its box, ticked,
    while the rate is asked)."""
    if isinstance(error, services.DuplicateGame):
        form.add_error("confirm_duplicate", str(DUPLICATE_UNCONFIRMED))
        return error.earlier
    form.add_error("confirm_rate", str(RATE_UNCONFIRMED))
    return services.duplicate_of(club=club, data=form.game_input(), exclude=game)


@require_http_methods(["GET", "POST"])
def game_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    posted = request.method == "POST"
    date = _date_or_today((request.POST if posted else request.GET).get("date", ""))
    version = _rules_version(club, date)
    if version is None:
        messages.error(request, _("Set up the club's rules before recording games."))
        return redirect("rules:rules_list", club.slug)
    offered, inactive, merged = _members(club)
    # 「写真から」: the form filled in from a photo read by a worker (league.recording.photos).
    score_photo = None
    if "photo" in request.GET:
        score_photo = photos.photo_for(club=club, user=request.user, photo_id=request.GET["photo"])
        if score_photo is not None and not photos.photo_read(score_photo):
            score_photo = None
    form = GameForm(
        request.POST if posted else None,
        club=club,
        rules=version.rules,
        members=offered,
        inactive=inactive,
        aliases=merged,
        initial={
            **_next_game_initial(request, club, date, offered),
            # A table's card of the draw opens the form with its players in seat order.
            **{
                f"member_{i}": request.GET[f"member_{i}"][:50]
                for i in range(version.rules.players)
                if f"member_{i}" in request.GET
            },
            **(_photo_initial(request, score_photo, version.rules.players) if score_photo else {}),
        },
    )
    preview = None
    rate_warning = ""
    duplicate = None
    if posted and form.is_valid():
        try:
            if _wants_save(request):
                try:
                    game = _record(request, club, form)
                except UNCONFIRMED as e:
                    duplicate = _unconfirmed(club, form, e)
                    data = form.game_input()
                    preview = services.game_preview(club=club, data=data)
                    return _render_form(
                        request,
                        club,
                        form,
                        preview,
                        None,
                        _rate_warning(club, data),
                        duplicate,
                        score_photo,
                    )
                if score_photo is not None:
                    photos.photo_confirmed(score_photo=score_photo, game=game, user=request.user)
                game.refresh_from_db(fields=["table"])  # the draw's table, when linked to it
                if game.table:
                    saved = _("Game %(number)s at table %(table)s saved.")
                else:
                    saved = _("Game %(number)s saved.")
                messages.success(request, saved % {"number": game.number, "table": game.table})
                if _linked_to_draw(request, club, game):
                    return redirect("draw:draw_day", club.slug, game.date)
                match = TeamMatch.objects.filter(game=game).values_list("season", flat=True)
                if season_id := match.first():
                    return redirect("teams:team_day", club.slug, season_id, game.date)
                return redirect("recording:day_detail", club.slug, game.date)
            data = form.game_input()
            settled = services.game_preview(club=club, data=data)
            services.check_final_table(club=club, data=data)  # said before saving, too
            preview = settled
            rate_warning = _rate_warning(club, data)
            duplicate = services.duplicate_of(club=club, data=data)
        except ServiceError as e:
            form.add_service_error(e)
    return _render_form(request, club, form, preview, None, rate_warning, duplicate, score_photo)


def _next_game_initial(
    request: HttpRequest, club: Club, date: datetime.date, offered: list[Member]
) -> dict[str, object]:
    """The evening goes on: a new game starts at the evening's rate (services.evening_rate: the
    last game's at the table asked for, else the day's last game's, whatever its table), so
    that a second table on a 0.3 evening does not start at 0.2; and at the table of the day's
    last game when none is asked for. ?seats=<game id> seats that game's four again;
    ?rotate=<game id> moves each one seat on (南 becomes 東: the next dealer order), as tables
    do between hanchan. One query, and one more for the seats when they are asked for."""
    initial: dict[str, object] = {"date": f"{date:%Y/%m/%d}", "submission_key": uuid.uuid4()}
    table = request.GET.get("table")
    games = list(
        Game.objects.filter(club=club, date=date, voided=False)
        .order_by("-number")
        .values_list("pk", "table", "rate")
    )
    initial["table"] = table if table is not None else (games[0][1] if games else "")
    # services.evening_rate's rule, over the rows at hand (no second query).
    same_table = [g for g in games if g[1] == initial["table"]] if table is not None else []
    last = (same_table or games or [None])[0]
    if last is not None and last[2]:
        initial["rate"] = last[2]
    source_id = request.GET.get("seats") or request.GET.get("rotate")
    source = next((g for g in games if str(g[0]) == source_id), None)
    if source is not None:
        seated = list(
            Result.objects.filter(game_id=source[0], counted=True)
            .order_by("seat")
            .values_list("member_id", flat=True)
        )
        if request.GET.get("rotate"):
            seated = seated[1:] + seated[:1]
        names = {m.pk: m.name for m in offered}
        for i, pk in enumerate(seated):
            if pk in names:
                initial[f"member_{i}"] = names[pk]
        initial["table"] = source[1]
        if source[2]:
            initial["rate"] = source[2]
    return initial


def _rate_warning(club: Club, data: GameInput, game: Game | None = None) -> str:
    """A rate none of the day's other games were played at is pointed out on the preview, with
    the box that saving it needs (services.check_rate, the one rule). On an edit, only a
    changed rate asks."""
    if game is not None and data.rate == game.rate:
        return ""
    evening = services.rate_differs(club=club, date=data.date, rate=data.rate, exclude=game)
    return services.rate_message(data.rate, evening) if evening else ""


def _linked_to_draw(request: HttpRequest, club: Club, game: Game) -> bool:
    """Whether the game is a table's of the draw (game_record links it, the card it was recorded
    from first): then the draw's page, with its next card, comes next."""
    return game.draw_tables.exists()


def _club_game(club: Club, game_id: int, *prefetch: str) -> Game:
    """A game of this club only: another club's game is a 404 even for an organiser here."""
    games = Game.objects.select_related("rules_version").prefetch_related(*prefetch)
    game = get_object_or_404(games, pk=game_id, club=club)
    game.club = club  # the services read game.club; this saves a query
    return game


@require_http_methods(["GET", "POST"])
def game_edit(request: HttpRequest, slug: str, game_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    game = _club_game(
        club, game_id, "results__member", "chip_events__winner", "chip_events__discarder"
    )
    if game.voided:
        messages.error(request, _("A void game cannot be edited."))
        return redirect("recording:game_detail", club.slug, game.pk)
    stored = services.game_input_from_stored(game)
    posted = request.method == "POST"
    offered, inactive, merged = _members(club, stored)
    form = GameForm(
        request.POST if posted else None,
        club=club,
        rules=game.rules_version.rules,
        members=offered,
        inactive=inactive,
        aliases=merged,
        editing=True,
        chip_rows=max(CHIP_ROWS, len(stored.chips)),
        initial=GameForm.initial_from(stored, revision=game.revision),
    )
    preview = None
    duplicate = None
    rate_warning = ""
    if posted and form.is_valid():
        try:
            if _wants_save(request):
                try:
                    services.game_save_edit(
                        game=game,
                        user=request.user,
                        data=form.game_input(),
                        new=_new_players(form),
                        expected_revision=form.cleaned_data["revision"],
                        confirm_duplicate=form.cleaned_data["confirm_duplicate"],
                        confirm_rate=form.cleaned_data["confirm_rate"],
                    )
                except UNCONFIRMED as e:
                    duplicate = _unconfirmed(club, form, e, game)
                    data = form.game_input()
                    preview = services.game_preview(
                        club=club, data=data, version=game.rules_version, check_date=False
                    )
                    return _render_form(
                        request,
                        club,
                        form,
                        preview,
                        game,
                        _rate_warning(club, data, game),
                        duplicate,
                    )
                messages.success(request, _("Game %(number)s updated.") % {"number": game.number})
                return redirect("recording:game_detail", club.slug, game.pk)
            services.game_check_revision(game=game, expected_revision=form.cleaned_data["revision"])
            data = form.game_input()
            preview = services.game_preview(
                club=club, data=data, version=game.rules_version, check_date=False
            )
            duplicate = services.duplicate_of(club=club, data=data, exclude=game)
            rate_warning = _rate_warning(club, data, game)
        except ServiceError as e:
            form.add_service_error(e)
    return _render_form(request, club, form, preview, game, rate_warning, duplicate)


@require_http_methods(["GET", "POST"])
def game_void(request: HttpRequest, slug: str, game_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    game = _club_game(club, game_id)
    if game.voided:
        messages.error(request, _("This game is already void."))
        return redirect("recording:game_detail", club.slug, game.pk)
    form = VoidForm(
        request.POST if request.method == "POST" else None, initial={"revision": game.revision}
    )
    if form.is_bound and form.is_valid():
        try:
            services.game_void(
                game=game,
                user=request.user,
                reason=form.cleaned_data["reason"],
                expected_revision=form.cleaned_data["revision"],
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("Game %(number)s voided.") % {"number": game.number})
            return redirect("recording:game_detail", club.slug, game.pk)
    results = (
        Result.objects.filter(game=game, revision=game.revision)
        .select_related("member")
        .order_by("seat")
    )
    seats = [(WINDS[r.seat], r) for r in results]
    return render(
        request,
        "league/recording/game_void.html",
        {"club": club, "game": game, "form": form, "seats": seats},
    )
