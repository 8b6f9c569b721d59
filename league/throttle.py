"""Login throttling: slow password guessing without locking a whole club out.

Every failed login is stored (`LoginAttempt`: the user name lower-cased, the client address). While
any of these counts of failures in the last `WINDOW` reaches its limit, further logins that match it
are refused before any password is checked:

| what | limit | why |
|---|---|---|
| the same user name from the same address | `PAIR_LIMIT` | one member mistyping; the others at the same parlour network are not affected |
| the same user name from any address | `NAME_LIMIT` | a guesser changing addresses |
| the same address, whatever the user name | `ADDRESS_LIMIT` | one address trying many names; high, because a whole parlour shares one address |

A refusal lifts by itself once the oldest counted failure leaves the window. A successful login
clears nothing: the failures before it still count until they are older than `WINDOW`, which keeps
the rule to "N failures in 15 minutes", whatever happened in between. Failures older than `KEEP`
are deleted when a new failure is stored; they are not business data.

The address is the request's REMOTE_ADDR: behind a reverse proxy, the proxy (or the WSGI server)
must pass the client's address there, or every client shares the proxy's address.
"""

from __future__ import annotations

import datetime
import ipaddress

from django.db.models import Count, Q
from django.http import HttpRequest
from django.utils import timezone

from .models import LoginAttempt

WINDOW = datetime.timedelta(minutes=15)
PAIR_LIMIT = 5
NAME_LIMIT = 20
ADDRESS_LIMIT = 100
KEEP = datetime.timedelta(days=1)

UNKNOWN_ADDRESS = "0.0.0.0"  # stored for a request without a usable address; never bound to
USERNAME_LENGTH = LoginAttempt._meta.get_field("username").max_length or 150


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or a placeholder when it is missing or not an IP address (a Unix socket)."""
    address = request.META.get("REMOTE_ADDR", "")
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return UNKNOWN_ADDRESS


def _key(username: str) -> str:
    return username.strip().lower()[:USERNAME_LENGTH]


def is_throttled(*, username: str, address: str) -> bool:
    """Whether a login as `username` from `address` is refused now (one query)."""
    name = _key(username)
    counts = LoginAttempt.objects.filter(
        Q(username=name) | Q(address=address), at__gte=timezone.now() - WINDOW
    ).aggregate(
        pair=Count("id", filter=Q(username=name, address=address)),
        name=Count("id", filter=Q(username=name)),
        address=Count("id", filter=Q(address=address)),
    )
    return (
        counts["pair"] >= PAIR_LIMIT
        or counts["name"] >= NAME_LIMIT
        or counts["address"] >= ADDRESS_LIMIT
    )


def record_failure(*, username: str, address: str) -> None:
    """Store a failed login, and forget the failures older than `KEEP`."""
    LoginAttempt.objects.filter(at__lt=timezone.now() - KEEP).delete()
    LoginAttempt.objects.create(username=_key(username), address=address)
