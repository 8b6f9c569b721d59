"""Invitation pages: organisers make and cancel links; whoever opens one joins the club.

The organisers' page is club-scoped (c/<slug>/invitations/). The link itself is `join/<secret>/`,
outside the clubs: it works for someone who is not in the club yet, logged in or not. A logged-out
visitor is sent to log in or sign up and comes back to the link (`next=`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import segno
from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from league.access import club_for
from league.accounts import invitations
from league.accounts import tasks as account_tasks
from league.core.errors import ServiceError
from league.models import Club, Member, Membership
from league.models.invitations import Invitation
from league.recording.forms import NumberField
from league.web import add_errors, show_errors

GONE = 410

# --- forms -----------------------------------------------------------------------------------


class InvitationForm(forms.Form):
    role = forms.ChoiceField(
        label=gettext_lazy("Joins as"),
        choices=Membership.ROLES,
        initial=Membership.MEMBER,
    )
    member = forms.ModelChoiceField(
        label=gettext_lazy("For this player (optional)"),
        queryset=Member.objects.none(),
        required=False,
        empty_label=gettext_lazy("Anyone: they choose their name"),
        help_text=gettext_lazy("A link for one player's record works once."),
    )
    days = forms.TypedChoiceField(
        label=gettext_lazy("Works for"),
        coerce=int,
        initial=invitations.DEFAULT_EXPIRY_DAYS,
        choices=[
            (1, gettext_lazy("1 day")),
            (7, gettext_lazy("7 days")),
            (30, gettext_lazy("30 days")),
        ],
    )
    max_uses = NumberField(
        label=gettext_lazy("How many people may use it"),
        initial=1,
        help_text=gettext_lazy(
            "For a club's LINE group, enter how many may join with it. A link that makes an "
            "organiser, or is for one player, works once."
        ),
    )
    note = forms.CharField(
        label=gettext_lazy("Note (only organisers see it)"),
        max_length=100,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    email = forms.CharField(  # checked by the service, which names the field
        label=gettext_lazy("Send it by mail to (optional)"),
        max_length=254,
        required=False,
        help_text=gettext_lazy(
            "The link is mailed in the background and not shown here; the list below says "
            "whether the mail went."
        ),
        widget=forms.EmailInput(attrs={"autocomplete": "off"}),
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        member_field = self.fields["member"]
        assert isinstance(member_field, forms.ModelChoiceField)
        member_field.queryset = invitations.unlinked_members(club)
        if not invitations.mail_available():
            del self.fields["email"]


class JoinForm(forms.Form):
    """Who am I in this club: a player without a login yet, or a new player."""

    who = forms.ChoiceField(label=gettext_lazy("Your name in this club"), widget=forms.RadioSelect)
    name = forms.CharField(
        label=gettext_lazy("Your name, if you are not on the list"),
        max_length=50,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.members = {str(m.pk): m for m in invitations.unlinked_members(club)}
        choices = [(pk, m.name) for pk, m in self.members.items()]
        choices.append((invitations.NEW, _("I am not on the list: add me as a new player")))
        self.fields["who"].choices = choices  # type: ignore[attr-defined]
        if not self.members:  # the one choice there is: chosen already
            self.fields["who"].initial = invitations.NEW

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("who") == invitations.NEW and not cleaned.get("name", "").strip():
            self.add_error("name", _("Enter your name."))
        return cleaned

    def choice(self) -> Member | str:
        who = self.cleaned_data["who"]
        return invitations.NEW if who == invitations.NEW else self.members[who]


def qr_svg(link: str) -> str:
    """The link as a QR code, an inline SVG drawn here (segno): no image request, no script."""
    code = segno.make(link, error="m")
    svg = code.svg_inline(scale=5, border=2, dark="#111", light="#fff", omitsize=True)
    return mark_safe(svg)  # segno draws only paths: no text of ours is in the markup


# --- organisers ------------------------------------------------------------------------------


def _render_list(
    request: HttpRequest, club: Club, form: InvitationForm, new: dict[str, Any] | None = None
) -> HttpResponse:
    rows = list(
        invitations.with_maker_check(Invitation.objects.filter(club=club))
        .select_related("member", "created_by")
        .order_by("-created_at", "-id")[:100]
    )
    for row in rows:
        row.status = invitations.state(row)  # type: ignore[attr-defined]
    context = {"club": club, "form": form, "invitations": rows, "new": new}
    return render(request, "league/accounts/invitation_list.html", context)


@never_cache  # the page that shows a new link must not be kept by a browser or a proxy
@require_http_methods(["GET", "POST"])
def invitation_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    if request.method == "POST":
        form = InvitationForm(request.POST, club=club)
    else:  # "Invite" from a player's row on the members page: the form comes with them chosen
        form = InvitationForm(club=club, initial={"member": request.GET.get("member") or None})
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        try:
            invitation, secret = invitations.invitation_create(
                club=club,
                user=request.user,
                role=data["role"],
                member=data["member"],
                days=data["days"],
                max_uses=data["max_uses"],
                note=data["note"],
                email=data.get("email", ""),
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            if invitation.email:  # the worker makes the link and mails it: nothing to show
                _mail_enqueue(request, invitation)
                messages.success(
                    request,
                    _("The invitation mail to %(email)s is on its way.")
                    % {"email": invitation.email},
                )
                return redirect("accounts:invitation_list", club.slug)
            # Rendered, not redirected: the link exists only in this response.
            link = request.build_absolute_uri(reverse("accounts:invitation_join", args=[secret]))
            new = {"invitation": invitation, "link": link, "qr": qr_svg(link)}
            messages.success(request, _("Invitation link created."))
            response = _render_list(request, club, InvitationForm(club=club), new=new)
            response["Referrer-Policy"] = "same-origin"
            return response
    return _render_list(request, club, form)


def _mail_enqueue(request: HttpRequest, invitation: Invitation) -> None:
    """Queue the invitation's mail for the worker (league.accounts.tasks.invitation_mail)."""
    account_tasks.invitation_mail_queue(
        invitation_id=invitation.pk,
        base_url=request.build_absolute_uri("/"),
        language=translation.get_language(),
    )


@require_POST
def invitation_mail_again(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    invitation = get_object_or_404(Invitation, pk=invitation_id, club=club)
    try:
        invitation = invitations.invitation_mail_again(invitation=invitation, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        _mail_enqueue(request, invitation)
        messages.success(
            request,
            _("The invitation mail to %(email)s is on its way again.")
            % {"email": invitation.email},
        )
    return redirect("accounts:invitation_list", club.slug)


@require_POST
def invitation_revoke(request: HttpRequest, slug: str, invitation_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    invitation = get_object_or_404(Invitation, pk=invitation_id, club=club)
    try:
        invitations.invitation_revoke(invitation=invitation, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(request, _("Invitation cancelled: the link no longer works."))
    return redirect("accounts:invitation_list", club.slug)


# --- whoever has the link --------------------------------------------------------------------


def _signup_url(next_url: str) -> str | None:
    """Sign-up with a way back here, or None where sign-up is not on this installation."""
    try:
        address = reverse("accounts:signup")
    except NoReverseMatch:
        return None
    return f"{address}?{urlencode({'next': next_url})}"


@never_cache
@require_http_methods(["GET", "POST"])
def invitation_join(request: HttpRequest, secret: str) -> HttpResponse:
    invitation = invitations.invitation_for_secret(secret)
    if invitation is None:
        raise Http404
    here = reverse("accounts:invitation_join", args=[secret])
    context: dict[str, Any] = {"invitation": invitation, "invited_club": invitation.club}
    status = invitations.state(invitation)
    response: HttpResponse
    if status != invitations.OK:
        context["refusal"] = invitations.refusal(status)
        response = render(request, "league/accounts/invitation_join.html", context, status=GONE)
    elif not request.user.is_authenticated:
        context["login_url"] = f"{reverse('accounts:login')}?{urlencode({'next': here})}"
        context["signup_url"] = _signup_url(here)
        response = render(request, "league/accounts/invitation_join.html", context)
    else:
        response = _join(request, invitation, secret, context)
    # The secret is in this page's address: never send it on to another site. (Not
    # "no-referrer": a browser then sends `Origin: null` with the form, and the CSRF check fails.)
    response["Referrer-Policy"] = "same-origin"
    return response


def _join(
    request: HttpRequest, invitation: Invitation, secret: str, context: dict[str, Any]
) -> HttpResponse:
    club = invitation.club
    linked = Member.objects.filter(club=club, user=request.user, merged_into__isnull=True).first()
    member = invitation.member
    if member is not None and member.merged_into_id is not None:
        member = member.merged_into
    asks = member is None and linked is None and invitation.role == Membership.MEMBER
    form = JoinForm(request.POST if request.method == "POST" and asks else None, club=club)
    context.update(
        {
            "asks": asks,
            "form": form,
            "member": member or linked,
            "already": Membership.objects.filter(club=club, user=request.user).first(),
        }
    )
    if request.method == "POST" and (not asks or form.is_valid()):
        try:
            joined = invitations.invitation_use(
                secret=secret,
                user=request.user,
                choice=form.choice() if asks else None,
                name=form.cleaned_data.get("name", "") if asks else "",
            )
        except ServiceError as e:
            if asks:
                add_errors(form, e)
            else:  # nothing was asked: the refusal is for the page
                context["errors"] = [m for ms in e.errors.values() for m in ms]
        else:
            if joined.member is not None:
                text = _("Welcome to %(club)s, %(name)s.") % {
                    "club": club.name,
                    "name": joined.member.name,
                }
            else:
                text = _("Welcome to %(club)s.") % {"club": club.name}
            messages.success(request, text)
            return redirect("recording:club_home", club.slug)
    return render(request, "league/accounts/invitation_join.html", context)
