"""点数係 on the phone: start a table game, the score display that records each hand (its JSON
endpoints, used by static/league/table.js, which keeps the hands in the browser while the signal
is gone), and the finish: the existing preview, then save.

Organisers only, as recording a game. The phone's points are never read: each hand is played by
the engine on the server (league.table.services).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.contrib import messages
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from league import limits
from league.access import club_for
from league.core.clock import parse_date, today
from league.core.errors import NON_FIELD, ServiceError
from league.models import Club, Member, RulesVersion, TableGame
from league.recording import breakdown
from league.recording.forms import WINDS
from league.table import services
from league.table.services import HandConflict

MAX_BODY = 200_000  # a whole game's corrected hands are far below this


def _table_game(club: Club, key: uuid.UUID) -> TableGame:
    tg = get_object_or_404(TableGame.objects.select_related("rules_version"), club=club, key=key)
    tg.club = club
    return tg


def _version(club: Club, date: Any) -> RulesVersion | None:
    return (
        RulesVersion.in_force(club, date)
        or RulesVersion.objects.filter(club=club).order_by("effective_from").first()
    )


@require_http_methods(["GET", "POST"])
def table_new(request: HttpRequest, slug: str) -> HttpResponse:
    """Start a game: date, table, rate and the players from 起家 (from a draw card, the record
    form, or chosen here)."""
    club = club_for(request, slug, organiser=True)
    data = request.POST if request.method == "POST" else request.GET
    try:
        date = parse_date(data.get("date", ""))
    except ValueError:
        date = today()
    version = _version(club, date)
    if version is None:
        messages.error(request, _("Set up the club's rules before recording games."))
        return redirect("rules_list", club.slug)
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
                )
            except ServiceError as e:
                errors = e.errors
            else:
                return redirect("table_play", club.slug, tg.key)
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
            "rate": data.get("rate") or next(iter(rules.rates), ""),
            "table": data.get("table", ""),
            "draw_table": data.get("draw_table", ""),
            "key": uuid.uuid4(),
            "errors": errors.get(NON_FIELD, []) + errors.get("rate", []) + errors.get("date", []),
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
    club = club_for(request, slug, organiser=True)
    tg = _table_game(club, key)
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
            "boot": {
                "players": players,
                "state": services.state_json(tg),
                **_rules_view(tg),
                "urls": {
                    "hand": f"/c/{club.slug}/table/{tg.key}/hands/",
                    "undo": f"/c/{club.slug}/table/{tg.key}/undo/",
                    "value": f"/c/{club.slug}/table/{tg.key}/value/",
                    "state": f"/c/{club.slug}/table/{tg.key}/state/",
                    "finish": f"/c/{club.slug}/table/{tg.key}/finish/",
                },
                "edit": edit,
            },
        },
    )


def _json_body(request: HttpRequest) -> dict[str, Any] | None:
    if len(request.body) > MAX_BODY:
        return None
    try:
        body = json.loads(request.body)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _bad(errors: dict[str, list[str]], status: int = 400) -> JsonResponse:
    return JsonResponse({"errors": errors}, status=status)


def _index(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1000:
        return None
    return value


@require_http_methods(["GET"])
def table_state(request: HttpRequest, slug: str, key: uuid.UUID) -> JsonResponse:
    club = club_for(request, slug, organiser=True)
    return JsonResponse(services.state_json(_table_game(club, key)))


@require_http_methods(["POST"])
def table_hand(request: HttpRequest, slug: str, key: uuid.UUID) -> JsonResponse:
    """{"index", "key", "event", "marks"} → the table after it (201 new, 200 already kept)."""
    club = club_for(request, slug, organiser=True)
    tg = _table_game(club, key)
    body = _json_body(request)
    if body is None:
        return _bad({NON_FIELD: [_("Send the hand as a JSON object.")]})
    index = _index(body.get("index"))
    try:
        hand_key = uuid.UUID(str(body.get("key")))
    except ValueError:
        hand_key = None
    if index is None or hand_key is None:
        return _bad({"index" if index is None else "key": [_("This field is required.")]})
    try:
        _hand, created = services.hand_record(
            tg=tg,
            user=request.user,
            index=index,
            key=hand_key,
            event=body.get("event"),
            marks=body.get("marks"),
        )
    except HandConflict as e:
        return JsonResponse({"errors": e.errors, "state": services.state_json(tg)}, status=409)
    except ServiceError as e:
        return _bad(e.errors)
    return JsonResponse(services.state_json(tg), status=201 if created else 200)


@require_http_methods(["POST"])
def table_value(request: HttpRequest, slug: str, key: uuid.UUID) -> JsonResponse:
    """The point calculator: a winning hand's tiles → han, fu, yaku and the payment."""
    club = club_for(request, slug, organiser=True)
    tg = _table_game(club, key)
    body = _json_body(request)
    if body is None:
        return _bad({NON_FIELD: [_("Send the hand as a JSON object.")]})
    try:
        return JsonResponse(services.hand_value(tg=tg, data=body))
    except ServiceError as e:
        return _bad(e.errors)


@require_http_methods(["POST"])
def table_undo(request: HttpRequest, slug: str, key: uuid.UUID) -> JsonResponse:
    club = club_for(request, slug, organiser=True)
    tg = _table_game(club, key)
    body = _json_body(request) or {}
    index = _index(body.get("index"))
    if index is None:
        return _bad({"index": [_("This field is required.")]})
    try:
        services.hand_undo(tg=tg, user=request.user, index=index)
    except ServiceError as e:
        return _bad(e.errors, status=409)
    return JsonResponse(services.state_json(tg))


@require_http_methods(["GET", "POST"])
def table_edit(request: HttpRequest, slug: str, key: uuid.UUID) -> HttpResponse:
    """Correct a saved hand-by-hand game on the score display: the hands are changed on the phone
    (undo back, record again) and saved at once as the game's new revision."""
    club = club_for(request, slug, organiser=True)
    tg = _table_game(club, key)
    game = tg.game
    if game is None:
        return redirect("table_play", club.slug, tg.key)
    if request.method == "GET":
        if game.voided:
            messages.error(request, _("A void game cannot be edited."))
            return redirect("game_detail", club.slug, game.pk)
        edit = {"revision": game.revision, "url": f"/c/{club.slug}/table/{tg.key}/edit/"}
        return table_play(request, slug, key, edit=edit)
    body = _json_body(request) or {}
    revision = body.get("revision")
    try:
        if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
            raise ServiceError.one("revision", _("This field is required."))
        game = services.table_game_edit(
            tg=tg, user=request.user, hands=body.get("hands"), expected_revision=revision
        )
    except ServiceError as e:
        return _bad(e.errors)
    messages.success(request, _("Game %(number)s updated.") % {"number": game.number})
    return JsonResponse({"redirect": f"/c/{club.slug}/games/{game.pk}/"})


@require_http_methods(["GET", "POST"])
def table_finish(request: HttpRequest, slug: str, key: uuid.UUID) -> HttpResponse:
    """The ended game in the existing preview (settled from the hands on the server), then save."""
    club = club_for(request, slug, organiser=True)
    tg = _table_game(club, key)
    if tg.game_id is not None:
        return redirect("game_detail", club.slug, tg.game_id)
    try:
        data, preview, played = services.table_preview(tg=tg)
        if request.method == "POST":
            game = services.table_game_save(tg=tg, user=request.user)
            messages.success(request, _("Game %(number)s saved.") % {"number": game.number})
            if game.draw_tables.exists():
                return redirect("draw_day", club.slug, game.date)
            return redirect("game_detail", club.slug, game.pk)
    except ServiceError as e:
        for problems in e.errors.values():
            for message in problems:
                messages.error(request, message)
        return redirect("table_play", club.slug, tg.key)
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
        },
    )


@require_http_methods(["GET"])
def service_worker(request: HttpRequest) -> HttpResponse:
    """static/league/sw.js at the site's root, so that its scope is the whole site."""
    path = finders.find("league/sw.js")
    with open(path, "rb") as f:  # type: ignore[arg-type]
        body = f.read()
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response
