"""Forms of a club's management pages: members, seasons and rules versions.

Fields convert what people type on a phone (full-width digits, "2026/11/21", "25,000") into real
values in `to_python`/`clean_<field>`, so that the views and services get ints and dates.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league import limits
from league.core.clock import parse_date
from league.models import Season

# --- members ---------------------------------------------------------------------------------

# Hiragana (with ゔ ゝ ゞ), katakana (with ヴ ヵ ヶ ヽ ヾ), the long vowel mark ー, and spaces.
_KANA = re.compile(r"[\u3041-\u3096\u309d\u309e\u30a1-\u30fa\u30fc\u30fd\u30fe ]*")
_KATAKANA_TO_HIRAGANA = {code: code - 0x60 for code in range(0x30A1, 0x30F7)}


def normalise_kana(text: str) -> str:
    """Half-width katakana and full-width spaces become their ordinary forms; spaces collapse."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def kana_clean(text: str) -> str:
    """A reading as typed, normalised; ValidationError unless it is kana (and spaces) only.
    The member form's rule, also for readings typed elsewhere (the import's names)."""
    kana = normalise_kana(text)
    if not _KANA.fullmatch(kana):
        raise forms.ValidationError(_("Use hiragana or katakana only."))
    return kana


def kana_sort_key(kana: str) -> str:
    """五十音 order whichever script the reading was typed in (カ and か sort together)."""
    return kana.translate(_KATAKANA_TO_HIRAGANA)


GUEST_HELP = gettext_lazy(
    "A guest is someone who visits now and then rather than a member of the club: their games "
    "count the same, and lists show them with a guest mark."
)


class MemberForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=50)
    kana = forms.CharField(
        label=gettext_lazy("Reading (kana)"),
        max_length=100,
        required=False,
        help_text=gettext_lazy("Hiragana or katakana, for sorting the member list."),
    )
    is_guest = forms.BooleanField(label=gettext_lazy("Guest"), required=False, help_text=GUEST_HELP)

    def clean_kana(self) -> str:
        return kana_clean(self.cleaned_data["kana"])


MEMBER_ROWS = 5  # rows of the "add members" form at first; "more rows" adds as many again
MEMBER_ROWS_MAX = 30


def member_rows(value: Any) -> int:
    """How many rows the add-members form shows: from ?rows= or the form, within bounds."""
    try:
        rows = int(str(value))
    except ValueError:
        return MEMBER_ROWS
    return max(1, min(rows, MEMBER_ROWS_MAX))


class MembersAddForm(forms.Form):
    """Several people at once, a row each (name, reading, guest); rows left empty are skipped.
    A reading left empty is suggested from the name (league.core.readings)."""

    def __init__(self, *args: Any, rows: int = MEMBER_ROWS, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.rows = rows
        for i in range(rows):
            self.fields[f"name_{i}"] = forms.CharField(
                label=gettext_lazy("Name"),
                max_length=50,
                required=False,
                widget=forms.TextInput(attrs={"autocomplete": "off"}),
            )
            self.fields[f"kana_{i}"] = forms.CharField(
                label=gettext_lazy("Reading (kana)"),
                max_length=100,
                required=False,
                widget=forms.TextInput(
                    attrs={"autocomplete": "off", "placeholder": gettext_lazy("from the name")}
                ),
            )
            self.fields[f"guest_{i}"] = forms.BooleanField(
                label=gettext_lazy("Guest"), required=False
            )

    def row_fields(self) -> list[tuple[int, forms.BoundField, forms.BoundField, forms.BoundField]]:
        return [
            (i + 1, self[f"name_{i}"], self[f"kana_{i}"], self[f"guest_{i}"])
            for i in range(self.rows)
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        named = 0
        for i in range(self.rows):
            name = cleaned.get(f"name_{i}", "").strip()
            kana = cleaned.get(f"kana_{i}", "")
            if name:
                named += 1
            elif kana or cleaned.get(f"guest_{i}"):
                self.add_error(f"name_{i}", _("Enter a name."))
            if kana:
                try:
                    cleaned[f"kana_{i}"] = kana_clean(kana)
                except forms.ValidationError as e:
                    self.add_error(f"kana_{i}", e)
        if not named and not self.errors:
            self.add_error("name_0", _("Enter a name."))
        return cleaned

    def people(self) -> dict[int, tuple[str, str, bool]]:
        """{row: (name, reading, guest)} of each row with a name, from the valid form."""
        data = self.cleaned_data
        return {
            i: (data[f"name_{i}"], data.get(f"kana_{i}", ""), bool(data.get(f"guest_{i}")))
            for i in range(self.rows)
            if data.get(f"name_{i}", "").strip()
        }


# --- dates and numbers as typed ----------------------------------------------------------------


class DateInputField(forms.DateField):
    """A date typed as 2026/11/21, 2026-11-21, 2026年11月21日, in full-width digits too."""

    widget = forms.DateInput(
        format="%Y/%m/%d",
        attrs={"placeholder": "2026/11/21", "autocomplete": "off", "size": 10, "data-date": ""},
    )

    def __init__(self, *, season_end: bool = False, **kwargs: Any):
        self.season_end = season_end
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> datetime.date | None:
        if isinstance(value, datetime.date) or value in self.empty_values:
            return super().to_python(value)
        try:
            return parse_date(str(value))
        except ValueError:
            raise forms.ValidationError(
                _("Enter a date such as 2026/11/21."), code="invalid"
            ) from None

    def validate(self, value: Any) -> None:
        super().validate(value)
        if isinstance(value, datetime.date):
            problem = limits.date_problem(value, season_end=self.season_end)
            if problem is not None:
                raise forms.ValidationError(problem, code="out_of_range")


class NumberField(forms.IntegerField):
    """An integer as people type it: full-width digits, "25,000", ▲ or − for minus."""

    def __init__(self, *, signed: bool = False, **kwargs: Any):
        # Phone keypads for inputmode=numeric have no minus key, so signed fields get text.
        attrs = {"inputmode": "text" if signed else "numeric", "autocomplete": "off", "size": 7}
        kwargs.setdefault("widget", forms.TextInput(attrs=attrs))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> int | None:
        if isinstance(value, int) or value in self.empty_values:
            return super().to_python(value)
        try:
            return scoring.parse_integer(str(value))
        except ValueError:
            raise forms.ValidationError(_("Enter a whole number."), code="invalid") from None


# --- seasons ---------------------------------------------------------------------------------


class SeasonForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    start = DateInputField(label=gettext_lazy("First day"))
    end = DateInputField(label=gettext_lazy("Last day"), season_end=True)
    min_games = NumberField(
        label=gettext_lazy("Minimum games to qualify"), min_value=0, max_value=10_000, initial=0
    )
    kind = forms.ChoiceField(
        label=gettext_lazy("Kind"),
        choices=Season.KINDS,
        initial=Season.INDIVIDUAL,
        required=False,  # not sent: an individual season
        widget=forms.RadioSelect,
    )
    in_club_season = forms.BooleanField(
        label=gettext_lazy("Its games also count in the individual season"),
        required=False,
        help_text=gettext_lazy(
            "A team league or an event only: left unticked, its own games (its match tables, its "
            "stages' days) count in it alone."
        ),
    )
    # Asked only when the dates overlap a season of the same kind (the service's error shows it).
    confirm_overlap = forms.BooleanField(
        label=gettext_lazy("Save it with the dates overlapping"),
        required=False,
        widget=forms.HiddenInput,
    )

    def clean_kind(self) -> str:
        return self.cleaned_data.get("kind") or Season.INDIVIDUAL

    def add_error(self, field: str | None, error: Any) -> None:
        super().add_error(field, error)
        if field == "confirm_overlap":  # the question is asked: a box to tick
            self.fields["confirm_overlap"].widget = forms.CheckboxInput()


# --- rules versions --------------------------------------------------------------------------
