from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class LeagueConfig(AppConfig):
    name = "league"
    verbose_name = _("雀帳")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate, pre_migrate

        from league import pagecache
        from league.books import signals as books_signals  # noqa: F401  (entries from below)
        from league.chat import tasks as chat_tasks
        from league.core import writes
        from league.money.services import day_closed
        from league.standings import signals  # noqa: F401  (a season's totals follow its dates)

        # Every connection's writes make kept pages old (league.core.writes).
        if settings.PAGE_CACHE:
            connection_created.connect(pagecache.install, dispatch_uid="league.pagecache")
        day_closed.connect(chat_tasks.day_closed, dispatch_uid="league.chat.push")
        pre_migrate.connect(writes.pause, dispatch_uid="league.pagecache.pause")
        post_migrate.connect(writes.resume, dispatch_uid="league.pagecache.resume")
