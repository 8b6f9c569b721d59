"""Forms of the tidy-up pages: editing a member, choosing a merge, editing a season."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from league.club.forms_manage import MemberForm, SeasonForm, kana_sort_key
from league.models import Member


class MemberEditForm(MemberForm):
    """The member form (name, reading, guest) with the active flag."""

    is_active = forms.BooleanField(
        label=gettext_lazy("Active"),
        required=False,
        help_text=gettext_lazy("Inactive members stay in every result but are not offered."),
    )


class SeasonEditForm(SeasonForm):
    """The season form, for an existing season: a request without a kind leaves it as it is."""

    def clean_kind(self) -> str | None:
        return self.cleaned_data.get("kind") or None


THIS, OTHER = "this", "other"


class MergeForm(forms.Form):
    """Which other record, and which of the two stays (the other disappears into it)."""

    other = forms.TypedChoiceField(label=gettext_lazy("The other record"), coerce=int)
    keep = forms.ChoiceField(
        label=gettext_lazy("Which record stays"),
        widget=forms.RadioSelect,
        initial=THIS,
    )
    key = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self, *args: Any, member: Member, candidates: Sequence[Member], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.member = member
        ordered = sorted(candidates, key=lambda m: (not m.kana, kana_sort_key(m.kana), m.name))
        self.by_id = {m.pk: m for m in ordered}
        self.fields["other"].choices = [("", "—")] + [
            (m.pk, f"{m.name}{'（' + m.kana + '）' if m.kana else ''}") for m in ordered
        ]
        self.fields["keep"].choices = [
            (THIS, member.name),
            (OTHER, gettext_lazy("the other record")),
        ]
        # Merge was pressed on a guest's row (a guest who became a member): the member's record,
        # not the guest's, is the one to keep unless the organiser says otherwise.
        if member.is_guest:
            self.fields["keep"].initial = OTHER

    def pair(self) -> tuple[Member, Member]:
        """(keep, gone) from the valid form."""
        other = self.by_id[self.cleaned_data["other"]]
        if self.cleaned_data["keep"] == THIS:
            return self.member, other
        return other, self.member


class ClubNameForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Club name"),
        max_length=200,  # the service says when it is over the column's 100, naming the field
        help_text=gettext_lazy(
            "As the pages, the sheets and the share link show it. The club's address stays."
        ),
        error_messages={"required": gettext_lazy("Enter the club's name.")},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class RatingMinGamesForm(forms.Form):
    games = forms.IntegerField(
        label=gettext_lazy("Minimum games for the rating ranking"),
        min_value=0,
        max_value=1000,
        help_text=gettext_lazy(
            "Players with fewer counted games are listed below the ranking, not ranked: a new "
            "player's rating is still very uncertain."
        ),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
