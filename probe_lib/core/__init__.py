"""Core types every layer shares: paths, errors, scenarios."""
