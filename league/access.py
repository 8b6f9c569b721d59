"""The one place that decides who may see and change a club's data."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Subquery
from django.http import Http404, HttpRequest

from league.models import Club, Day, Member, Membership, PageVersion


def club_for(request: HttpRequest, slug: str, *, organiser: bool = False) -> Club:
    """The club at `slug` if the user belongs to it, else 404 (its existence must not leak).

    With `organiser=True`, a member who is not an organiser gets 403: they know the club exists.
    Sets `club.is_organiser` for templates, and `club.viewer_linked` (the user is linked to one of
    the club's member records: the nav shows "My page"), read in the same query as the role.
    Superusers may see and manage every club.
    """
    user = request.user
    if not user.is_authenticated:
        raise Http404
    try:
        clubs = Club.objects.all()
        if settings.PAGE_CACHE:  # the kept pages' token, read before the page's data (pagecache)
            clubs = clubs.annotate(page_token=Subquery(PageVersion.objects.values("token")[:1]))
        club = clubs.get(slug=slug)
    except Club.DoesNotExist:
        raise Http404 from None
    if user.is_superuser:
        club.is_organiser = True  # type: ignore[attr-defined]
        club.viewer_linked = False  # type: ignore[attr-defined]
        request.club_seen = club  # type: ignore[attr-defined]
        return club
    linked = Exists(Member.objects.filter(club=OuterRef("club"), user=OuterRef("user")))
    found = Membership.objects.filter(club=club, user=user).values_list("role", linked).first()
    if found is None:
        raise Http404
    role, club.viewer_linked = found  # type: ignore[attr-defined]
    club.is_organiser = role == Membership.ORGANISER  # type: ignore[attr-defined]
    if organiser and not club.is_organiser:  # type: ignore[attr-defined]
        raise PermissionDenied
    request.club_seen = club  # type: ignore[attr-defined]  (league.pagecache checks it again)
    return club


def day_for(club: Club, date: datetime.date) -> Day:
    """The club's day at `date`, else 404: a day is looked up inside the club of the URL."""
    day = Day.objects.filter(club=club, date=date).first()
    if day is None:
        raise Http404
    return day
