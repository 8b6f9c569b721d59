"""点数係 on the phone: start a table game, the score display that records each hand, and the
finish: the existing preview, then save.

The score display's page boots static/league/table.js, which keeps the hands in the browser while
the signal is gone and sends them to the typed API (league.api.tables: PUT and DELETE
/api/clubs/<slug>/tables/<key>/hands/<index>, the calculator) with this page's login session and
CSRF token. Organisers only, as recording a game. The phone's points are never read: each hand is
played by the engine on the server (league.table.services).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from league import limits
from league.access import club_for
from league.core.clock import parse_date, today
from league.core.errors import NON_FIELD, ServiceError
from league.jobs import DONE
from league.models import Club, Member, RulesVersion, ScorePhoto, TableGame
from league.recording import breakdown, photos
from league.recording import services as recording
from league.recording.forms import WINDS
from league.recording.services import CONFIRM_RATE
from league.recording.views.photos import PhotoForm
from league.table import offline, services

NOT_SCORER = gettext_lazy(
    "Only the organisers, the evening's scorers and the players at the table can score it."
)


def _table_game(club: Club, key: uuid.UUID) -> TableGame:
    tg = get_object_or_404(TableGame.objects.select_related("rules_version"), club=club, key=key)
    tg.club = club
    return tg


def _version(club: Club, date: Any) -> RulesVersion | None:
    return (
        RulesVersion.in_force(club, date)
        or RulesVersion.objects.filter(club=club).order_by("effective_from").first()
    )


def _evening_rate(club: Club, date: Any, table: str | None, rules: Any) -> str:
    """The rate a new table starts at: the evening's (recording.evening_rate), else the
    rules' first."""
    rate = recording.evening_rate(club=club, date=date, table=table)
    return rate if rate is not None and rate in rules.rates else next(iter(rules.rates), "")


@require_http_methods(["GET", "POST"])
def table_new(request: HttpRequest, slug: str) -> HttpResponse:
    """Start a game: date, table, rate and the players from 起家 (from a draw card, the record
    form, or chosen here). An organiser, the evening's named scorers, or a member seated at the
    table (their own login among the players)."""
    club = club_for(request, slug)
    data = request.POST if request.method == "POST" else request.GET
    try:
        date = parse_date(data.get("date", ""))
    except ValueError:
        date = today()
    version = _version(club, date)
    if version is None:
        messages.error(request, _("Set up the club's rules before recording games."))
        return redirect("rules:rules_list", club.slug)
    rules = version.rules
    members = [m for m in Member.objects.filter(club=club, merged_into=None) if m.is_active]
    by_name = {m.name: m for m in members}
    by_pk = {str(m.pk): m for m in members}
    chosen = []
    for i in range(rules.players):
        value = data.get(f"member_{i}", "")
        chosen.append(by_pk.get(value) or by_name.get(value))
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        try:
            key = uuid.UUID(data.get("key", ""))
        except ValueError:
            key = uuid.uuid4()
        missing = [i for i, m in enumerate(chosen) if m is None]
        if missing:
            errors = {f"member_{i}": [_("Choose a player.")] for i in missing}
        elif not services.may_score(
            club=club,
            user=request.user,  # type: ignore[arg-type]
            date=date,
            seats=[m.pk for m in chosen if m is not None],
            organiser=club.is_organiser,  # type: ignore[attr-defined]
        ):
            errors = {NON_FIELD: [str(NOT_SCORER)]}
        else:
            try:
                tg = services.table_start(
                    club=club,
                    user=request.user,
                    key=key,
                    date=date,
                    members=chosen,  # type: ignore[arg-type]
                    table=data.get("table", "").strip(),
                    rate=data.get("rate", ""),
                    draw_table=limits.row_id(data.get("draw_table", "")),
                    confirm_rate=data.get(CONFIRM_RATE) == "on",
                )
            except ServiceError as e:
                errors = e.errors
            else:
                return redirect("table:table_play", club.slug, tg.key)
    seats = [
        {
            "wind": WINDS[i],
            "name": f"member_{i}",
            "chosen": chosen[i].pk if chosen[i] else None,
            "errors": errors.get(f"member_{i}", []),
        }
        for i in range(rules.players)
    ]
    return render(
        request,
        "league/table/start.html",
        {
            "club": club,
            "date": date,
            "members": sorted(members, key=lambda m: m.kana or m.name),
            "seats": seats,
            "rates": list(rules.rates),
            "rate": data.get("rate") or _evening_rate(club, date, data.get("table"), rules),
            # The rate question (recording.check_rate), asked again until it is answered.
            "rate_question": errors.get(CONFIRM_RATE, []),
            "table": data.get("table", ""),
            "draw_table": data.get("draw_table", ""),
            "key": uuid.uuid4(),
            "errors": [
                *errors.get(NON_FIELD, []),
                *errors.get("rate", []),
                *errors.get("date", []),
                *errors.get("draw_table", []),
            ],
        },
    )


def _rules_view(tg: TableGame) -> dict[str, Any]:
    """What the phone needs to play offline: the hand rules (for its own count while the signal
    is gone) and the chip kinds the club's chips have."""
    chips = tg.rules_version.rules.chips
    return {
        "hand_rules": tg.hand_rules,
        "marks": {
            name: any(k in chips for k in kinds) for name, kinds in services.CHIP_MARKS.items()
        },
        # The calculator's first-turn wins: 人和 only where the club's hand options count it.
        "renhou": tg.rules_version.hand_options.renhou != "none",
    }


def _labels() -> dict[str, Any]:
    """The words table.js shows, in the user's language."""
    return {
        "choose_result": _("Choose how the hand ended."),
        "choose_winner": _("Choose the winner."),
        "choose_from": _("Choose who dealt in."),
        "winner_not_from": _("The winner cannot be the discarder."),
        "choose_han": _("Choose the han (or a limit)."),
        "choose_kind": _("Choose the kind of abortive draw."),
        "choose_player": _("Choose the player."),
        "server_error": _("The server did not answer; the hands wait here."),
        "logged_out": _("You are logged out: log in again; the hands wait here."),
        "watching": _("Watching live"),
        "entered_by": _("entered by %(name)s"),
        "not_sent": _("not sent yet"),
        "win_pay": _("This win:"),
        "hand_name": _("Hand %(round)s"),
        "hand_name_honba": _("Hand %(round)s, %(honba)s honba"),
        "conflict": _(
            "%(hand)s was recorded differently on another phone. The table shows its hand; "
            "yours is kept below until you choose."
        ),
        "enter_mine_confirm": _(
            "Undo the table's hand (and any after it) and send this phone's instead?"
        ),
        "forbidden": _("The server refused this phone: reload the page; the hands wait here."),
        "waiting": _("Offline: %s waiting to be sent (kept on this phone)"),
        "sending": _("Sending…"),
        "synced": _("Saved on the server"),
        "ended": _("The game has ended"),
        "ended_short": _("Game over"),
        "endings": {
            "bust": _("bust"),
            "last-hand": _("last hand"),
            "agari-yame": _("the dealer stopped after a win"),
            "tenpai-yame": _("the dealer stopped at a tenpai draw"),
            "extension": _("after the West round"),
        },
        "han": _("han"),
        "fu": _("fu"),
        "mangan": _("Mangan"),
        "haneman": _("Haneman"),
        "baiman": _("Baiman"),
        "sanbaiman": _("Sanbaiman"),
        "yakuman": _("Yakuman"),
        "ippatsu": _("Ippatsu"),
        "called": _("Called"),
        "ura": _("Ura"),
        "aka": _("Red"),
        "ron": _("Ron"),
        "tsumo": _("Tsumo"),
        "draw": _("Draw"),
        "abortive": _("Abortive draw"),
        "chombo": _("Chombo"),
        "winners": _("Winner (two for a double ron)"),
        "winner": _("Winner"),
        "from": _("Dealt in"),
        "tenpai": _("Tenpai"),
        "kind": _("Kind"),
        "player": _("Player"),
        "undo_confirm": _("Undo the last hand?"),
        "editing": _("Correcting the saved game: undo back to the wrong hand, record again, save."),
        "choose_pao_yaku": _("Choose the yakuman the liable player answers for."),
        "pao": _("Liability (pao): who fed the yakuman"),
        "pao_short": _("pao"),
        "pao_yaku": {
            "daisangen": _("Big three dragons"),
            "daisuushii": _("Big four winds"),
            "suukantsu": _("Four kans (yakuman)"),
        },
        "nagashi": _("Nagashi mangan"),
        "calc_open": _("Count from the tiles"),
        "calc_hand": _("Closed tiles"),
        "calc_dora": _("Dora indicators"),
        "calc_ura": _("Ura dora indicators"),
        "calc_go": _("Count"),
        "calc_hint": _(
            "Tap the closed tiles with the winning tile last; add each call with its tiles."
        ),
        "calc_no_tiles": _("Tap the hand's tiles first."),
        "calc_offline": _("The calculator needs the signal: choose the han and fu by hand."),
        "check_atozuke": _("No 後付け here: check the yaku was there before the call."),
        "calls": {
            "chi": _("Chi"),
            "pon": _("Pon"),
            "kan": _("Open kan"),
            "ankan": _("Closed kan"),
        },
        "suit_names": {
            "m": _("Characters"),
            "p": _("Circles"),
            "s": _("Bamboo"),
            "z": _("Honours"),
        },
        "suits": {"m": _("characters (suit)"), "p": _("circles (suit)"), "s": _("bamboo (suit)")},
        "red": _("red "),
        "double_riichi": _("Double riichi"),
        "rinshan": _("After a kan"),
        "chankan": _("Robbing a kan"),
        "haitei": _("Last tile"),
        "tenhou": _("Tenhou (天和)"),
        "chiihou": _("Chiihou (地和)"),
        "renhou": _("Renhou (人和)"),
        "kita": _("North set aside (北抜き)"),
        "kinds": {
            "kyuushu": _("Nine terminals"),
            "suufon": _("Four winds"),
            "suucha": _("Four riichi"),
            "suukan": _("Four kans"),
            "sanchahou": _("Triple ron"),
        },
    }


@require_http_methods(["GET"])
def table_play(
    request: HttpRequest, slug: str, key: uuid.UUID, edit: dict[str, Any] | None = None
) -> HttpResponse:
    """The score display. The table's scorers (services.may_score) enter hands; everyone else
    in the club watches it, read-only, following the table live."""
    club = club_for(request, slug)
    tg = _table_game(club, key)
    watch = edit is None and not services.may_score_table(
        tg=tg,
        user=request.user,  # type: ignore[arg-type]
        organiser=club.is_organiser,  # type: ignore[attr-defined]
    )
    members = services.seat_members(tg)
    players = [
        {"id": str(pk), "name": members[pk].name, "wind": WINDS[i]} for i, pk in enumerate(tg.seats)
    ]
    return render(
        request,
        "league/table/play.html",
        {
            "club": club,
            "tg": tg,
            "labels": _labels(),
            "watch": watch,
            "boot": {
                "watch": watch,
                "players": players,
                "state": services.state_json(tg),
                **_rules_view(tg),
                # The typed API (league.api.tables), called with this page's session and its
                # CSRF token: the table's state, PUT/DELETE <table>/hands/<index>, the calculator.
                "urls": {
                    "table": reverse("api:table_detail", args=[club.slug, tg.key]),
                    "value": reverse("api:calculator", args=[club.slug]),
                    "finish": reverse("table:table_finish", args=[club.slug, tg.key]),
                },
                "edit": edit,
            },
        },
    )


@require_http_methods(["GET"])
def table_edit(request: HttpRequest, slug: str, key: uuid.UUID) -> HttpResponse:
    """Correct a saved hand-by-hand game on the score display: the hands are changed on the phone
    (undo back, record again) and saved at once as the game's new revision, through the API's
    PUT /api/clubs/<slug>/games/<id>/hands."""
    club = club_for(request, slug, organiser=True)
    tg = _table_game(club, key)
    game = tg.game
    if game is None:
        return redirect("table:table_play", club.slug, tg.key)
    if game.voided:
        messages.error(request, _("A void game cannot be edited."))
        return redirect("recording:game_detail", club.slug, game.pk)
    edit = {
        "revision": game.revision,
        "url": reverse("api:game_hands", args=[club.slug, game.pk]),
        "done": reverse("recording:game_detail", args=[club.slug, game.pk]),
    }
    return table_play(request, slug, key, edit=edit)


def _scored_table(request: HttpRequest, slug: str, key: uuid.UUID) -> tuple[Club, TableGame]:
    """The club and the table, for one of its scorers (services.may_score) only."""
    club = club_for(request, slug)
    tg = _table_game(club, key)
    if not services.may_score_table(
        tg=tg,
        user=request.user,  # type: ignore[arg-type]
        organiser=club.is_organiser,  # type: ignore[attr-defined]
    ):
        raise PermissionDenied
    return club, tg


def _table_photo(request: HttpRequest, club: Club) -> ScorePhoto | None:
    """The photo read for this finish (?photo=, the scorer's own, read), or None."""
    if "photo" not in request.GET:
        return None
    kept = photos.photo_for(club=club, user=request.user, photo_id=request.GET["photo"])  # type: ignore[arg-type]
    return kept if kept is not None and photos.photo_read(kept) else None


@dataclass(frozen=True)
class PhotoSeat:
    """A seat's points on the photo beside the hands': None when the photo's rows do not add
    up (nothing is taken from them then)."""

    points: int | None
    agrees: bool


def _photo_seats(score_photo: ScorePhoto, rows: list[dict[str, Any]]) -> list[PhotoSeat]:
    read = score_photo.rows
    seats = []
    for i, row in enumerate(rows):
        points = read[i].get("points") if score_photo.valid and i < len(read) else None
        seats.append(PhotoSeat(points, points is not None and points == row["points"]))
    return seats


@require_http_methods(["GET", "POST"])
def table_finish(request: HttpRequest, slug: str, key: uuid.UUID) -> HttpResponse:
    """The ended game in the existing preview (settled from the hands on the server), then save:
    by the table's scorers (services.may_score). With ?photo=, the points read from a photo of
    the table's display (「写真から」, league.recording.photos) beside each seat's, marked where
    they differ; the save is the hands' game as always, and it deletes the photo."""
    club, tg = _scored_table(request, slug, key)
    if tg.game_id is not None:
        return redirect("recording:game_detail", club.slug, tg.game_id)
    score_photo = _table_photo(request, club)
    try:
        data, preview, played = services.table_preview(tg=tg)
        if request.method == "POST":
            game = services.table_game_save(tg=tg, user=request.user)
            if score_photo is not None:
                photos.photo_confirmed(score_photo=score_photo, game=game, user=request.user)  # type: ignore[arg-type]
            messages.success(request, _("Game %(number)s saved.") % {"number": game.number})
            if game.draw_tables.exists():
                return redirect("draw:draw_day", club.slug, game.date)
            return redirect("recording:game_detail", club.slug, game.pk)
    except ServiceError as e:
        for problems in e.errors.values():
            for message in problems:
                messages.error(request, message)
        return redirect("table:table_play", club.slug, tg.key)
    rows = [
        {
            "wind": WINDS[i],
            "member": m,
            "points": p.points,
            "chombo": p.chombo,
            "rank": p.rank,
            "score": p.score,
            "chips": p.chips,
            "yen": p.yen,
            "yakitori": data.seats[i].yakitori,
        }
        for i, (m, p) in enumerate(zip(preview.members, preview.result.players, strict=True))
    ]
    photo_seats = _photo_seats(score_photo, rows) if score_photo else []
    for row, seat in zip(rows, photo_seats, strict=False):
        row["photo"] = seat
    names = [m.name for m in preview.members]
    return render(
        request,
        "league/table/finish.html",
        {
            "club": club,
            "tg": tg,
            "rows": rows,
            "data": data,
            "chips_by_name": [
                (c.kind, c.winner.name, c.discarder.name if c.discarder else "", c.multiplier)
                for c in data.chips
            ],
            "rules": preview.rules_version.rules,
            "preview_has_yen": bool(preview.result.rate),
            "breakdown": breakdown.breakdown(preview.result, names, WINDS[: len(names)]),
            "ended": played.state.ended,
            "hand_count": len(played.hands),
            "photo": score_photo,
            "photo_agrees": bool(photo_seats) and all(s.agrees for s in photo_seats),
            "photos_available": score_photo is None and photos.available(),
        },
    )


def _need_photos() -> None:
    if not photos.available():
        raise Http404("reading photos is not installed here")


@require_http_methods(["GET", "POST"])
def table_photo_new(request: HttpRequest, slug: str, key: uuid.UUID) -> HttpResponse:
    """「写真から」 at the finish: a photo of the table's display (or a sheet, a screen) is read by
    the worker, as the record form's is (league.recording.photos), then shown on the finish page
    beside the hands' points. Its rows must add up to the starting points less the deposits the
    hands left on the table."""
    club, tg = _scored_table(request, slug, key)
    _need_photos()
    if tg.game_id is not None:
        return redirect("recording:game_detail", club.slug, tg.game_id)
    form = PhotoForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            data, _preview, _played = services.table_preview(tg=tg)
        except ServiceError as e:
            for problems in e.errors.values():
                for message in problems:
                    messages.error(request, message)
            return redirect("table:table_play", club.slug, tg.key)
        rules = tg.rules_version.rules
        kept = photos.photo_upload(
            club=club,
            user=request.user,  # type: ignore[arg-type]
            data=form.cleaned_data["image"],
            kind=form.cleaned_data["kind"],
            players=rules.players,
            total=rules.start * rules.players - data.deposits,
        )
        return redirect("table:table_photo_status", club.slug, tg.key, kept.pk)
    return render(
        request,
        "league/recording/photo_new.html",
        {
            "club": club,
            "form": form,
            "cancel": reverse("table:table_finish", args=[club.slug, tg.key]),
        },
    )


@require_http_methods(["GET"])
def table_photo_status(
    request: HttpRequest, slug: str, key: uuid.UUID, photo_id: int
) -> HttpResponse:
    club, tg = _scored_table(request, slug, key)
    _need_photos()
    kept = photos.photo_for(club=club, user=request.user, photo_id=photo_id)  # type: ignore[arg-type]
    if kept is None:
        raise Http404("no such photo")
    finish = reverse("table:table_finish", args=[club.slug, tg.key])
    state = photos.photo_state(kept)
    if state is not None and state.status == DONE:
        return redirect(f"{finish}?photo={kept.pk}")
    return render(
        request,
        "league/recording/photo_status.html",
        {
            "club": club,
            "photo": kept,
            "state": state,
            "again": reverse("table:table_photo_new", args=[club.slug, tg.key]),
            "cancel": finish,
        },
    )


@require_http_methods(["GET"])
def service_worker(request: HttpRequest) -> HttpResponse:
    """static/league/sw.js at the site's root, so that its scope is the whole site, with this
    build's precache list (league.table.offline)."""
    response = HttpResponse(
        offline.service_worker_source(), content_type="text/javascript; charset=utf-8"
    )
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_http_methods(["GET", "POST"])
def table_scorers(request: HttpRequest, slug: str) -> HttpResponse:
    """The organiser names the evening's scorers: members who may enter the hands at any table
    of the day in table mode (beside the players seated at each table)."""
    club = club_for(request, slug, organiser=True)
    data = request.POST if request.method == "POST" else request.GET
    try:
        date = parse_date(data.get("date", ""))
    except ValueError:
        date = today()
    choices = services.scorer_choices(club)
    errors: list[str] = []
    if request.method == "POST":
        by_pk = {str(m.pk): m for m in choices}
        chosen = [by_pk[v] for v in request.POST.getlist("scorers") if v in by_pk]
        try:
            services.scorers_set(club=club, user=request.user, date=date, members=chosen)  # type: ignore[arg-type]
        except ServiceError as e:
            errors = [str(m) for problems in e.errors.values() for m in problems]
        else:
            messages.success(request, _("The evening's scorers are saved."))
            return redirect(reverse("table:table_scorers", args=[club.slug]) + f"?date={date}")
    named = {m.pk for m in services.scorers_of(club=club, date=date)}
    return render(
        request,
        "league/table/scorers.html",
        {"club": club, "date": date, "choices": choices, "named": named, "errors": errors},
    )
