"""Signing up, starting a club (club → rules → first season), one's account, and memberships.

Sign-up can be switched off (settings.SIGNUP) and is throttled per address (league.throttle).
The sign-up page honours a same-site `next=` like the login page, so that a link (an invitation)
can send someone through sign-up and back.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import logging
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login as auth_login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.forms.utils import ErrorDict
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import Resolver404, resolve, reverse, reverse_lazy
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import scoring
from league import limits, throttle
from league.access import club_for
from league.accounts import invitations, services
from league.accounts import tasks as account_tasks
from league.accounts.forms import ClubForm, FirstSeasonForm, MembershipRoleForm, SignupForm
from league.accounts.views import login as views_auth
from league.core.errors import ServiceError
from league.models import Member, Membership
from league.rules.presets import preset_label
from league.rules.views import example_points, example_response
from league.web import add_errors, show_errors

logger = logging.getLogger(__name__)

# Sign-ups stored from one address in `window` before more are refused: enough for a club's
# members signing up on the parlour's network one evening, few for a script.
SIGNUP_LIMIT = 10
SIGNUP_LIMITS = throttle.Limits(
    pair=SIGNUP_LIMIT,
    name=SIGNUP_LIMIT,
    address=SIGNUP_LIMIT,
    window=datetime.timedelta(hours=1),
    kind="signup",
)
SIGNUP_THROTTLED = gettext_lazy(
    "Too many accounts were created from this network in the last hour. Try again later."
)
TOO_MANY_REQUESTS = 429
# Club addresses found taken, asked from one network: at sign-up's pace (a taken address tells
# that a club exists, as a taken user name tells that an account does).
SLUG_LIMITS = dataclasses.replace(SIGNUP_LIMITS, kind="slug")
SLUG_THROTTLED = gettext_lazy(
    "Too many club addresses were checked from this network in the last hour. Try again later."
)
# Password-reset mails asked for from one address in an hour: each sends a mail to whoever owns
# the address typed, so a script must not be able to flood someone's mailbox.
RESET_LIMIT = 10
RESET_MAILBOX_LIMIT = 3  # mails to one address an hour, wherever they are asked from
RESET_LIMITS = throttle.Limits(
    pair=RESET_MAILBOX_LIMIT,
    name=RESET_MAILBOX_LIMIT,
    address=RESET_LIMIT,
    window=datetime.timedelta(hours=1),
    kind="reset",
)
RESET_THROTTLED = gettext_lazy(
    "Too many password-reset mails were asked for in the last hour, from this network or for "
    "this address. Try again later."
)


def _next(request: HttpRequest) -> str:
    """A same-site `next` from the query or the form, else ""."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _invitation_in(next_url: str):
    """The usable invitation whose link `next` is, or None: its holder may sign up even where
    SIGNUP is off (on a private installation, people join by invitation)."""
    if not next_url:
        return None
    try:
        match = resolve(urlsplit(next_url).path)
    except Resolver404:
        return None
    if match.view_name != "accounts:invitation_join":
        return None
    invitation = invitations.invitation_for_secret(match.kwargs.get("secret", ""))
    if invitation is None or invitations.state(invitation) != invitations.OK:
        return None
    return invitation


def _after_signup(next_url: str) -> str:
    """Where a new account goes: back to `next`, unless that is the list of one's clubs or a
    club's page (a new account has no club, so both would be empty or refused): then to starting
    a club, which is what the sign-up was for."""
    if next_url:
        try:
            match = resolve(urlsplit(next_url).path)
        except Resolver404:
            return next_url
        if match.view_name != "site:home" and "slug" not in match.kwargs:
            return next_url
    return reverse("accounts:club_new")


# --- sign-up ---------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    next_url = _next(request)
    # Sign-up off: only through a usable invitation link (looked up once per request).
    invitation = None if settings.SIGNUP else _invitation_in(next_url)
    if not settings.SIGNUP and invitation is None:
        return render(request, "league/accounts/signup_closed.html", status=404)
    if request.user.is_authenticated:
        return redirect(next_url or "accounts:club_new")
    form = SignupForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.has_error("username", "unique"):
        # A taken name tells that the name exists: counted as a sign-up, so that names cannot be
        # tried one after another without limit.
        block = throttle.address_block(throttle.client_address(request))
        attempt = throttle.attempt_begin(username=block, address=block, limits=SIGNUP_LIMITS)
        if attempt is None:  # refused, without saying whether the name is taken
            form._errors = ErrorDict()
            form.add_error(None, SIGNUP_THROTTLED)
            status = TOO_MANY_REQUESTS
        else:
            throttle.attempt_failed(attempt)
    elif request.method == "POST" and form.is_valid():
        block = throttle.address_block(throttle.client_address(request))
        attempt = throttle.attempt_begin(username=block, address=block, limits=SIGNUP_LIMITS)
        if attempt is None:
            form.add_error(None, SIGNUP_THROTTLED)
            status = TOO_MANY_REQUESTS
        else:
            try:
                if invitation is not None:
                    user = services.signup_by_invitation(
                        invitation=invitation,
                        username=form.cleaned_data["username"],
                        password=form.cleaned_data["password1"],
                        email=form.cleaned_data.get("email", ""),
                    )
                else:
                    user = services.signup(
                        username=form.cleaned_data["username"],
                        password=form.cleaned_data["password1"],
                        email=form.cleaned_data.get("email", ""),
                    )
            except ServiceError as e:
                if "username" in e.errors:  # a taken name (in another width): it counts
                    throttle.attempt_failed(attempt)
                else:  # nothing was created and nothing told: it does not count
                    throttle.attempt_succeeded(attempt)
                add_errors(form, e)
            else:
                throttle.attempt_failed(attempt)  # stays counted: sign-ups are what is limited
                auth_login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
                messages.success(request, _("Welcome, %(name)s.") % {"name": user.get_username()})
                return redirect(_after_signup(next_url))
    return render(
        request, "league/accounts/signup.html", {"form": form, "next": next_url}, status=status
    )


# --- password reset, throttled --------------------------------------------------------------


class ThrottledPasswordResetForm(PasswordResetForm):
    address = throttle.UNKNOWN_ADDRESS

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        """Queued for the worker (league.accounts.tasks), in the request's language: the response
        never waits for the mail server, so a known address and an unknown one are answered in
        the same time."""
        account_tasks.password_reset_queue(
            user_id=context["user"].pk,
            domain=context["domain"],
            site_name=context["site_name"],
            protocol=context["protocol"],
            language=translation.get_language(),
        )

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        # Counted per mailbox (its hash: no address is stored) and per sender's network.
        mailbox = hashlib.sha256(cleaned["email"].strip().lower().encode()).hexdigest()[:40]
        attempt = throttle.attempt_begin(
            username=mailbox, address=throttle.address_block(self.address), limits=RESET_LIMITS
        )
        if attempt is None:
            raise forms.ValidationError(RESET_THROTTLED, code="throttled")
        throttle.attempt_failed(attempt)  # stays counted: mails sent are what is limited
        return cleaned


class PasswordResetView(auth_views.PasswordResetView):
    form_class = ThrottledPasswordResetForm
    template_name = "registration/password_reset_form.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"
    http_method_names = ["get", "head", "post"]

    def dispatch(self, request, *args, **kwargs):
        if not settings.PASSWORD_RESET_BY_MAIL:  # no mail server: no link to print to a log
            return render(request, "registration/password_reset_unavailable.html", status=404)
        return super().dispatch(request, *args, **kwargs)

    def get_form(self, form_class=None):
        form = super().get_form(form_class)
        form.address = throttle.client_address(self.request)
        return form

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.has_error("__all__", "throttled"):
            response.status_code = TOO_MANY_REQUESTS
        return response


password_reset = PasswordResetView.as_view(success_url=reverse_lazy("accounts:password_reset_done"))


# --- a new club --------------------------------------------------------------------------------


def _may_start_clubs(user) -> bool:
    """Anyone logged in, where sign-up is open. On a private installation (SIGNUP=false), only
    the administrators and the organisers of a club: people invited into a club do not start
    new ones."""
    if settings.SIGNUP or user.is_staff or user.is_superuser:
        return True
    return Membership.objects.filter(user=user, role=Membership.ORGANISER).exists()


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def club_new(request: HttpRequest) -> HttpResponse:
    if not _may_start_clubs(request.user):
        return render(request, "league/accounts/club_new_closed.html", status=404)
    first = next(iter(scoring.PRESETS))
    status = 200
    form = ClubForm(
        request.POST or None,
        user=request.user,
        initial={"rules_from": services.PRESET_PREFIX + first},
    )
    if request.method == "POST":
        sent_slug = request.POST.get("slug", "").strip()
        if not sent_slug and request.POST.get("name", "").strip():
            # No script: suggest a short name from the club's name, to check and send again.
            data = request.POST.copy()
            data["slug"] = services.slug_suggest(request.POST["name"])
            form = ClubForm(data, user=request.user)
            form.is_valid()
            messages.info(request, _("A short name was suggested: check it and create the club."))
        elif (
            services.slug_format_problem(slug := services.slug_normalised(sent_slug)) is None
            and _taken_at_pace(request, slug) is None
        ):
            # Over the pace of "taken" answers: say nothing about this name either.
            messages.error(request, str(SLUG_THROTTLED))
            form = ClubForm(initial=request.POST.dict(), user=request.user)
            status = 429
        elif form.is_valid():
            try:
                club = services.club_create(user=request.user, **form.cleaned_data)
            except ServiceError as e:
                add_errors(form, e)
            else:
                messages.success(request, _("%(name)s was created.") % {"name": club.name})
                return redirect("accounts:club_first_season", club.slug)
    descriptions = {
        services.PRESET_PREFIX + name: preset_label(name)[1] for name in scoring.PRESETS
    }
    context = {
        "form": form,
        "rule_options": [
            (radio, descriptions.get(str(radio.data["value"]), "")) for radio in form["rules_from"]
        ],
        "example_note": _("One hanchan settled under the chosen rules."),
    }
    return render(request, "league/accounts/club_new.html", context, status=status)


@login_required
@require_POST
def club_new_example(request: HttpRequest) -> JsonResponse:
    """The new club page's worked example: a hanchan settled under the chosen rules."""
    try:
        rules_json, _preset = services.rules_for_choice(
            user=request.user, choice=request.POST.get("rules_from", "")
        )
    except ServiceError as e:
        return JsonResponse({"errors": [m for ms in e.errors.values() for m in ms]})
    rules = scoring.rules_from_json(rules_json)
    return example_response(rules, example_points(rules))


@login_required
@require_GET
def slug_check(request: HttpRequest) -> JsonResponse:
    """{"slug": the short name as it would be stored (a suggestion from `name` when `slug` is
    empty), "error": why it cannot be used, or ""}.

    Only for someone who may start a club (else 404). Whether a name is taken tells that a club
    exists: each "taken" counts as a sign-up from the sender's network (SIGNUP_LIMITS, kind
    "slug"), and over that pace no answer about any name is given (429); a badly formed name is
    no secret and is always answered."""
    if not _may_start_clubs(request.user):
        raise Http404
    sent = request.GET.get("slug", "")[:200]
    if sent.strip():
        slug = services.slug_normalised(sent)
    else:
        slug = services.slug_suggest(request.GET.get("name", "")[:200])
    problem = services.slug_format_problem(slug)
    if problem is None:
        taken = _taken_at_pace(request, slug)
        if taken is None:
            return JsonResponse({"slug": slug, "error": str(SLUG_THROTTLED)}, status=429)
        if taken:
            problem = str(services.SLUG_TAKEN)
    return JsonResponse({"slug": slug, "error": problem or ""})


def _taken_at_pace(request: HttpRequest, slug: str) -> bool | None:
    """Whether a well-formed short name is taken, told at sign-up's pace: each "taken" counts as
    a sign-up from the sender's network (SLUG_LIMITS); None once over that pace (tell nothing)."""
    block = throttle.address_block(throttle.client_address(request))
    if throttle.is_throttled(username=block, address=block, limits=SLUG_LIMITS):
        return None
    if not services.slug_taken(slug):
        return False
    attempt = throttle.attempt_begin(username=block, address=block, limits=SLUG_LIMITS)
    if attempt is None:
        return None
    throttle.attempt_failed(attempt)
    return True


@require_http_methods(["GET", "HEAD", "POST"])
def club_first_season(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    form = FirstSeasonForm(request.POST or None, initial=services.first_season_defaults())
    if request.method == "POST" and form.is_valid():
        try:
            season = services.first_season_create(club=club, user=request.user, **form.cleaned_data)
        except ServiceError as e:
            add_errors(form, e)
        else:
            messages.success(request, _("Season %(name)s was created.") % {"name": season.name})
            return redirect("recording:club_home", club.slug)
    return render(request, "league/accounts/club_first_season.html", {"club": club, "form": form})


# --- one's account ---------------------------------------------------------------------------


class EmailForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("E-mail"),
        required=False,
        max_length=254,
        help_text=gettext_lazy("Used only to send you a link when you forget your password."),
    )

    password = forms.CharField(
        label=gettext_lazy("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=gettext_lazy("Password reset mails go to this address: confirm it is you."),
        error_messages={"required": gettext_lazy("Enter your password.")},
    )

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip()

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not views_auth.password_checked(self.request, self.user, password):
            raise forms.ValidationError(_("The password is not right."), code="wrong_password")
        return password

    def __init__(
        self, *args: Any, user: Any, request: HttpRequest | None = None, **kwargs: Any
    ) -> None:
        self.user = user
        self.request = request
        kwargs.setdefault("label_suffix", "")
        # Full-width input (ｙａｍａｄａ＠…) as a Japanese keyboard may type it: made half-width.
        if args and args[0] is not None and "email" in args[0]:
            data = args[0].copy()
            data["email"] = unicodedata.normalize("NFKC", data["email"])
            args = (data, *args[1:])
        super().__init__(*args, **kwargs)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """One's clubs and roles, and one's e-mail address (for password reset)."""
    form = EmailForm(
        request.POST if request.method == "POST" else None,
        initial={"email": request.user.email},
        user=request.user,
        request=request,
    )
    if request.method == "POST" and form.is_valid():
        services.email_change(user=request.user, email=form.cleaned_data["email"])
        messages.success(request, _("Your e-mail address was saved."))
        return redirect("accounts:account")
    memberships = (
        Membership.objects.filter(user=request.user)
        .select_related("club")
        .order_by("club__name", "club__slug")
    )
    context = {"memberships": memberships, "email_form": form}
    return render(request, "league/accounts/account.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
def club_leave(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug)
    membership = Membership.objects.filter(club=club, user=request.user).first()
    if membership is None:  # a superuser who is not a member: nothing to leave
        raise Http404
    if request.method == "POST":
        try:
            services.membership_leave(club=club, user=request.user)
        except ServiceError as e:
            show_errors(request, e)
            return redirect("accounts:club_leave", club.slug)
        messages.success(request, _("You left %(name)s.") % {"name": club.name})
        return redirect("accounts:account")
    last = membership.role == Membership.ORGANISER and not (
        Membership.objects.filter(club=club, role=Membership.ORGANISER)
        .exclude(pk=membership.pk)
        .exists()
    )
    return render(
        request, "league/accounts/club_leave.html", {"club": club, "last_organiser": last}
    )


@require_http_methods(["GET", "HEAD", "POST"])
def memberships(request: HttpRequest, slug: str) -> HttpResponse:
    """Who may log in to the club, and as what; organisers change roles or remove people."""
    club = club_for(request, slug, organiser=True)
    if request.method == "POST":
        _membership_change(request, club)
        # An organiser who made themselves a member, or removed themselves, cannot come back here.
        if (
            request.user.is_superuser
            or Membership.objects.filter(
                club=club, user=request.user, role=Membership.ORGANISER
            ).exists()
        ):
            return redirect("accounts:memberships", club.slug)
        return redirect("accounts:account")
    rows = list(
        Membership.objects.filter(club=club)
        .select_related("user")
        .order_by("-role", "user__username")
    )
    players: dict[int, list[str]] = {}
    linked = Member.objects.filter(club=club, user__isnull=False).order_by("name")
    for user_id, name in linked.values_list("user_id", "name"):
        players.setdefault(user_id, []).append(name)
    for row in rows:
        row.players = players.get(row.user_id, [])  # type: ignore[attr-defined]
    organisers = sum(1 for m in rows if m.role == Membership.ORGANISER)
    asked = request.GET.get("remove", "")
    asked_id = limits.row_id(asked)
    confirm = next((m for m in rows if asked_id is not None and m.pk == asked_id), None)
    return render(
        request,
        "league/accounts/memberships.html",
        {
            "club": club,
            "rows": rows,
            "roles": Membership.ROLES,
            "organisers": organisers,
            "organiser_role": Membership.ORGANISER,
            "confirm": confirm,
        },
    )


def _membership_change(request: HttpRequest, club) -> None:
    form = MembershipRoleForm(request.POST)
    action = request.POST.get("action", "")
    if action == "remove":
        form.fields["role"].required = False
    if not form.is_valid() or action not in ("role", "remove"):
        messages.error(request, _("Choose a role."))
        return
    membership = get_object_or_404(Membership, pk=form.cleaned_data["membership"], club=club)
    try:
        if action == "remove":
            services.membership_remove(membership=membership, actor=request.user)
            text = _("%(name)s can no longer open this club.")
        else:
            services.membership_set_role(
                membership=membership, role=form.cleaned_data["role"], actor=request.user
            )
            text = _("%(name)s's role was changed.")
    except ServiceError as e:
        show_errors(request, e)
        return
    messages.success(request, text % {"name": membership.user.get_username()})
