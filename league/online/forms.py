"""The two steps of recording an online game: the log (pasted or uploaded), then who is who."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from league.core.clock import BAD_DATE, parse_date
from league.models import Member
from scoring.online import MAX_LOG_BYTES


class LogForm(forms.Form):
    text = forms.CharField(
        label=_("Paste the log"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "autocomplete": "off", "spellcheck": "false"}),
        help_text=_("A Tenhou JSON log (雀魂 logs converted to it) or a Tenhou mjlog XML."),
    )
    file = forms.FileField(
        label=_("Or upload the log file"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": ".json,.xml,.mjlog,.txt"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        upload = cleaned.get("file")
        if upload:
            if upload.size > MAX_LOG_BYTES:
                raise forms.ValidationError(_("The file is too large for one game's log."))
            data = upload.read()
            try:
                cleaned["log"] = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise forms.ValidationError(_("The file is not a text log.")) from None
            cleaned["filename"] = upload.name or ""
        elif (cleaned.get("text") or "").strip():
            cleaned["log"] = cleaned["text"]
            cleaned["filename"] = ""
        else:
            raise forms.ValidationError(_("Paste a log or choose its file."))
        if len(cleaned["log"]) > MAX_LOG_BYTES:
            raise forms.ValidationError(_("The file is too large for one game's log."))
        return cleaned


class MapForm(forms.Form):
    """The log again (hidden: it is read and checked once more), the date, and per seat the
    member the online name is."""

    log = forms.CharField(widget=forms.HiddenInput, max_length=MAX_LOG_BYTES)
    filename = forms.CharField(widget=forms.HiddenInput, required=False, max_length=200)
    date = forms.CharField(
        label=_("Date"),
        max_length=30,
        widget=forms.TextInput(attrs={"autocomplete": "off", "placeholder": "2026/11/21"}),
    )

    def __init__(
        self,
        *args: Any,
        names: Sequence[str],
        members: Sequence[Member],
        remembered: dict[str, Member],
        rates: Sequence[str] = (),
        rate: str = "",
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        if rates:  # the club plays for money: the rate of the day, as on the plain form
            self.fields["rate"] = forms.ChoiceField(
                label=_("Rate"),
                choices=[(name, name) for name in rates] + [("", _("No money"))],
                initial=rate,
                required=False,
            )
        self.names = list(names)
        self.members = {str(m.pk): m for m in members}
        choices = [("", _("Choose a member")), *((k, m.name) for k, m in self.members.items())]
        for i, name in enumerate(self.names):
            known = remembered.get(name)
            self.fields[f"member_{i}"] = forms.ChoiceField(
                label=name,
                choices=choices,
                initial=str(known.pk) if known is not None else "",
                error_messages={"required": _("Choose a member.")},
            )

    def clean_date(self) -> datetime.date:
        try:
            return parse_date(str(self.cleaned_data["date"]))
        except ValueError:
            raise forms.ValidationError(BAD_DATE, code="invalid") from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        chosen = [cleaned.get(f"member_{i}") for i in range(len(self.names))]
        picked = [c for c in chosen if c]
        if len(picked) != len(set(picked)):
            raise forms.ValidationError(_("Choose a different member for each seat."))
        return cleaned

    def chosen_members(self) -> list[Member]:
        return [self.members[self.cleaned_data[f"member_{i}"]] for i in range(len(self.names))]

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"member_{i}"] for i in range(len(self.names))]
