"""Forms of the money side: settling a day's transfers, attendees, session shūgi, corrections.

Amounts are typed the way people type them ("1,140", full-width digits); parties are a member's
id or "club" (the club as a party, None in league.money).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from league.models import Club, Member
from league.money.services import MAX_SHUGI_MULTIPLIER
from league.recording.forms import NumberField

CLUB = "club"  # the club as a party in a form
PAY, BORROW, DEFER = "pay", "borrow", "defer"

BAD_PARTY = _("Choose who pays and who is paid.")
CLUB_CANNOT_OWE = _("The club cannot borrow or defer: mark it paid.")
CHOOSE_LENDER = _("Choose who lends the money.")


def party_key(party: int | None) -> str:
    """A party (member id, None for the club) as it travels in a form."""
    return CLUB if party is None else str(party)


class PartyField(forms.CharField):
    """A member's id, or "club" for the club: cleaned to int | None."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("widget", forms.HiddenInput)
        kwargs.setdefault("max_length", 20)
        super().__init__(**kwargs)

    def clean(self, value: Any) -> int | None:  # type: ignore[override]
        text = super().clean(value)
        if text == CLUB:
            return None
        if not text.isascii() or not text.isdigit():
            raise forms.ValidationError(BAD_PARTY, code="invalid")
        return int(text)


def _members(club: Club) -> Any:
    return Member.objects.filter(club=club, is_active=True)


class TransferForm(forms.Form):
    """One of the day's transfers: paid, paid with borrowed money, or deferred."""

    action = forms.ChoiceField(
        choices=[(PAY, _("Paid")), (BORROW, _("Borrow")), (DEFER, _("Defer"))],
        widget=forms.HiddenInput,
    )
    payer = PartyField()
    payee = PartyField()
    amount = NumberField(label=_("Amount (yen)"), required=False)
    lender = forms.ModelChoiceField(
        label=_("Lender"), queryset=Member.objects.none(), required=False
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["lender"].queryset = _members(club)  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        action = data.get("action")
        if action in (BORROW, DEFER) and "payer" in data and data["payer"] is None:
            self.add_error("payer", CLUB_CANNOT_OWE)
        if action == BORROW and not data.get("lender") and "lender" not in self.errors:
            self.add_error("lender", CHOOSE_LENDER)
        return data


class AttendeesForm(forms.Form):
    """Members present on the day who did not play (they still pay session shūgi)."""

    members = forms.ModelMultipleChoiceField(
        label=_("Attendees"), queryset=Member.objects.none(), widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["members"].queryset = _members(club)  # type: ignore[attr-defined]


class ShugiForm(forms.Form):
    """A session shūgi event (花月杯: a yakuman paid by every other attendee)."""

    winner = forms.ModelChoiceField(label=_("Winner"), queryset=Member.objects.none())
    multiplier = forms.TypedChoiceField(
        label=_("Multiplier"),
        coerce=int,
        choices=[(n, f"×{n}") for n in range(1, MAX_SHUGI_MULTIPLIER + 1)],
        initial=1,
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Whoever was there, active or not: the service checks they attended the day.
        self.fields["winner"].queryset = Member.objects.filter(club=club)  # type: ignore[attr-defined]


class ShugiVoidForm(forms.Form):
    shugi = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:  # as the ledger's forms
        super().__init__(*args, **kwargs)


class EntryReverseForm(forms.Form):
    note = forms.CharField(
        label=_("Reason"),
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        help_text=_("Why this entry is wrong, e.g. recorded for the wrong player."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class DayCloseForm(forms.Form):
    """締め: for each transfer still open, paid or deferred. Paid unless the organiser defers that
    row: the clubs' rules pay transfers on the day (settlement.md, マメの会 rule 2), and deferring
    adds the club's surcharge, which is a choice made row by row, never a default.

    `expected` carries the transfers the screen showed (money.transfers_key): when they changed
    meanwhile, the service refuses and nothing is stored."""

    expected = forms.CharField(widget=forms.HiddenInput, max_length=20_000, required=False)

    def __init__(self, *args: Any, transfers: list[tuple[str, str, bool]], **kwargs: Any) -> None:
        """`transfers`: (payer key, payee key, whether the payer may defer), in screen order."""
        super().__init__(*args, **kwargs)
        self.transfer_fields: list[str] = []
        for payer, payee, can_defer in transfers:
            name = f"t-{payer}-{payee}"
            choices = [(PAY, _("Paid"))] + ([(DEFER, _("Defer"))] if can_defer else [])
            self.fields[name] = forms.ChoiceField(
                label=_("Paid or deferred"),
                choices=choices,
                initial=PAY,
                widget=forms.RadioSelect,
            )
            self.transfer_fields.append(name)

    def deferred(self) -> list[tuple[int | None, int | None]]:
        """The (payer, payee) pairs chosen to defer."""
        out = []
        for name in self.transfer_fields:
            if self.cleaned_data.get(name) == DEFER:
                _t, payer, payee = name.split("-", 2)
                out.append(
                    (None if payer == CLUB else int(payer), None if payee == CLUB else int(payee))
                )
        return out
