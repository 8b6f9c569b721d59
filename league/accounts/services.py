"""Accounts and clubs without the admin: signing up, starting a club, and its memberships.

Like league.recording.services, each function validates and raises `ServiceError` (field → messages,
nothing stored), or writes inside one transaction with its audit entries. Membership changes go
through `Membership.save/delete(actor=…)`, which audit themselves (league.models.memberships).

A later "join by invitation" step can reuse these: `signup` creates (and does not log in) a user,
`membership_add` links a user to a club with a role.
"""

from __future__ import annotations

import datetime
import re
import secrets
import unicodedata
from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import scoring
from league import limits
from league.accounts import invitations
from league.club.services import member_create, season_create
from league.core import clock
from league.core.actions import action
from league.core.errors import NON_FIELD, ServiceError
from league.core.locks import for_update, lock_club
from league.core.names import username_key
from league.models import AuditLog, Club, Invitation, Member, Membership, RulesVersion, Season
from league.models.accounts import UsernameKey
from league.models.audit import User, audit, save_audited
from league.rules.presets import preset_label
from league.rules.services import rules_version_create_in

SLUG_MIN = 3
SLUG_MAX = Club._meta.get_field("slug").max_length or 50
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# Words that would read as part of the site rather than a club, or be confusing in a link.
RESERVED_SLUGS = frozenset(
    {
        "about",
        "account",
        "accounts",
        "admin",
        "api",
        "c",
        "club",
        "clubs",
        "help",
        "i18n",
        "invite",
        "invitations",
        "join",
        "login",
        "logout",
        "media",
        "new",
        "settings",
        "signup",
        "static",
        "www",
    }
)
# A new club's first rules cover every storable date, so games from before the club was started
# (an import of last year's sheets) settle under them too.
FIRST_RULES_FROM = limits.EARLIEST
PRESET_PREFIX = "preset:"
SLUG_TAKEN = gettext_lazy("Another club already uses this short name. Choose another.")
CLUB_PREFIX = "club:"


# --- users -----------------------------------------------------------------------------------


INVITATION_ACCOUNTS_USED = gettext_lazy(
    "This invitation link cannot make more accounts. Ask the club's organiser for a new link."
)


def signup_by_invitation(
    *, invitation: Invitation, username: str, password: str, email: str = ""
) -> Any:
    """Where SIGNUP is off: one account per use the invitation has left, so that one link cannot
    make accounts without end (counted in the club's audit log, invitation.signup)."""
    with action():
        locked = for_update(Invitation.objects).get(pk=invitation.pk)
        if invitations.state(locked) != invitations.OK:  # cancelled or expired meanwhile
            raise ServiceError.one(NON_FIELD, str(INVITATION_ACCOUNTS_USED))
        made = AuditLog.objects.filter(
            club_id=locked.club_id, action="invitation.signup", target=f"invitation:{locked.pk}"
        ).count()
        if made >= locked.max_uses - locked.uses:
            raise ServiceError.one(NON_FIELD, str(INVITATION_ACCOUNTS_USED))
        user = _signup_in(username=username, password=password, email=email)
        audit(
            club=locked.club,
            actor=user,
            action="invitation.signup",
            target=f"invitation:{locked.pk}",
            after={"user": user.pk, "username": user.get_username()},
        )
    return user


def email_change(*, user: Any, email: str) -> None:
    """One's own e-mail address (for password reset), as the account page's form cleaned it."""
    with action():
        user.email = email
        user.save(update_fields=["email"])


def signup(*, username: str, password: str, email: str = "") -> Any:
    """A new user (not logged in: the view does that). The user name is NFKC-normalised by
    Django, so ｙａｍａｄａ and yamada are the same name; names differing only in case too, and
    the database holds to it (UsernameKey): of two sign-ups racing with twin names, one wins."""
    with action():
        return _signup_in(username=username, password=password, email=email)


def _signup_in(*, username: str, password: str, email: str = "") -> Any:
    """signup inside the caller's action (signup_by_invitation's)."""
    model = get_user_model()
    username = model.normalize_username(username.strip())
    email = model.objects.normalize_email(email.strip())
    errors: dict[str, list[str]] = {}
    if not username:
        errors["username"] = [_("Enter a user name.")]
    elif UsernameKey.objects.filter(key=username_key(username)).exists():
        errors["username"] = [_("This user name is taken. Choose another.")]
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = [_("Enter a valid e-mail address.")]
    candidate = model(username=username, email=email)
    try:
        password_validation.validate_password(password, candidate)
    except ValidationError as e:
        errors["password1"] = list(e.messages)
    if errors:
        raise ServiceError(errors)
    try:
        with transaction.atomic():  # a savepoint inside the caller's action, for the except
            user = model.objects.create_user(username=username, password=password, email=email)
    except IntegrityError:  # the same name signed up a moment ago
        raise ServiceError.one("username", _("This user name is taken. Choose another.")) from None
    return user


# --- club addresses --------------------------------------------------------------------------


def slug_normalised(text: str) -> str:
    """What was typed as a club's short name, as it would be stored: full-width letters and
    digits made half-width, lower case, spaces and underscores as hyphens."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    return re.sub(r"[\s_]+", "-", text)


def slug_problem(slug: str) -> str | None:
    """Why `slug` (normalised) cannot be a new club's short name, or None."""
    problem = slug_format_problem(slug)
    if problem is None and slug_taken(slug):
        problem = SLUG_TAKEN
    return problem and str(problem)


def slug_taken(slug: str) -> bool:
    return Club.objects.filter(slug__iexact=slug).exists()


def slug_format_problem(slug: str) -> str | None:
    """Why `slug` cannot be any club's short name, whether or not it is taken (no secret)."""
    if not slug:
        return _("Enter a short name for the club's address.")
    if len(slug) < SLUG_MIN or len(slug) > SLUG_MAX:
        return _("Use %(min)s to %(max)s characters.") % {"min": SLUG_MIN, "max": SLUG_MAX}
    if not _SLUG.fullmatch(slug):
        return _(
            "Use only lower-case letters a-z, digits and hyphens (not at the start or end), "
            "e.g. mame-no-kai."
        )
    if slug in RESERVED_SLUGS:
        return _("This short name is reserved. Choose another.")
    return None


def slug_suggest(name: str) -> str:
    """A free short name for a club called `name`: its romanised letters when it has some
    (Mame no Kai → mame-no-kai), else "club-" and a few random letters (マメの会 → club-k3x9q2),
    which the user can edit."""
    base = slugify(unicodedata.normalize("NFKC", name))[: SLUG_MAX - 4].strip("-")
    if len(base) < SLUG_MIN or not _SLUG.fullmatch(base):
        base = ""
    if base and slug_problem(base) is None:
        return base
    for _attempt in range(20):
        suffix = "".join(secrets.choice("abcdefghjkmnpqrstuvwxyz23456789") for _i in range(6))
        candidate = f"{base or 'club'}-{suffix}"[:SLUG_MAX]
        if slug_problem(candidate) is None:
            return candidate
    return f"club-{secrets.token_hex(8)}"


# --- starting a club -------------------------------------------------------------------------


def rules_choices(user: User) -> list[tuple[str, str]]:
    """(value, label) of what a new club's rules can start from: each preset, then "like" each
    club the user belongs to."""
    choices = [(PRESET_PREFIX + name, preset_label(name)[0]) for name in scoring.PRESETS]
    for club in Club.objects.filter(memberships__user=user).order_by("name", "slug"):
        choices.append(
            (CLUB_PREFIX + club.slug, _("like %(club)s (its current rules)") % {"club": club.name})
        )
    return choices


def rules_for_choice(*, user: User, choice: str) -> tuple[dict[str, Any], str]:
    """(rules JSON, preset name) for a choice of `rules_choices`; ServiceError on "rules_from"
    for anything else (a club the user does not belong to is not told apart from none)."""
    if choice.startswith(PRESET_PREFIX) and choice[len(PRESET_PREFIX) :] in scoring.PRESETS:
        name = choice[len(PRESET_PREFIX) :]
        return scoring.PRESETS[name].rules.to_json(), name
    if choice.startswith(CLUB_PREFIX) and getattr(user, "is_authenticated", False):
        slug = choice[len(CLUB_PREFIX) :]
        club = Club.objects.filter(slug=slug, memberships__user=user).first()
        if club is not None:
            version = RulesVersion.in_force(club, clock.today())
            version = version or RulesVersion.objects.filter(club=club).first()
            if version is not None:
                return version.rules_json, version.preset
    raise ServiceError.one("rules_from", _("Choose the rules the club plays by."))


def club_create(
    *, user: User, name: str, slug: str, rules_from: str, player_name: str = ""
) -> Club:
    """A new club with `user` as its organiser and its first rules (from a preset or another
    club of the user's), in one transaction, audited: club.create, membership.create,
    rules.create; with `player_name`, also the organiser's own player record, linked to their
    login (member.create, member.link)."""
    if not getattr(user, "is_authenticated", False):
        raise ServiceError.one("__all__", _("Log in first."))
    name = " ".join(unicodedata.normalize("NFKC", name).split())
    slug = slug_normalised(slug)
    errors: dict[str, list[str]] = {}
    if not name:
        errors["name"] = [_("Enter the club's name.")]
    else:
        errors.update(limits.column_problems(Club, name=name))
    if (problem := slug_problem(slug)) is not None:
        errors["slug"] = [problem]
    try:
        rules_json, preset = rules_for_choice(user=user, choice=rules_from)
    except ServiceError as e:
        errors.update(e.errors)
        rules_json, preset = {}, ""
    if errors:
        raise ServiceError(errors)
    taken = ServiceError.one(
        "slug", _("Another club already uses this short name. Choose another.")
    )
    try:
        with action():
            club = Club.objects.create(name=name, slug=slug)
            audit(
                club=club,
                actor=user,
                action="club.create",
                target=f"club:{club.pk}",
                after={"name": name, "slug": slug},
            )
            Membership(user=user, club=club, role=Membership.ORGANISER).save(actor=user)
            rules_version_create_in(
                club=club,
                user=user,
                effective_from=FIRST_RULES_FROM,
                rules_json=rules_json,
                preset=preset,
            )
            if player_name.strip():
                _player_linked(club=club, user=user, name=player_name)
    except IntegrityError:  # a concurrent sign-up took the short name first
        raise taken from None
    return club


def _player_linked(*, club: Club, user: User, name: str) -> Member:
    """The organiser's own player record in their new club, linked to their login."""
    try:
        member = member_create(club=club, user=user, name=name)
    except ServiceError as e:  # the club is new: only the name itself can be wrong
        raise ServiceError({"player_name": [m for ms in e.errors.values() for m in ms]}) from None
    save_audited(
        member,
        {"user": user},
        club=club,
        actor=user,
        action="member.link",
        target=f"member:{member.pk}",
        before={"user": None},
        after={"user": user.pk},
    )
    return member


def first_season_defaults(today: datetime.date | None = None) -> dict[str, Any]:
    """This calendar year: 「2026年」 from 1 January to 31 December, no minimum."""
    today = today or clock.today()
    return {
        "name": _("%(year)s season") % {"year": today.year},
        "start": datetime.date(today.year, 1, 1),
        "end": datetime.date(today.year, 12, 31),
        "min_games": 0,
    }


def first_season_create(
    *, club: Club, user: User, name: str, start: datetime.date, end: datetime.date, min_games: int
) -> Season:
    return season_create(club=club, user=user, name=name, start=start, end=end, min_games=min_games)


# --- memberships -----------------------------------------------------------------------------


def membership_add(*, club: Club, user: Any, role: str, actor: User) -> Membership:
    """Link `user` to `club` (for a later join step); an existing membership is returned as is."""
    if role not in dict(Membership.ROLES):
        raise ServiceError.one("role", _("Choose a role."))
    with action():
        existing = Membership.objects.filter(club=club, user=user).first()
        if existing is not None:
            return existing
        membership = Membership(club=club, user=user, role=role)
        membership.save(actor=actor)
    return membership


def _is_last_organiser(membership: Membership) -> bool:
    if membership.role != Membership.ORGANISER:
        return False
    others = Membership.objects.filter(club_id=membership.club_id, role=Membership.ORGANISER)
    return not others.exclude(pk=membership.pk).exists()


def _last_organiser_error(field: str, *, leaving: bool) -> ServiceError:
    if leaving:
        message = _(
            "You are this club's only organiser: make someone else an organiser before you leave."
        )
    else:
        message = _("A club needs at least one organiser: make someone else an organiser first.")
    return ServiceError.one(field, message)


def membership_set_role(*, membership: Membership, role: str, actor: User) -> Membership:
    if role not in dict(Membership.ROLES):
        raise ServiceError.one("role", _("Choose a role."))
    with action():
        lock_club(membership.club_id)
        current = Membership.objects.filter(pk=membership.pk).first()
        if current is None:
            raise ServiceError.one("__all__", _("This membership no longer exists."))
        if current.role == role:
            return current
        if role != Membership.ORGANISER and _is_last_organiser(current):
            raise _last_organiser_error("role", leaving=False)
        if current.role == Membership.ORGANISER:  # stepping down: their links stop working
            invitations.invitations_of_revoked(club=current.club, creator=current.user, actor=actor)
        current.role = role
        current.save(actor=actor)
    return current


def membership_remove(*, membership: Membership, actor: User, leaving: bool = False) -> None:
    """End a membership: the user can no longer open the club. Their player records in it stay
    (results are never deleted) but are no longer linked to their login (audited as
    member.unlink), so a later join can link them again."""
    with action():
        lock_club(membership.club_id)
        current = Membership.objects.filter(pk=membership.pk).select_related("club").first()
        if current is None:
            raise ServiceError.one("__all__", _("This membership no longer exists."))
        if _is_last_organiser(current):
            raise _last_organiser_error("__all__", leaving=leaving)
        invitations.invitations_of_revoked(club=current.club, creator=current.user, actor=actor)
        linked = list(Member.objects.filter(club_id=current.club_id, user_id=current.user_id))
        for member in linked:
            save_audited(
                member,
                {"user": None},
                club=current.club,
                actor=actor,
                action="member.unlink",
                target=f"member:{member.pk}",
                before={"user_id": current.user_id},
                after={"user_id": None},
            )
        current.delete(actor=actor)


def membership_leave(*, club: Club, user: Any) -> None:
    membership = Membership.objects.filter(club=club, user=user).first()
    if membership is None:
        raise ServiceError.one("__all__", _("You are not a member of this club."))
    membership_remove(membership=membership, actor=user, leaving=True)
