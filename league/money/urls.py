"""The money pages, under c/<slug>/: a day's ledger, statements, debts, the pot."""

from __future__ import annotations

from django.urls import URLPattern, path

from league.money.views import ledger, statements

app_name = "money"

urlpatterns: list[URLPattern] = [
    path("days/<date:date>/ledger/", ledger.day_ledger, name="day_ledger"),
    path("days/<date:date>/ledger/settle/", ledger.transfer_settle, name="transfer_settle"),
    path("days/<date:date>/attendees/", ledger.day_attendees, name="day_attendees"),
    path("days/<date:date>/shugi/", ledger.day_shugi, name="day_shugi"),
    path("ledger/<int:entry_id>/reverse/", ledger.entry_reverse, name="entry_reverse"),
    path("days/<date:date>/ledger/close/", ledger.day_close, name="day_close"),
    path("ledger/<int:entry_id>/undo/", ledger.entry_undo, name="entry_undo"),
    path(
        "members/<int:member_id>/statement/", statements.member_statement, name="member_statement"
    ),
    path("debts/", statements.debt_list, name="debt_list"),
    path("debts/<int:entry_id>/repay/", statements.debt_repay, name="debt_repay"),
    path("pot/", statements.club_pot, name="club_pot"),
]
