"""API tokens: an organiser creates one for a bot or a client, sees its secret once, revokes it.

Organisers only. The list shows every token of the club (whoever created it), so that another
organiser can revoke a token left behind by someone who no longer runs the club.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from league.access import club_for
from league.accounts import tokens as api_auth
from league.core.errors import ServiceError
from league.models import ApiToken, Club
from league.web import add_errors, show_errors


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("What uses it, e.g. “LINE bot”."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]


def _render(request: HttpRequest, club: Club, form: TokenForm, secret: str = "") -> HttpResponse:
    tokens = ApiToken.objects.filter(club=club).select_related("user").order_by("-created_at")
    context = {"club": club, "form": form, "tokens": tokens, "secret": secret}
    return render(request, "league/api/token_list.html", context)


@never_cache  # the page that shows a new secret must not be kept by a browser or a proxy
@require_http_methods(["GET", "POST"])
def token_list(request: HttpRequest, slug: str) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    form = TokenForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            token, secret = api_auth.token_create(
                club=club, user=request.user, name=form.cleaned_data["name"]
            )
        except ServiceError as e:
            add_errors(form, e)
        else:
            # Rendered, not redirected: the secret exists only in this response.
            messages.success(request, _("Token “%(name)s” created.") % {"name": token.name})
            return _render(request, club, TokenForm(), secret=secret)
    return _render(request, club, form)


@require_POST
def token_revoke(request: HttpRequest, slug: str, token_id: int) -> HttpResponse:
    club = club_for(request, slug, organiser=True)
    token = get_object_or_404(ApiToken.objects.select_related("club"), pk=token_id, club=club)
    try:
        api_auth.token_revoke(token=token, user=request.user)
    except ServiceError as e:
        show_errors(request, e)
    else:
        messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("tokens:token_list", club.slug)
