"""Login throttling: slow password guessing without locking a whole club, or a user, out.

Every attempt is stored (`LoginAttempt`: the user name lower-cased, the client address, and the
device cookie it came with, if any) *before* its password is checked, and counted in the same
short transaction; attempts that log in are deleted afterwards, so what remains are failures.
While any of these counts of failures in the last `WINDOW` reaches its limit, further logins that
match it are refused before any password is checked:

| what | limit | why |
|---|---|---|
| the same user name from the same address | `PAIR_LIMIT` | one member mistyping; the others at the same parlour network are not affected |
| the same user name from any address | `NAME_LIMIT` | a guesser changing addresses |
| the same address, whatever the user name | `ADDRESS_LIMIT` | one address trying many names; high, because a whole parlour shares one address |
| the same device cookie | `DEVICE_LIMIT` | see below |

**Atomic.** The attempt is inserted, then counted, in one transaction holding a lock on its user
name and on its address (PostgreSQL advisory locks; SQLite's write lock serialises everything), so
concurrent attempts are counted one after the other: 24 wrong passwords sent at once for one name
from one address check exactly `PAIR_LIMIT` passwords. The password itself is checked after the
transaction, so slow hashing holds no lock.

**Device cookies** (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"). A successful
login sets a signed cookie naming the user (`device_cookie_set`), one per user on the device. An
attempt for that user that presents a valid cookie is *trusted*: its failures are counted per
cookie (`DEVICE_LIMIT`) and it is not refused by the name, pair or address limits of untrusted
clients. So a guesser who locks a name out everywhere still cannot lock its owner out of a phone
they have logged in from before; and a stolen phone is limited like any client, per cookie.

A refusal lifts by itself once the oldest counted failure leaves the window. A successful login
clears nothing: the failures before it still count until they are older than `WINDOW`. Rows older
than `KEEP` are deleted when a new failure is stored; they are not business data.

The address is the request's REMOTE_ADDR: behind a reverse proxy, the proxy (or the WSGI server)
must pass the client's address there, or every client shares the proxy's address.

Other forms (sign-up) reuse this with their own `Limits`: `attempt_begin(…, limits=…)`, then
`attempt_succeeded` or `attempt_failed`.
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.db import connection, transaction
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from league.models import LoginAttempt

WINDOW = datetime.timedelta(minutes=15)
PAIR_LIMIT = 5
NAME_LIMIT = 20
ADDRESS_LIMIT = 100
DEVICE_LIMIT = 5
KEEP = datetime.timedelta(days=1)

UNKNOWN_ADDRESS = "0.0.0.0"  # stored for a request without a usable address; never bound to
USERNAME_LENGTH = LoginAttempt._meta.get_field("username").max_length or 150

DEVICE_COOKIE_PREFIX = "jancho_device_"
DEVICE_COOKIE_AGE = datetime.timedelta(days=365)
DEVICE_SALT = "league.throttle.device"


@dataclass(frozen=True)
class Limits:
    """Failures allowed in `window`: per name and address, per name, per address, per device."""

    pair: int = PAIR_LIMIT
    name: int = NAME_LIMIT
    address: int = ADDRESS_LIMIT
    device: int = DEVICE_LIMIT
    window: datetime.timedelta = WINDOW
    kind: str = "login"  # LoginAttempt.kind: what these limits count


LOGIN = Limits()
# Club addresses asked for that are unknown, or not the user's (both answer 404, as the same
# page): a member mistyping now and then, not a script walking the address space.
CLUB_PROBE = Limits(pair=30, name=30, address=60, kind="club")


@dataclass(frozen=True)
class Attempt:
    """An attempt let through by `attempt_begin`, counted as a failure until it succeeds."""

    pk: int
    username: str
    address: str
    device: str


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or a placeholder when it is missing or not an IP address (a Unix socket)."""
    address = request.META.get("REMOTE_ADDR", "")
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return UNKNOWN_ADDRESS


def address_block(address: str) -> str:
    """The address as a sender is counted for sign-ups and reset mails: an IPv6 address by its
    /64 (one home or phone connection holds a whole /64), an IPv4 address as it is."""
    ip = ipaddress.ip_address(address)
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False).network_address)
    return str(ip)


def _key(username: str) -> str:
    return username.strip().lower()[:USERNAME_LENGTH]


def _window_filter(name: str, address: str, device: str, since: datetime.datetime) -> Q:
    if device:
        return Q(device=device, at__gte=since)
    return Q(Q(username=name) | Q(address=address), device="", at__gte=since)


def _over(name: str, address: str, device: str, limits: Limits, *, including: int) -> bool:
    """Whether the failures counted so far (plus `including` this attempt) exceed the limits."""
    since = timezone.now() - limits.window
    rows = LoginAttempt.objects.filter(
        _window_filter(name, address, device, since), kind=limits.kind
    )
    if device:
        return rows.count() > limits.device - 1 + including
    counts = rows.aggregate(
        pair=Count("id", filter=Q(username=name, address=address)),
        name=Count("id", filter=Q(username=name)),
        address=Count("id", filter=Q(address=address)),
    )
    extra = including - 1
    return (
        counts["pair"] > limits.pair + extra
        or counts["name"] > limits.name + extra
        or counts["address"] > limits.address + extra
    )


def is_throttled(*, username: str, address: str, device: str = "", limits: Limits = LOGIN) -> bool:
    """Whether an attempt as `username` from `address` would be refused now (one query)."""
    return _over(_key(username), address, device, limits, including=0)


def _lock(*keys: str) -> None:
    """Serialise attempts on the same keys until the transaction ends (PostgreSQL).

    SQLite needs nothing: the attempt's INSERT, first in the transaction, takes the database's
    write lock. Keys are always taken in the same order (name, then address), so no deadlock.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for key in keys:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"throttle:{key}"])


def attempt_begin(
    *, username: str, address: str, device: str = "", limits: Limits = LOGIN
) -> Attempt | None:
    """Count an attempt atomically; None when it is refused (and then it is not stored).

    `device` is the id from `device_for` (a trusted device), or "" for any other client.
    """
    name = _key(username)
    with transaction.atomic():
        if device:
            _lock(f"{limits.kind}:device:{device}")
        else:
            _lock(f"{limits.kind}:name:{name}", f"{limits.kind}:address:{address}")
        row = LoginAttempt.objects.create(
            kind=limits.kind, username=name, address=address, device=device
        )
        if _over(name, address, device, limits, including=1):
            row.delete()
            return None
    return Attempt(row.pk, name, address, device)


def attempt_succeeded(attempt: Attempt) -> None:
    """The attempt was right: it is no failure."""
    LoginAttempt.objects.filter(pk=attempt.pk).delete()


def attempt_failed(attempt: Attempt) -> None:
    """The attempt stays counted as a failure; failures older than `KEEP` are forgotten."""
    del attempt
    LoginAttempt.objects.filter(at__lt=timezone.now() - KEEP).delete()


def record_failure(*, username: str, address: str, device: str = "") -> None:
    """Store a failed attempt outright (no check), and forget the failures older than `KEEP`."""
    LoginAttempt.objects.filter(at__lt=timezone.now() - KEEP).delete()
    LoginAttempt.objects.create(username=_key(username), address=address, device=device)


# --- device cookies --------------------------------------------------------------------------


def device_cookie_name(username: str) -> str:
    """One cookie per user on a device: the name holds a hash of the user name, not the name."""
    digest = hashlib.sha256(_key(username).encode()).hexdigest()[:16]
    return DEVICE_COOKIE_PREFIX + digest


def device_for(request: HttpRequest | None, username: str) -> str:
    """The device id of a valid device cookie for `username` on this request, or ""."""
    if request is None:
        return ""
    value = request.COOKIES.get(device_cookie_name(username))
    if not value:
        return ""
    try:
        data = signing.loads(value, salt=DEVICE_SALT, max_age=DEVICE_COOKIE_AGE)
    except signing.BadSignature:  # also signing.SignatureExpired
        return ""
    if not isinstance(data, dict) or data.get("u") != _key(username):
        return ""
    device = data.get("d")
    return device if isinstance(device, str) and 0 < len(device) <= 64 else ""


def device_cookie_set(response: HttpResponse, *, request: HttpRequest, username: str) -> None:
    """After a successful login: keep this device's id (or make one) and renew the cookie."""
    device = device_for(request, username) or secrets.token_urlsafe(24)
    value = signing.dumps({"u": _key(username), "d": device}, salt=DEVICE_SALT)
    response.set_cookie(
        device_cookie_name(username),
        value,
        max_age=int(DEVICE_COOKIE_AGE.total_seconds()),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def club_probe_refused(request: HttpRequest) -> bool:
    """Count a club address that was unknown or not the user's; True once the sender (the user
    and their network) is over CLUB_PROBE's pace: the answer is then 429, whatever the club."""
    block = address_block(client_address(request))
    user = f"user:{request.user.pk}"
    if is_throttled(username=user, address=block, limits=CLUB_PROBE):
        return True
    attempt = attempt_begin(username=user, address=block, limits=CLUB_PROBE)
    if attempt is None:
        return True
    attempt_failed(attempt)
    return False
