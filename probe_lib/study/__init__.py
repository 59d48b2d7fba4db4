"""The study: recordings of measured outcomes, the claims ledger and the evidence notebooks read."""
