"""Money: each day's ledger (who pays whom), payments, loans and deferred debts, closing a day,
statements, the cup's pot. `services` writes, `league.books` posts and reads the book, `forms`
and `views` are the pages (templates/league/money/day_ledger.html and friends).

`from league import money` then `money.day_ledger(...)` reads the services.
"""

from league.money.services import *  # noqa: F403  (the services are the package's interface)
