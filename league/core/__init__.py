"""Cross-cutting helpers every layer may use: the clock, errors, the audit log, limits, names.

Nothing here imports a domain's services, forms or views."""
