"""Content-Security-Policy on Django 5.2, from the settings Django 6 reads.

Django 6 has this built in (django.middleware.csp.ContentSecurityPolicyMiddleware, configured by
SECURE_CSP and SECURE_CSP_REPORT_ONLY); league/settings.py uses it there and this middleware on
Django 5.2 (Python 3.11), so one policy in the settings serves both. What this one leaves out:
nonces (the app has no inline script to allow) and the per-view decorators.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADERS = (
    ("Content-Security-Policy", "SECURE_CSP", "_csp_config"),
    ("Content-Security-Policy-Report-Only", "SECURE_CSP_REPORT_ONLY", "_csp_ro_config"),
)
# Django 6's debug pages opt out of the policy (they are inline HTML, CSS and JavaScript); in DEBUG
# these statuses come from those pages.
DEBUG_PAGE_STATUSES = frozenset({404, 500})


def build_policy(config: Mapping[str, Any]) -> str:
    """ "directive value value; directive ..." as Django 6's django.utils.csp.build_policy writes it
    (a value of True is a directive without values; None or False leaves the directive out)."""
    policy = []
    for directive, values in config.items():
        if values is None or values is False:
            continue
        if values is True:
            policy.append(directive)
            continue
        if isinstance(values, set):
            values = sorted(values)
        elif not isinstance(values, list | tuple):
            values = [values]
        if values:
            policy.append(f"{directive} {' '.join(values)}")
    return "; ".join(policy)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if settings.DEBUG and response.status_code in DEBUG_PAGE_STATUSES:
            return response
        for header, setting, override in HEADERS:
            # As in Django 6: a view may set its own header, or its own config on the response.
            config = getattr(response, override, getattr(settings, setting, None))
            if config and header not in response:
                response.headers[header] = build_policy(config)
        return response
