from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path, register_converter

from league.accounts import urls as accounts_urls
from league.accounts.views import invitations
from league.accounts.views import login as auth
from league.api.routes import api
from league.api.views import tokens
from league.chat import urls as chat_urls
from league.club.views import jobs, manage
from league.excel.views import exports, imports
from league.money.views import ledger, share
from league.money.views import statements as accounts
from league.public import views as public
from league.recording.views import days as pages
from league.recording.views import photos as photo_views
from league.recording.views import record
from league.rules import views as rules_views
from league.standings.views import players, standings
from league.standings.views import stats as statistics
from league.table import views as table_views


class DateConverter:
    """Dates in URLs as 2026-11-21."""

    regex = r"\d{4}-\d{2}-\d{2}"

    def to_python(self, value: str):
        import datetime

        return datetime.date.fromisoformat(value)

    def to_url(self, value) -> str:
        return value.isoformat()


register_converter(DateConverter, "date")

club_patterns: list[URLPattern | URLResolver] = [
    path("", pages.club_home, name="club_home"),
    path("days/<date:date>/", pages.day_detail, name="day_detail"),
    path("", include("league.draw.urls")),
    path("", include("league.table.urls")),
    path("", include("league.club.urls")),
    path("", include("league.mypage.urls")),
    path("", include("league.online.urls")),
    path("", include("league.teams.urls")),
    path("", include("league.chat.urls")),
    path("days/<date:date>/ledger/", ledger.day_ledger, name="day_ledger"),
    path("days/<date:date>/share/", share.day_share, name="day_share"),
    path("days/<date:date>/ledger/settle/", ledger.transfer_settle, name="transfer_settle"),
    path("days/<date:date>/attendees/", ledger.day_attendees, name="day_attendees"),
    path("days/<date:date>/shugi/", ledger.day_shugi, name="day_shugi"),
    path("ledger/<int:entry_id>/reverse/", ledger.entry_reverse, name="entry_reverse"),
    path("days/<date:date>/ledger/close/", ledger.day_close, name="day_close"),
    path("ledger/<int:entry_id>/undo/", ledger.entry_undo, name="entry_undo"),
    path("members/<int:member_id>/statement/", accounts.member_statement, name="member_statement"),
    path("debts/", accounts.debt_list, name="debt_list"),
    path("debts/<int:entry_id>/repay/", accounts.debt_repay, name="debt_repay"),
    path("pot/", accounts.club_pot, name="club_pot"),
    path("games/new/", record.game_new, name="game_new"),
    path("games/photo/", photo_views.photo_new, name="photo_new"),
    path("games/photo/<int:photo_id>/", photo_views.photo_status, name="photo_status"),
    path("games/<int:game_id>/", pages.game_detail, name="game_detail"),
    path("games/<int:game_id>/edit/", record.game_edit, name="game_edit"),
    path("games/<int:game_id>/void/", record.game_void, name="game_void"),
    path("members/", manage.member_list, name="member_list"),
    path("members/new/", manage.member_new, name="member_new"),
    path("seasons/", manage.season_list, name="season_list"),
    path("seasons/new/", manage.season_new, name="season_new"),
    path("seasons/<int:season_id>/", standings.season_standings, name="season_standings"),
    path("seasons/<int:season_id>/race/", players.season_race, name="season_race"),
    path("standings/", standings.standings, name="standings"),
    path("players/<int:member_id>/", players.player_detail, name="player_detail"),
    path("seasons/<int:season_id>/head-to-head/", statistics.season_matrix, name="season_matrix"),
    path("rating/", statistics.rating_list, name="rating_list"),
    path("seats/", statistics.club_seats, name="club_seats"),
    path("records/", statistics.records, name="records"),
    path("rules/", rules_views.rules_list, name="rules_list"),
    path("rules/new/", rules_views.rules_new, name="rules_new"),
    path("rules/example/", rules_views.rules_example, name="rules_example"),
    path("rules/<int:version_id>/resettle/", rules_views.rules_resettle, name="rules_resettle"),
    path("rules/resettle/<int:run_id>/", rules_views.rules_resettle_run, name="rules_resettle_run"),
    path("invitations/", invitations.invitation_list, name="invitation_list"),
    path(
        "invitations/<int:invitation_id>/mail/",
        invitations.invitation_mail_again,
        name="invitation_mail_again",
    ),
    path(
        "invitations/<int:invitation_id>/revoke/",
        invitations.invitation_revoke,
        name="invitation_revoke",
    ),
    path("sharing/", public.share_settings, name="share_settings"),
    path("tokens/", tokens.token_list, name="token_list"),
    path("tokens/<int:token_id>/revoke/", tokens.token_revoke, name="token_revoke"),
    path("import/", imports.import_upload, name="import_upload"),
    path("import/preview/", imports.import_preview, name="import_preview"),
    path("import/photo/", imports.import_photo, name="import_photo"),
    path("import/photo/<int:photo_id>/", imports.import_photo_status, name="import_photo_status"),
    path("import/confirm/", imports.import_confirm, name="import_confirm"),
    path("import/progress/", imports.import_progress, name="import_progress"),
    path("jobs/<int:job_id>/", jobs.job_progress, name="job_progress"),
    path("import/status/", imports.import_status, name="import_status"),
    path("import/void/", imports.import_void, name="import_void"),
    path("standings/export/", exports.export_standings, name="export_standings"),
    path("games/export/", exports.export_game_log, name="export_game_log"),
    path("games/export/start/", exports.export_game_log_start, name="export_game_log_start"),
    path("exports/<int:export_id>/", exports.export_status, name="export_status"),
    path("exports/<int:export_id>/download/", exports.export_download, name="export_download"),
    path(
        "days/<date:date>/ledger/export/",
        exports.export_payment_sheet,
        name="export_payment_sheet",
    ),
    path(
        "members/<int:member_id>/statement/export/",
        exports.export_statement,
        name="export_statement",
    ),
    path(
        "members/<int:member_id>/statement/export/start/",
        exports.export_statement_start,
        name="export_statement_start",
    ),
    *accounts_urls.club_patterns,
]

# The admin's login page counts and refuses failed logins like ours (league/throttle.py).
admin.site.login_form = auth.ThrottledAdminAuthenticationForm

urlpatterns: list[URLPattern | URLResolver] = [
    path("", pages.home, name="home"),
    # Browsers and bookmarks that ask for /favicon.ico get the icon every page names (base.html).
    path("favicon.ico", pages.favicon, name="favicon"),
    path("sw.js", table_views.service_worker, name="service_worker"),
    path("c/<slug:slug>/", include(club_patterns)),
    path("s/<str:token>/", include("league.public.urls")),  # a club's share link (league.public)
    path("accounts/login/", auth.login, name="login"),
    path("join/<str:secret>/", invitations.invitation_join, name="invitation_join"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include(accounts_urls)),
    path("api/", api.urls),
    path("hooks/", include(chat_urls.hook_patterns)),  # the club's chats (league.chat)
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
]
