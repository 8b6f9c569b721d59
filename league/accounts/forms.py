"""Forms for signing up, starting a club, and memberships."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from league.accounts import services
from league.club.forms_manage import SeasonForm
from league.models import Membership


class SignupForm(UserCreationForm):
    """User name, password twice (Django's validators), optional e-mail."""

    email = forms.EmailField(
        label=_("E-mail (optional)"),
        required=False,
        help_text=_("Only used to send you a link if you forget your password."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("User name")
        self.fields["username"].help_text = _(
            "What you type to log in: letters (Japanese too), digits and @ . + - _, no spaces."
        )
        self.fields["username"].widget.attrs.update(
            {"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        )
        self.fields["password1"].label = _("Password")
        self.fields["password2"].label = _("Password (again)")
        self.fields["password2"].help_text = ""
        self.fields["username"].error_messages["required"] = _("Enter a user name.")
        self.fields["password1"].error_messages["required"] = _("Enter a password.")
        self.fields["password2"].error_messages["required"] = _("Enter the password again.")
        self.fields["password1"].widget.attrs["autocomplete"] = "new-password"
        self.fields["password2"].widget.attrs["autocomplete"] = "new-password"


class ClubForm(forms.Form):
    name = forms.CharField(label=_("Club name"), max_length=100)
    slug = forms.CharField(
        label=_("Short name for the address"),
        max_length=100,
        help_text=_("The club's pages will be at /c/<short name>/. Letters a-z, digits, hyphens."),
        widget=forms.TextInput(
            attrs={"autocapitalize": "none", "spellcheck": "false", "autocomplete": "off"}
        ),
    )
    rules_from = forms.ChoiceField(
        label=_("Rules"), widget=forms.RadioSelect, error_messages={"required": _("Choose rules.")}
    )
    player_name = forms.CharField(
        label=_("Your name as a player (optional)"),
        max_length=50,
        required=False,
        help_text=_(
            "If you play too: your games are recorded under this name and My page shows them."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["rules_from"].choices = services.rules_choices(user)
        self.fields["name"].error_messages["required"] = _("Enter the club's name.")
        self.fields["slug"].error_messages["required"] = _(
            "Enter a short name for the club's address."
        )

    def clean_slug(self) -> str:
        slug = services.slug_normalised(self.cleaned_data["slug"])
        problem = services.slug_problem(slug)
        if problem is not None:
            raise forms.ValidationError(problem)
        return slug


class FirstSeasonForm(SeasonForm):
    """A new club's first season: its individual season (a team league or an event comes later,
    from the seasons page), over no other season."""

    kind = None
    in_club_season = None
    confirm_overlap = None


class MembershipRoleForm(forms.Form):
    membership = forms.IntegerField(widget=forms.HiddenInput)
    role = forms.ChoiceField(label=_("Role"), choices=Membership.ROLES)
