"""A club's public share link: read-only pages under s/<token>/ that anyone with the link may see.

`services` turns the link on and off, rotates it and allows money on it (each change audited);
`views` has the organisers' settings page (c/<slug>/sharing/) and the public pages, rendered with
templates/league/public/ so that no link into the club's own pages (c/<slug>/) appears.
"""
