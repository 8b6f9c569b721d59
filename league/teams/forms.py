"""Forms of the teams pages: a team (names, colour, roster, captains) and an adjustment."""

from __future__ import annotations

import datetime
import unicodedata
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league.core.clock import BAD_DATE, parse_date
from league.models import Adjustment, Member, Stage, Team

BAD_POINTS = gettext_lazy("Enter points with at most one decimal, e.g. ▲20.0 or 5.")


def parse_points(text: str) -> int:
    """Points as typed ("▲20", "-20.0", "＋５．５", "1,000.5") → tenths; ValueError otherwise."""
    s = unicodedata.normalize("NFKC", text).strip().replace("．", ".")
    whole, dot, decimal = s.partition(".")
    if dot and not (len(decimal) == 1 and decimal.isdigit() and decimal.isascii()):
        raise ValueError(text)
    value = scoring.parse_integer(whole)
    negative = value < 0 or whole.lstrip()[:1] in "▲△−‐‑‒–—―ーｰ-"
    tenths = abs(value) * 10 + (int(decimal) if dot else 0)
    return -tenths if negative else tenths


class PointsField(forms.CharField):
    default_error_messages = {"invalid": BAD_POINTS}

    def __init__(self, **kwargs: Any) -> None:
        attrs = {"inputmode": "decimal", "autocomplete": "off", "maxlength": "20"}
        kwargs.setdefault("widget", forms.TextInput(attrs=attrs))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return parse_points(text)
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None


class MemberChoices(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Member) -> str:
        return obj.name


class TeamForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Team name"), max_length=50)
    short_name = forms.CharField(
        label=gettext_lazy("Short name"),
        max_length=8,
        help_text=gettext_lazy("For narrow tables, e.g. 3 characters."),
    )
    colour = forms.CharField(
        label=gettext_lazy("Colour"),
        max_length=7,
        initial="#2b6cb0",
        widget=forms.TextInput(attrs={"type": "color"}),
    )
    members = MemberChoices(
        label=gettext_lazy("Roster"),
        queryset=Member.objects.none(),
        widget=forms.CheckboxSelectMultiple(attrs={"class": "check-list"}),
    )
    captains = MemberChoices(
        label=gettext_lazy("Captains"),
        queryset=Member.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple(attrs={"class": "check-list"}),
        help_text=gettext_lazy("Captains name who plays for the team."),
    )

    def __init__(self, *args: Any, members: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["members"].queryset = members  # type: ignore[attr-defined]
        self.fields["captains"].queryset = members  # type: ignore[attr-defined]


class AdjustmentForm(forms.Form):
    target = forms.ChoiceField(label=gettext_lazy("For"))
    kind = forms.ChoiceField(
        label=gettext_lazy("Kind"),
        choices=[c for c in Adjustment.KINDS if c[0] != Adjustment.REVERSAL],
    )
    points = PointsField(
        label=gettext_lazy("Standings points"),
        help_text=gettext_lazy("In the standings' points: ▲20.0 takes twenty away."),
    )
    rate = forms.ChoiceField(label=gettext_lazy("Rate for yen"), required=False)
    reason = forms.CharField(label=gettext_lazy("Reason"), max_length=200)

    def __init__(
        self,
        *args: Any,
        members: list[Member],
        teams: list[Team],
        rates: dict[str, int],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        choices: list[tuple[str, Any]] = [("", "—")]
        if teams:
            choices.append((gettext_lazy("Teams"), [(f"t{t.pk}", t.name) for t in teams]))
        choices.append((gettext_lazy("Members"), [(f"m{m.pk}", m.name) for m in members]))
        self.fields["target"].choices = choices  # type: ignore[attr-defined]
        if rates:
            self.fields["rate"].choices = [  # type: ignore[attr-defined]
                ("", gettext_lazy("No yen")),
                *(
                    (
                        name,
                        _("%(name)s (%(yen)s yen per 1,000 points)") % {"name": name, "yen": yen},
                    )
                    for name, yen in rates.items()
                ),
            ]
        else:
            del self.fields["rate"]


class MatchDayForm(forms.Form):
    date = forms.CharField(
        label=gettext_lazy("Date"),
        max_length=30,
        widget=forms.TextInput(attrs={"autocomplete": "off", "placeholder": "2026/11/21"}),
    )
    games = forms.CharField(
        label=gettext_lazy("Games that day"),
        initial="2",
        max_length=4,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )

    def clean_date(self) -> datetime.date:
        try:
            return parse_date(self.cleaned_data["date"])
        except ValueError:
            raise forms.ValidationError(BAD_DATE, code="invalid") from None

    def clean_games(self) -> int:
        try:
            return scoring.parse_integer(self.cleaned_data["games"])
        except ValueError:
            raise forms.ValidationError(_("Enter a number of games."), code="invalid") from None


class StageForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Stage name"), max_length=50)
    first_day = forms.CharField(label=gettext_lazy("First day"), max_length=30)
    last_day = forms.CharField(label=gettext_lazy("Last day"), max_length=30)
    entrants = forms.ChoiceField(label=gettext_lazy("Entrants"), choices=Stage.ENTRANTS)
    advance = forms.CharField(
        label=gettext_lazy("Going through"),
        required=False,
        max_length=5,
        help_text=gettext_lazy("The top N by total go on. Empty for the last stage."),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    advance_share = forms.CharField(
        label=gettext_lazy("Going through, as a share of the entries (%)"),
        required=False,
        max_length=5,
        help_text=gettext_lazy(
            "Instead of a number, a whole percent: 25 sends the top quarter of the stage's"
            " entries on (a later stage's entries are those who went through to it; the first"
            " stage's, everyone with a game in it), rounded up, at least 1."
        ),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    ties = forms.ChoiceField(label=gettext_lazy("Ties at the cut"), choices=Stage.TIES)
    carry = forms.ChoiceField(label=gettext_lazy("What they carry"), choices=Stage.CARRY)
    bonus = forms.CharField(
        label=gettext_lazy("Bonus by place"),
        required=False,
        max_length=200,
        help_text=gettext_lazy(
            "Points for 1st, 2nd, … separated by commas or spaces, e.g. 30 20 10."
        ),
    )
    fixed_table = forms.BooleanField(
        label=gettext_lazy("A fixed table"),
        required=False,
        help_text=gettext_lazy(
            "Members: those through from the stage before are seated at final tables of the"
            " rules' players, the top places at table A; only they play its games."
        ),
    )
    seating = forms.ChoiceField(
        label=gettext_lazy("Seats at a fixed table"), choices=Stage.SEATING, required=False
    )

    def _date(self, name: str) -> datetime.date:
        try:
            return parse_date(self.cleaned_data[name])
        except ValueError:
            raise forms.ValidationError(BAD_DATE, code="invalid") from None

    def clean_first_day(self) -> datetime.date:
        return self._date("first_day")

    def clean_last_day(self) -> datetime.date:
        return self._date("last_day")

    def clean_advance(self) -> int | None:
        text = self.cleaned_data["advance"].strip()
        if not text:
            return None
        try:
            return scoring.parse_integer(text)
        except ValueError:
            raise forms.ValidationError(_("Enter a number."), code="invalid") from None

    def clean_advance_share(self) -> int | None:
        text = unicodedata.normalize("NFKC", self.cleaned_data["advance_share"]).strip()
        text = text.removesuffix("%").strip()
        if not text:
            return None
        try:
            return scoring.parse_integer(text)
        except ValueError:
            raise forms.ValidationError(
                _("Enter a whole percent from 1 to 99, or leave it empty."), code="invalid"
            ) from None

    def clean_bonus(self) -> list[int]:
        text = unicodedata.normalize("NFKC", self.cleaned_data["bonus"])
        parts = [p for p in text.replace("、", " ").replace(",", " ").split() if p]
        try:
            return [parse_points(p) for p in parts]
        except ValueError:
            raise forms.ValidationError(BAD_POINTS, code="invalid") from None
