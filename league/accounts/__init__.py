"""User accounts: sign-up and club creation, invitations, password change and reset, one's clubs."""
