"""The standings filter: which games the table counts (dates, season, rate tier) and who qualifies.

django-filter builds and validates the form from GET parameters; the view does not use the
FilterSet's queryset but hands the cleaned values to `league.standings.stats.standings`, which aggregates in
the database (`standings_args`).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

import django_filters
from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from league.core.clock import BAD_DATE, parse_date
from league.models import Result, Season

END_BEFORE_START = _("The last day cannot be before the first day.")
MAX_MIN_GAMES = 9999


class LooseDateField(forms.DateField):
    """A date as people type it in Japan: 2026/11/21, ２０２６年１１月２１日 (forms.parse_date)."""

    default_error_messages = {"invalid": BAD_DATE}
    widget = forms.DateInput(
        format="%Y/%m/%d",
        attrs={"placeholder": "2026/11/21", "autocomplete": "off", "size": 10, "data-date": ""},
    )

    def to_python(self, value: Any) -> datetime.date | None:
        if value in self.empty_values:
            return None
        if isinstance(value, datetime.date):
            return value
        try:
            return parse_date(str(value))
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None


class LooseDateFilter(django_filters.DateFilter):
    field_class = LooseDateField


class CountField(forms.IntegerField):
    """A small count; int() already reads full-width digits (１０)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "numeric", "size": "4"}))
        super().__init__(min_value=0, max_value=MAX_MIN_GAMES, **kwargs)


class CountFilter(django_filters.NumberFilter):
    field_class = CountField


class StandingsFilterForm(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        start, end = cleaned.get("start"), cleaned.get("end")
        if start and end and end < start:
            self.add_error("end", forms.ValidationError(END_BEFORE_START, code="order"))
        return cleaned


def _unfiltered(queryset: Any, name: str, value: Any) -> Any:
    """The values go to stats.standings (see `standings_args`), not to this queryset."""
    return queryset


class StandingsFilter(django_filters.FilterSet):
    """GET parameters `start`, `end`, `season`, `rate` and `min_games`, all optional.

    `seasons` (already fetched by the view) become the season choices without another query;
    `rates` are the rate tiers of the club's rules, offered only when there are several. `fields`
    keeps only the named filters (the season page offers the rate tier alone).
    """

    start = LooseDateFilter(label=pgettext_lazy("period", "From"), method=_unfiltered)
    end = LooseDateFilter(label=pgettext_lazy("period", "To"), method=_unfiltered)
    season = django_filters.ChoiceFilter(
        label=_("Season"), empty_label=_("All seasons"), method=_unfiltered
    )
    rate = django_filters.ChoiceFilter(
        label=_("Rate"), empty_label=_("All rates"), method=_unfiltered
    )
    min_games = CountFilter(label=_("Minimum games"), method=_unfiltered)

    class Meta:
        model = Result
        fields: list[str] = []
        form = StandingsFilterForm

    def __init__(
        self,
        data: Any = None,
        *,
        seasons: Sequence[Season] = (),
        rates: Iterable[str] = (),
        fields: Iterable[str] | None = None,
    ) -> None:
        super().__init__(data, queryset=Result.objects.none())
        self.seasons = {str(s.pk): s for s in seasons}
        rate_names = list(rates)
        keep = set(self.filters) if fields is None else set(fields)
        if len(rate_names) < 2:
            keep.discard("rate")
        if not seasons:
            keep.discard("season")
        for name in list(self.filters):
            if name not in keep:
                del self.filters[name]
        if "season" in self.filters:
            self.filters["season"].extra["choices"] = [(k, s.name) for k, s in self.seasons.items()]
        if "rate" in self.filters:
            self.filters["rate"].extra["choices"] = [(r, r) for r in rate_names]

    def standings_args(self) -> dict[str, Any]:
        """stats.standings' `start`, `end`, `rate` (and `min_games` when given), once valid.

        A season narrows the dates to the season's (together with `start`/`end`, the days in
        both) and brings its minimum games unless `min_games` is given.
        """
        data = self.form.cleaned_data
        start, end = data.get("start"), data.get("end")
        args: dict[str, Any] = {"rate": data.get("rate") or None}
        season = self.seasons.get(data.get("season") or "")
        if season is not None:
            start = max(start, season.start) if start else season.start
            end = min(end, season.end) if end else season.end
            args["min_games"] = season.min_games
        if data.get("min_games") is not None:
            args["min_games"] = int(data["min_games"])
        return args | {"start": start, "end": end}

    @property
    def is_filtered(self) -> bool:
        return self.is_bound and any(self.data.get(name) for name in self.filters)
