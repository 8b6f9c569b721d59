"""The network refused, for the tests that must run offline (the no_network fixture)."""

from __future__ import annotations


class NetworkUsed(AssertionError):
    pass
