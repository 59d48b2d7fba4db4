"""The kit's exceptions: one tree, whose leaves say what failed and how to fix it.

The CLI turns any :class:`ProbeError` into one line on stderr and exit code 2; anything else is a defect of the kit
and keeps its traceback. A scenario that fails *inside* a framework is not an exception at all: it is measured, and
kept in its outcome's error chain.
"""

from __future__ import annotations

from collections.abc import Sequence


class ProbeError(Exception):
    """A fault the kit can name; the message says what failed and how to fix it."""


class InputError(ProbeError, ValueError):
    """Input the kit cannot use (an argument, a file, a key record); the message names what was wrong."""


class FolderRefused(InputError):
    """An output folder the kit may not replace (it holds files the kit did not write) or could not write (a full
    disk, a path under a file); the message also says what was left where, so a caller adds nothing."""


class SetupError(ProbeError):
    """Something the kit needs is not installed on this machine."""


class MachineLacks(ProbeError):
    """What this machine lacks to run anything (Node.js, npm, a writable cache, disk space): an error of this run,
    never a result about the release or scenario being measured, so nothing measured is cached or recorded as it."""


class NodeMissing(SetupError, MachineLacks):
    """Node.js, npm or an installed harness is missing; the message says how to get it."""


class BrowserMissing(SetupError):
    """The browser the report tests load pages in is missing and cannot be installed here."""


class InstallFailed(SetupError):
    """A package manager ran and failed; the message carries its last line."""


class ReleaseUnsupported(ProbeError):
    """A served release the framework's harness cannot run (too old for its API): reported, never measured, so
    never counted as a behaviour."""


class CacheUnusable(MachineLacks):
    """The kit's cache folder cannot be created or written (a file, a read-only folder): not a setup step that a
    retry or another framework could get past, so ``setup`` stops at it too."""


class StateError(ProbeError, RuntimeError):
    """An object was used out of order (a server read before it started, a runner used before ``start()``)."""


class HarnessError(ProbeError, RuntimeError):
    """A framework's runner process failed (not a scenario inside it); the message carries its last words."""


class WorkersFailed(HarnessError):
    """Several runner processes of one batch failed; every one of their errors is kept and reported."""

    def __init__(self, errors: Sequence[BaseException]) -> None:
        self.errors = tuple(errors)
        lines = "; ".join(f"{type(error).__name__}: {error}" for error in self.errors)
        super().__init__(f"{len(self.errors)} runner(s) failed: {lines}")


class StoreFailed(ProbeError):
    """The capture server could not hand a record to its store's writer (a full disk, a closed output): that request
    was refused, and so is every later one, rather than be answered and lost."""
