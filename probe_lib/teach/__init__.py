"""Teaching material around the notebooks: the primer's helpers, checked exercises and their solutions."""
