"""The study: recordings of measured outcomes, the evidence notebooks read, and tables of them across targets."""
