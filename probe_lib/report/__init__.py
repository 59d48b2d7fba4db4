"""The report ``probe-lib reproduce`` writes: ``build`` measures, judges and executes the notebooks into a folder
swapped in whole; ``pages`` renders what was found, the ledger and one page per notebook from ``templates/``."""
