"""The token that says whether a kept page is still current (league.pagecache)."""

from __future__ import annotations

from django.db import models


class PageVersion(models.Model):
    """One row. Every committed write to the app's data gives it a new random `token`, and a
    kept (already rendered) page is served again only while the token it was made under is the
    current one: every app server and worker shares it through the database."""

    token = models.CharField(max_length=32)

    def __str__(self) -> str:
        return self.token
