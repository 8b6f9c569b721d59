"""Views are thin: check access (league.access), call a service or a selector, render."""
