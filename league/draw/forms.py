"""Forms of the table draw: check-in by name (as on the record form), swaps, locks, a day's
schedule."""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from league.club.directory import NO_SUCH_MEMBER, AmbiguousMember, MemberDirectory
from league.core.clock import BAD_DATE, parse_date
from league.draw.services import MAX_ROUNDS, ROUNDS_RANGE, TIMER_MAX_MINUTES, TIMER_RANGE
from league.models import Member
from league.recording.forms import NumberField


class CheckInForm(forms.Form):
    """A name typed as on the record form (name or a reading only one member has), or a new
    guest when "add as a new guest" is ticked."""

    name = forms.CharField(
        label=_("Player"),
        max_length=50,
        widget=forms.TextInput(attrs={"list": "member-list", "autocomplete": "off"}),
    )
    guest = forms.BooleanField(label=_("Add as a new guest"), required=False)

    def __init__(
        self, *args: Any, members: list[Member], aliases: list[Member] = (), **kwargs: Any
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        # A record merged into another (league.club) is never checked in: its name finds the
        # record that stayed, as on the record form.
        self.directory = MemberDirectory(members, aliases)
        self.member: Member | None = None
        self.guest_name = ""
        self.unknown = ""  # a name that is no member (and not a new guest): for もしかして

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        name = cleaned.get("name")
        if not name:
            return cleaned
        try:
            self.member = self.directory.find(name)
        except AmbiguousMember as e:
            self.add_error("name", forms.ValidationError(e.message, code="ambiguous"))
            return cleaned
        if self.member is None:
            if cleaned.get("guest"):
                self.guest_name = " ".join(name.split())
            else:
                self.unknown = name
                self.add_error("name", forms.ValidationError(NO_SUCH_MEMBER, code="unknown"))
        return cleaned


class _MemberField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Member) -> str:  # type: ignore[override]
        return obj.name


class LeaveForm(forms.Form):
    member = _MemberField(label=_("Player"), queryset=Member.objects.none())

    def __init__(self, *args: Any, members: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["member"].queryset = members  # type: ignore[attr-defined]


class SwapForm(forms.Form):
    first = _MemberField(label=_("Swap"), queryset=Member.objects.none())
    second = _MemberField(label=_("with"), queryset=Member.objects.none())

    def __init__(self, *args: Any, members: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for name in ("first", "second"):
            self.fields[name].queryset = members  # type: ignore[attr-defined]


class LockForm(forms.Form):
    table = forms.IntegerField(widget=forms.HiddenInput)
    locked = forms.BooleanField(required=False, widget=forms.HiddenInput)


class DrawForm(forms.Form):
    seats_drawn = forms.BooleanField(
        label=_("Draw the seats (東南西北) too"), required=False, initial=True
    )
    redraw = forms.BooleanField(required=False, widget=forms.HiddenInput)


class ScheduleForm(forms.Form):
    rounds = NumberField(label=_("Rounds"), initial=5)
    seats_drawn = forms.BooleanField(
        label=_("Draw the seats (東南西北) too"), required=False, initial=True
    )

    def clean_rounds(self) -> int:
        rounds = self.cleaned_data["rounds"]
        if not 1 <= rounds <= MAX_ROUNDS:
            raise forms.ValidationError(str(ROUNDS_RANGE) % {"n": MAX_ROUNDS}, code="range")
        return rounds


class DayForm(forms.Form):
    date = forms.CharField(
        label=_("Date"),
        max_length=30,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "placeholder": "2026/11/21", "data-date": ""}
        ),
    )

    def clean_date(self) -> datetime.date:
        try:
            return parse_date(self.cleaned_data["date"])
        except ValueError:
            raise forms.ValidationError(BAD_DATE, code="invalid") from None


class RoomForm(forms.Form):
    """The projector's controls: start the countdown (minutes), stop it, show or hide the
    standings."""

    do = forms.ChoiceField(
        choices=[
            ("start", "start"),
            ("stop", "stop"),
            ("show", "show"),
            ("hide", "hide"),
            ("hold", "hold"),
            ("release", "release"),
        ]
    )
    minutes = NumberField(label=_("Minutes"), required=False, initial=45)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if (
            data.get("do") == "start"
            and data.get("minutes") is None
            and "minutes" not in self.errors
        ):
            self.add_error("minutes", str(TIMER_RANGE) % {"n": TIMER_MAX_MINUTES})
        return data
