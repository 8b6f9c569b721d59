"""Forms: what an organiser types on a phone, turned into the services' inputs.

Numbers and dates are typed the way people type them in Japan (full-width digits, ▲ for minus,
"2026年11月21日"); the forms normalise them so that the services get real values.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.forms import BoundField
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop, pgettext

import scoring
from league.club.directory import NO_SUCH_MEMBER, AmbiguousMember, MemberDirectory
from league.core import names
from league.core.clock import BAD_DATE, parse_date
from league.core.errors import ServiceError, form_field, problem_message
from league.core.format import chip_kind
from league.models import Club, Member
from league.recording import photos
from league.recording.services import ChipInput, GameInput, SeatInput

# The domain's own names for the seats from 起家, the same in both languages.
WINDS = ("東", "南", "西", "北")
CHIP_ROWS = 4
MAX_CHOMBO = 9
MAX_MULTIPLIER = 9

INACTIVE_MEMBER = _("%(name)s is inactive. Tick the box to bring them back.")
SAME_PLAYER_TWICE = _("The same player is in two seats.")
BAD_NUMBER = _("Enter a whole number, e.g. 25,000 or ▲3,000.")
CHOOSE_WINNER = _("Choose who won the chips.")
CHOOSE_KIND = _("Choose the kind of chip.")
SELF_DEAL_IN = _("The winner cannot be the discarder.")
CHOOSE_BUSTER = _("This player ended below zero: choose who busted them (飛び賞).")

# Service errors on no single field: shown above their block of the form.
BLOCKS = ("points", "chips", "chombo")


# Translators: the suffix Django puts after every form label. In our catalog so that a Japanese
# label ends in a full-width colon (人数：) rather than an ASCII one.
gettext_noop(":")


class NumberField(forms.CharField):
    """An integer as a person types it (scoring.parse_integer): "５２，０００", "▲3,000"."""

    default_error_messages = {"invalid": BAD_NUMBER}

    def __init__(self, **kwargs: Any) -> None:
        attrs = {"inputmode": "numeric", "autocomplete": "off", "maxlength": "20"}
        kwargs.setdefault("widget", forms.TextInput(attrs=attrs))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return scoring.parse_integer(text)
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None


@dataclass(frozen=True)
class SeatFields:
    """One seat's fields, for the template."""

    index: int
    wind: str
    member: BoundField
    points: BoundField
    chombo: BoundField
    guest: BoundField
    offer_guest: bool
    reactivate: BoundField
    offer_reactivate: bool
    busted_by: BoundField | None = None  # 飛ばしたのは？ (rules with 飛び賞 to the buster)
    yakitori: BoundField | None = None  # 焼き鳥 (rules with 焼き鳥)
    suggestions: tuple[str, ...] = ()  # もしかして: the closest members' names, as buttons


@dataclass(frozen=True)
class ChipRow:
    kind: BoundField
    winner: BoundField
    discarder: BoundField
    multiplier: BoundField

    @property
    def errors(self) -> list[str]:
        return [
            e for f in (self.kind, self.winner, self.discarder, self.multiplier) for e in f.errors
        ]


class GameForm(forms.Form):
    """One hanchan: the seats from 起家, their final points, deposits, rate and chips.

    Built for one club's rules (their player count, rate tiers and chip kinds) and the members it
    may seat. A name that is no member is an error, unless its seat's "add as a new guest" box is
    ticked: then the guest is created by the view at save time, inside the game's transaction.
    """

    date = forms.CharField(
        label=_("Date"),
        max_length=30,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "placeholder": "2026/11/21", "data-date": ""}
        ),
    )
    table = forms.CharField(
        label=_("Table"),
        max_length=20,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "placeholder": "A"}),
    )
    deposits = NumberField(
        label=_("Deposits"),
        required=False,
        help_text=_("Riichi sticks left on the table"),
    )
    submission_key = forms.UUIDField(required=False, widget=forms.HiddenInput)
    revision = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    # Offered on the preview when the game repeats one already saved that day
    # (services.duplicate_of): saving it needs this ticked.
    confirm_duplicate = forms.BooleanField(
        label=_("It is another game with the same result: save it too"), required=False
    )
    # Offered on the preview when the rate is none of the day's other games' rates
    # (services.rate_differs): saving at it needs this ticked.
    confirm_rate = forms.BooleanField(label=_("Save it at this rate"), required=False)

    def __init__(
        self,
        *args: Any,
        club: Club,
        rules: scoring.Rules,
        members: Iterable[Member],
        inactive: Iterable[Member] = (),
        aliases: Iterable[Member] = (),
        editing: bool = False,
        chip_rows: int = CHIP_ROWS,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.club = club
        self.rules = rules
        self.members = list(members)  # offered in the name list
        self.inactive = [m for m in inactive if m not in self.members]  # found, not offered
        self.aliases = list(aliases)  # merged records: their names find the survivor
        self.editing = editing
        self.chip_row_count = chip_rows if rules.chips else 0
        self.block_errors: dict[str, list[str]] = {}
        self.offer_guest: set[int] = set()
        self.offer_reactivate: set[int] = set()
        self.suggestions: dict[int, list[str]] = {}  # seat → もしかして, for an unknown name
        self._reactivate: dict[int, Member] = {}
        self._seated: dict[int, Member] = {}
        self._guests: dict[int, str] = {}
        self._chips: list[tuple[str, int, int | None, int]] = []
        self._index_members()
        self._add_seat_fields()
        self._add_rate_field()
        self._add_chip_fields()
        if editing:
            # A game cannot move to another day (services.game_edit); the date is only shown.
            self.fields["date"].disabled = True
            self.fields["revision"].required = True
            del self.fields["submission_key"]
        else:
            del self.fields["revision"]

    # --- building --------------------------------------------------------------------------

    def _index_members(self) -> None:
        self.directory = MemberDirectory([*self.members, *self.inactive], self.aliases)

    def _add_seat_fields(self) -> None:
        for i in range(self.rules.players):
            self.fields[f"member_{i}"] = forms.CharField(
                label=WINDS[i],
                max_length=50,
                widget=forms.TextInput(
                    attrs={"list": "member-list", "autocomplete": "off", "class": "member"}
                ),
            )
            self.fields[f"guest_{i}"] = forms.BooleanField(
                label=_("Add as a new guest"), required=False
            )
            self.fields[f"reactivate_{i}"] = forms.BooleanField(
                label=_("Inactive — bring them back"), required=False
            )
            self.fields[f"points_{i}"] = NumberField(
                label=_("Points"),
                widget=forms.TextInput(
                    attrs={
                        "inputmode": "numeric",
                        "autocomplete": "off",
                        "maxlength": "20",
                        "data-points": "",
                    }
                ),
            )
            self.fields[f"chombo_{i}"] = forms.TypedChoiceField(
                label=_("Chombo"),
                choices=[(n, str(n)) for n in range(MAX_CHOMBO + 1)],
                coerce=int,
                initial=0,
                required=False,
                empty_value=0,
            )
            if self.asks_buster:
                others = [(j, WINDS[j]) for j in range(self.rules.players) if j != i]
                self.fields[f"busted_by_{i}"] = forms.TypedChoiceField(
                    label=_("Busted by?"),
                    choices=[("", "—"), *others],
                    coerce=int,
                    required=False,
                    empty_value=None,
                )
            if self.rules.yakitori is not None:
                self.fields[f"yakitori_{i}"] = forms.BooleanField(
                    label=_("Yakitori (won no hand)"), required=False
                )

    @property
    def asks_buster(self) -> bool:
        """飛び賞 paid to whoever busted the player: each busted row asks who it was."""
        return self.rules.bust_bonus is not None and self.rules.bust_bonus.to == "buster"

    @property
    def at_zero_busts(self) -> bool:
        return self.rules.bust_bonus is not None and self.rules.bust_bonus.at_zero

    def busted(self, points: int) -> bool:
        bonus = self.rules.bust_bonus
        return bonus is not None and (points < 0 or (points == 0 and bonus.at_zero))

    def _add_rate_field(self) -> None:
        if not self.rules.rates:
            return
        self.fields["rate"] = forms.ChoiceField(
            label=_("Rate"),
            choices=[(name, name) for name in self.rules.rates] + [("", _("No money"))],
            initial=next(iter(self.rules.rates)),
            required=False,
        )

    def _add_chip_fields(self) -> None:
        seats = [(str(i), WINDS[i]) for i in range(self.rules.players)]
        kinds = [("", "—")] + [(kind, chip_kind(kind)) for kind in self.rules.chips]
        for j in range(self.chip_row_count):
            self.fields[f"chip_kind_{j}"] = forms.ChoiceField(
                label=_("Chip"), choices=kinds, required=False
            )
            self.fields[f"chip_winner_{j}"] = forms.TypedChoiceField(
                label=_("Winner"), choices=[("", "—"), *seats], coerce=int, required=False
            )
            self.fields[f"chip_from_{j}"] = forms.TypedChoiceField(
                label=_("From"),
                choices=[("", _("Tsumo")), *seats],
                coerce=int,
                required=False,
                empty_value=None,
            )
            self.fields[f"chip_multiplier_{j}"] = forms.IntegerField(
                label=_("Times"),
                min_value=1,
                max_value=MAX_MULTIPLIER,
                initial=1,
                required=False,
                widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
            )

    @staticmethod
    def initial_from(data: GameInput, *, revision: int | None = None) -> dict[str, Any]:
        """The form's initial values for a stored game (services.game_input_from_stored)."""
        initial: dict[str, Any] = {
            "date": f"{data.date:%Y/%m/%d}",
            "table": data.table,
            "deposits": f"{data.deposits:,}" if data.deposits else "",
            "rate": data.rate,
            "revision": revision,
        }
        seat_of = {}
        for i, seat in enumerate(data.seats):
            seat_of[seat.member.pk] = i
            initial[f"member_{i}"] = seat.member.name
            initial[f"points_{i}"] = f"{seat.points:,}"
            initial[f"chombo_{i}"] = seat.chombo
            initial[f"busted_by_{i}"] = seat.busted_by
            initial[f"yakitori_{i}"] = seat.yakitori
        for j, chip in enumerate(data.chips):
            initial[f"chip_kind_{j}"] = chip.kind
            initial[f"chip_winner_{j}"] = seat_of.get(chip.winner.pk)
            initial[f"chip_from_{j}"] = seat_of.get(chip.discarder.pk) if chip.discarder else ""
            initial[f"chip_multiplier_{j}"] = chip.multiplier
        return initial

    # --- for the template ------------------------------------------------------------------

    def seats(self) -> list[SeatFields]:
        return [
            SeatFields(
                index=i,
                wind=WINDS[i],
                member=self[f"member_{i}"],
                points=self[f"points_{i}"],
                chombo=self[f"chombo_{i}"],
                guest=self[f"guest_{i}"],
                offer_guest=i in self.offer_guest or bool(self[f"guest_{i}"].value()),
                reactivate=self[f"reactivate_{i}"],
                offer_reactivate=i in self.offer_reactivate
                or bool(self[f"reactivate_{i}"].value()),
                busted_by=self[f"busted_by_{i}"] if f"busted_by_{i}" in self.fields else None,
                yakitori=self[f"yakitori_{i}"] if f"yakitori_{i}" in self.fields else None,
                suggestions=tuple(self.suggestions.get(i, ())),
            )
            for i in range(self.rules.players)
        ]

    def chip_rows(self) -> list[ChipRow]:
        return [
            ChipRow(
                self[f"chip_kind_{j}"],
                self[f"chip_winner_{j}"],
                self[f"chip_from_{j}"],
                self[f"chip_multiplier_{j}"],
            )
            for j in range(self.chip_row_count)
        ]

    def chips_used(self) -> bool:
        """Whether the chip rows start open: some row was filled in or has an error."""
        return "chips" in self.block_errors or any(
            row.kind.value() or row.errors for row in self.chip_rows()
        )

    @property
    def chip_kind_names(self) -> str:
        return pgettext("list separator", ", ").join(chip_kind(kind) for kind in self.rules.chips)

    @property
    def target_total(self) -> int:
        """What the final points and deposits add up to (settlement.md, step 1)."""
        return self.rules.players * self.rules.start

    # --- cleaning --------------------------------------------------------------------------

    def clean_date(self) -> datetime.date:
        value = self.cleaned_data["date"]
        if isinstance(value, datetime.date):
            return value
        try:
            return parse_date(str(value))
        except ValueError:
            raise forms.ValidationError(BAD_DATE, code="invalid") from None

    def clean_deposits(self) -> int:
        return self.cleaned_data["deposits"] or 0

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for i in range(self.rules.players):
            self._clean_seat(i)
            self._clean_bust(i)
        self._check_seated_once()
        self._chips = [c for j in range(self.chip_row_count) if (c := self._clean_chip_row(j))]
        if self.errors:
            self._check_sum_now()
        return cleaned

    def _check_sum_now(self) -> None:
        """With other fields already wrong, the points' sum is checked here too, so that every
        error comes in one round (otherwise the service reports it only once the names are
        right)."""
        points = [self.cleaned_data.get(f"points_{i}") for i in range(self.rules.players)]
        deposits = self.cleaned_data.get("deposits")
        if any(p is None for p in points) or deposits is None:
            return
        seats = tuple(scoring.Seat(str(i), p) for i, p in enumerate(points))
        game = scoring.Game(seats=seats, deposits=deposits)
        for problem in scoring.check_game(self.rules, game):
            if problem.code == scoring.errors.SUM:
                message = problem_message(problem)
                self.block_errors.setdefault("points", []).append(message)

    def _resolve(self, name: str) -> Member | None:
        """The member typed; the field's error when several members go by it."""
        try:
            return self.directory.find(name)
        except AmbiguousMember as e:
            raise forms.ValidationError(e.message, code="ambiguous") from None

    def _clean_seat(self, i: int) -> None:
        name = self.cleaned_data.get(f"member_{i}")
        if not name:
            return
        try:
            member = self._resolve(name)
        except forms.ValidationError as e:
            self.add_error(f"member_{i}", e)
            return
        if member is not None and member in self.inactive:
            # 休会中: never offered as a new guest (that name is taken); one tick brings them back.
            if self.cleaned_data.get(f"reactivate_{i}"):
                self._seated[i] = self._reactivate[i] = member
            else:
                self.offer_reactivate.add(i)
                message = INACTIVE_MEMBER % {"name": member.name}
                self.add_error(f"member_{i}", forms.ValidationError(message, code="inactive"))
        elif member is not None:
            self._seated[i] = member
        elif self.cleaned_data.get(f"guest_{i}"):
            self._guests[i] = names.clean_name(name)
        else:
            self.offer_guest.add(i)
            # The closest names are buttons under the field (suggestions.html), not text.
            self.suggestions[i] = self.directory.suggest(name)
            self.add_error(f"member_{i}", forms.ValidationError(NO_SUCH_MEMBER, code="unknown"))

    def _clean_bust(self, i: int) -> None:
        """A busted player's "busted by" is required (飛び賞 to the buster); on any other row it
        is dropped, since the page hides it there."""
        if not self.asks_buster:
            return
        points = self.cleaned_data.get(f"points_{i}")
        if points is None or not self.busted(points):
            self.cleaned_data[f"busted_by_{i}"] = None
        elif self.cleaned_data.get(f"busted_by_{i}") is None:
            self.add_error(f"busted_by_{i}", forms.ValidationError(CHOOSE_BUSTER, "required"))

    def _check_seated_once(self) -> None:
        seen: set[tuple[str, object]] = set()
        for i in range(self.rules.players):
            if i in self._seated:
                key: tuple[str, object] = ("member", self._seated[i].pk)
            elif i in self._guests:
                key = ("guest", names.name_key(self._guests[i]))
            else:
                continue
            if key in seen:
                self.add_error(f"member_{i}", forms.ValidationError(SAME_PLAYER_TWICE, "duplicate"))
            seen.add(key)

    def _clean_chip_row(self, j: int) -> tuple[str, int, int | None, int] | None:
        data = self.cleaned_data
        kind = data.get(f"chip_kind_{j}")
        winner = data.get(f"chip_winner_{j}")
        discarder = data.get(f"chip_from_{j}")
        if not kind:
            if winner not in (None, "") or discarder is not None:
                self.add_error(f"chip_kind_{j}", forms.ValidationError(CHOOSE_KIND, "required"))
            return None
        if winner in (None, ""):
            self.add_error(f"chip_winner_{j}", forms.ValidationError(CHOOSE_WINNER, "required"))
            return None
        if discarder == winner:
            self.add_error(f"chip_from_{j}", forms.ValidationError(SELF_DEAL_IN, "self"))
            return None
        return kind, winner, discarder, data.get(f"chip_multiplier_{j}") or 1

    # --- output ----------------------------------------------------------------------------

    def reactivations(self) -> list[Member]:
        """The inactive members the organiser chose to bring back (at save time)."""
        return list(self._reactivate.values())

    def guest_names(self) -> dict[int, str]:
        """Seat → name of each new guest the organiser asked for (created at save time)."""
        return dict(self._guests)

    def game_input(self, guests: Mapping[int, Member] | None = None) -> GameInput:
        """The valid form as the services' input. `guests` are the members created for
        `guest_names()`; without them (a preview) a guest is an unsaved stand-in."""
        data = self.cleaned_data
        members = self._seat_members(guests or {})
        seats = [
            SeatInput(
                members[i],
                data[f"points_{i}"],
                data.get(f"chombo_{i}") or 0,
                data.get(f"busted_by_{i}"),
                bool(data.get(f"yakitori_{i}")),
            )
            for i in range(self.rules.players)
        ]
        chips = [
            ChipInput(kind, members[w], members[d] if d is not None else None, n)
            for kind, w, d, n in self._chips
        ]
        key = data.get("submission_key")
        return GameInput(
            date=data["date"],
            seats=seats,
            table=data.get("table", "").strip(),
            deposits=data["deposits"],
            rate=data.get("rate") or "",
            chips=chips,
            submission_key=key if isinstance(key, uuid.UUID) else None,
        )

    def _seat_members(self, guests: Mapping[int, Member]) -> list[Member]:
        members = []
        for i in range(self.rules.players):
            member = self._seated.get(i) or guests.get(i)
            if member is None:
                # A preview stores nothing, so a new guest is not in the database yet; a negative
                # primary key keeps the stand-ins apart inside the engine, which names by pk.
                member = Member(pk=-1 - i, club=self.club, name=self._guests[i], is_guest=True)
            members.append(member)
        return members

    def add_service_error(self, error: ServiceError) -> None:
        """A service's errors next to their fields; "points", "chips" and "chombo" above their
        block; anything else on top of the form."""
        for path, messages in error.errors.items():
            field_name = form_field(path)
            for message in messages:
                if field_name in self.fields:
                    self.add_error(field_name, message)
                elif field_name in BLOCKS:
                    self.block_errors.setdefault(field_name, []).append(message)
                else:
                    self.add_error(None, message)  # NON_FIELD, or a field this form lacks


class VoidForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        help_text=_("Why this game does not count, e.g. entered twice."),
    )
    # The revision the organiser saw: a game edited meanwhile is not voided (services.game_void).
    revision = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class PhotoField(forms.FileField):
    """A photo's upload, read into bytes: refused, naming the field, when it is over
    photos.MAX_BYTES or not an image the readers take (league.recording.photos). The record
    form's, table mode's and the score sheet import's 「写真から」."""

    def clean(self, data: Any, initial: Any = None) -> bytes:  # type: ignore[override]
        upload = super().clean(data, initial)
        if upload.size > photos.MAX_BYTES:
            raise forms.ValidationError(_("The photo is too large (12 MB at most)."))
        content = upload.read()
        if photos.image_problem(content):
            raise forms.ValidationError(_("This file is not a photo that can be read."))
        return content
