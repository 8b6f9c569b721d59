from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeagueConfig(AppConfig):
    name = "league"
    verbose_name = _("雀帳")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A saved user is dropped from the shared cache (league.accounts.backends).
        from league.accounts import backends  # noqa: F401

        # The kept totals' projections join the registry (league.core.changes).
        from league.books import projection  # noqa: F401
        from league.chat import tasks as chat_tasks
        from league.money.services import day_closed
        from league.standings import hand_totals, services  # noqa: F401

        # The day's push to a linked chat, when its organiser asked for one (league.chat).
        day_closed.connect(chat_tasks.day_closed, dispatch_uid="league.chat.push")
