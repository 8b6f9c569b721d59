"""The one error a write raises for bad input (ServiceError: messages by the path of the domain's
input, "players[2].points"), and the engine's problems in the user's language. What a web page
makes of one is league.web's."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import scoring
from scoring import errors as codes

NON_FIELD = "__all__"


class ServiceError(Exception):
    """Bad input for a write; `errors` maps the path of the domain's input it is about
    ("players[2].points", "date", or "__all__" for the whole) to messages. A form shows them
    by form_field; the API answers with the paths as they are."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))

    @classmethod
    def one(cls, field_name: str, message: str) -> ServiceError:
        return cls({field_name: [message]})


def form_field(path: str) -> str:
    """Where on a form a domain input's path belongs, for the one adapter (league.web.add_errors
    and the record form): "players[2].points" → "points_2", "players[2].name" → "member_2". Paths
    of a game's other parts go to their block of the record form ("chips", "chombo", and
    "points" for the 飛び and 焼き鳥 inputs above the players' rows); any other name is a form
    field's own ("date", "reason")."""
    head, _sep, rest = path.partition(".")
    if head.startswith("players[") and head.endswith("]"):
        index = head[len("players[") : -1]
        return "member_" + index if rest == "name" else "points_" + index
    if head.startswith("chips["):
        return "chips"
    if head.startswith("chombo["):
        return "chombo"
    if head.startswith(("busts", "yakitori")):
        return "points"  # shown above the players' rows, where the 飛び and 焼き鳥 inputs are
    if head == "players":  # how many players: about the whole game
        return NON_FIELD
    return path


def problem_message(problem: scoring.Problem) -> str:
    """A scoring problem (of a game or of a rules object) in the user's language."""
    p = problem.params
    messages = {
        codes.SUM: lambda: (
            _(
                "The points add up to %(total)s with deposits, but must be %(expected)s: "
                "%(diff)s %(how)s."
            )
            % {
                "total": f"{p['total']:,}",
                "expected": f"{p['expected']:,}",
                "diff": f"{abs(p['difference']):,}",
                "how": _("short") if p["difference"] > 0 else _("over"),
            }
        ),
        codes.MULTIPLE_OF_100: lambda: _("Enter points in units of 100."),
        codes.TYPE: lambda: _("Enter a whole number."),
        codes.RANGE: lambda: (
            _("Enter a number from %(low)s to %(high)s.")
            % {"low": f"{p['low']:,}", "high": f"{p['high']:,}"}
            if "low" in p
            else _("This number is out of range.")
        ),
        codes.PLAYER_COUNT: lambda: _("This club plays with %(n)s players.") % {"n": p["expected"]},
        codes.DUPLICATE_NAME: lambda: _("The same player is in two seats."),
        codes.REQUIRED: lambda: (
            _("Choose a player.")
            if problem.field.startswith("players[")
            else _("This field is required.")
        ),
        codes.NOT_AT_TABLE: lambda: _("That player is not at this table."),
        codes.BUSTS: lambda: _(
            "Say who busted each player who ended below zero (飛び賞), and only for them."
        ),
        codes.NOT_IN_RULES: lambda: _("The club's rules have no 飛び賞 or 焼き鳥 to record."),
        codes.NO_UMA: lambda: _(
            "The club's floating uma has no list for this many floating players."
        ),
        codes.UNKNOWN_RATE: lambda: _("The club's rules have no such rate."),
        codes.UNKNOWN_CHIP: lambda: _("The club's rules have no such chip kind."),
        codes.SELF_DEAL_IN: lambda: _("The winner cannot be the discarder."),
        codes.CHOICE: lambda: (
            _("Choose one of: %(allowed)s.") % {"allowed": ", ".join(str(a) for a in p["allowed"])}
        ),
        codes.UMA_LENGTH: lambda: (
            ngettext("Enter the uma of %(n)s rank.", "Enter the uma of %(n)s ranks.", p["expected"])
            % {"n": p["expected"]}
        ),
        codes.UMA_SUM: lambda: (
            _("The uma must add up to 0 (now %(sum)s).") % {"sum": f"{p['got']:+d}"}
        ),
        codes.UMA_ORDER: lambda: _("The uma must not rise from one rank to the next."),
        codes.INDIVISIBLE: lambda: (
            _(
                "This cannot be shared equally among the %(n)s other players; "
                "use a number that divides by %(n)s."
            )
            % {"n": p["others"]}
        ),
        codes.UNKNOWN_FIELD: lambda: _("Unknown field."),
        codes.UNKNOWN_PRESET: lambda: _("Unknown preset."),
    }
    make = messages.get(problem.code)
    return make() if make else problem.message


def service_error(error: scoring.InputError) -> ServiceError:
    """The engine's problems as a ServiceError, by the same paths (players[2].points), each
    message in the user's language, once."""
    out: dict[str, list[str]] = {}
    for problem in error.problems:
        messages = out.setdefault(problem.field or NON_FIELD, [])
        message = problem_message(problem)
        if message not in messages:
            messages.append(message)
    return ServiceError(out)
