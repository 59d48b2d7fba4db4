"""The claims ledger: every claim of ``data/claims.csv``, its one check, and the verdicts judged on measured
outcomes."""
