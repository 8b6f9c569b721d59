"""My page: a logged-in member's own standing, games and money (see views)."""
