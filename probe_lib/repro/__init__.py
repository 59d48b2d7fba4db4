"""A standalone reproduction of one ledger finding on one release, and the fix verified (issue 39).

:mod:`~probe_lib.repro.claims` maps a claim to the one turn that shows it, :mod:`~probe_lib.repro.templates` renders
that turn as a script in the framework's language, :mod:`~probe_lib.repro.folder` writes and runs the folder that
needs no probe_lib, :mod:`~probe_lib.repro.patches` holds the fixes.
"""
