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


class MemberForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=50)
    kana = forms.CharField(
        label=gettext_lazy("Reading (kana)"),
        max_length=100,
        required=False,
        help_text=gettext_lazy("Hiragana or katakana, for sorting the member list."),
    )
    is_guest = forms.BooleanField(label=gettext_lazy("Guest"), required=False)

    def clean_kana(self) -> str:
        return kana_clean(self.cleaned_data["kana"])


# --- dates and numbers as typed ----------------------------------------------------------------


class DateInputField(forms.DateField):
    """A date typed as 2026/11/21, 2026-11-21, 2026年11月21日, in full-width digits too."""

    widget = forms.DateInput(
        format="%Y/%m/%d", attrs={"placeholder": "2026/11/21", "autocomplete": "off", "size": 10}
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


# --- rules versions --------------------------------------------------------------------------
