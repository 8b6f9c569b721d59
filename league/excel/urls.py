"""The spreadsheet pages, under c/<slug>/: importing score sheets and the Excel downloads."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.excel.views import exports, imports

app_name = "excel"

urlpatterns: list[URLPattern] = [
    path("import/", imports.import_upload, name="import_upload"),
    path("import/preview/", imports.import_preview, name="import_preview"),
    path("import/photo/", imports.import_photo, name="import_photo"),
    path("import/photo/<int:photo_id>/", imports.import_photo_status, name="import_photo_status"),
    path("import/confirm/", imports.import_confirm, name="import_confirm"),
    path("import/progress/", imports.import_progress, name="import_progress"),
    path("import/status/", imports.import_status, name="import_status"),
    path("import/void/", imports.import_void, name="import_void"),
    path("standings/export/", exports.export_standings, name="export_standings"),
    path("statistics/export/", exports.export_statistics, name="export_statistics"),
    path(
        "statistics/export/start/",
        exports.export_statistics_start,
        name="export_statistics_start",
    ),
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
]
