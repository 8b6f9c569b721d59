"""The club's books kept at write time: posting (services) and reading (selectors) the rows of
league.models.books, so that no money page re-settles the history to show a balance."""
