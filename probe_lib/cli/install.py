"""``setup``, ``versions`` and ``cache``: what is installed, what a registry serves, and what the cache holds."""

from __future__ import annotations

import argparse
import sys

from probe_lib.core import paths
from probe_lib.core.errors import SetupError
from probe_lib.core.target import DEFAULT_FRAMEWORK


def _setup_frameworks(args: argparse.Namespace) -> list[str]:
    """The frameworks ``setup`` installs: mastra alone by default, else those named, else every registered one."""
    from probe_lib import frameworks

    if args.all_frameworks:
        return frameworks.names()
    return [frameworks.get(name).name for name in args.framework or [DEFAULT_FRAMEWORK]]


def cmd_setup(args: argparse.Namespace) -> int:
    """Install each framework asked for, going on past one that fails, a line per framework as it ends; then one
    summary line, and exit 1 when any failed (the others stay installed)."""
    import time

    from probe_lib import frameworks
    from probe_lib.present import browser

    names, failed = _setup_frameworks(args), []
    for name in names:
        adapter = frameworks.get(name)
        started = time.monotonic()
        try:
            frameworks.install_all(adapter, quiet=not args.verbose)
        except SetupError as error:
            failed.append(name)
            print(f"{name}: FAILED after {time.monotonic() - started:.0f} s: {error}", flush=True)
            continue
        print(
            f"{name} {', '.join(adapter.versions())} installed in {paths.cache()} ({time.monotonic() - started:.0f} s)",
            flush=True,
        )
    if args.with_browser:
        print(f"browser for the report tests: {browser.install_browser()}")
    if len(names) > 1 or failed:
        print(
            f"setup: {len(names) - len(failed)} of {len(names)} frameworks installed"
            + (f"; FAILED: {', '.join(failed)} (why: each one's line above)" if failed else ""),
            file=sys.stderr if failed else sys.stdout,
            flush=True,
        )
    return 1 if failed else 0


def add_setup(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("setup", help="install pinned frameworks into a cache (default: the @mastra/core versions)")
    parser.add_argument("--verbose", action="store_true", help="show npm's output")
    parser.add_argument(
        "--framework", action="append", metavar="NAME", help="install this framework's pins (repeatable)"
    )
    parser.add_argument("--all-frameworks", action="store_true", help="install every registered framework's pins")
    parser.add_argument(
        "--with-browser", action="store_true", help="also install Debian's Chromium (tests load the report in it)"
    )
    parser.set_defaults(handler=cmd_setup)


def cmd_versions(args: argparse.Namespace) -> int:
    from probe_lib import frameworks
    from probe_lib.install import cache
    from probe_lib.install.releases import Releases

    adapter = frameworks.get(args.framework or DEFAULT_FRAMEWORK)
    releases = Releases(adapter.package, adapter.registry, adapter.name)
    with cache.listing():
        pinned, installed = set(adapter.versions()), adapter.installed()
    for version in adapter.served(refresh=args.refresh):
        prerelease = releases.is_prerelease(version)
        if args.prereleases or not prerelease:
            marks = [
                mark
                for mark, on in (
                    ("prerelease", prerelease),
                    ("pinned", version in pinned),
                    ("installed", version in installed),
                )
                if on
            ]
            print(version + (f"  ({', '.join(marks)})" if marks else ""))
    return 0


def add_versions(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "versions",
        help="the releases a framework's registry serves (any its runner supports can be probed, installed on first "
        "use; an older one is refused in one line)",
    )
    parser.add_argument(
        "--framework",
        metavar="NAME",
        help=f"the framework (default {DEFAULT_FRAMEWORK}: @mastra/core); its package is what the versions name",
    )
    parser.add_argument("--prereleases", action="store_true", help="list prereleases too, marked")
    parser.add_argument("--refresh", action="store_true", help="ask the registry again instead of the cached list")
    parser.set_defaults(handler=cmd_versions)


def cmd_cache(args: argparse.Namespace) -> int:
    from probe_lib import frameworks
    from probe_lib.install import cache, disk_usage

    names = list(dict.fromkeys(frameworks.get(name).name for name in args.framework or ())) or frameworks.names()
    together: dict[tuple[int, int], int] = {}  # every file's bytes, walked once: the frameworks' installs merged
    for name in names:
        with cache.listing():
            installed = frameworks.get(name).installed()
        files = disk_usage.allocated(installed.values())
        together |= files
        print(f"{name}: {len(installed)} release(s) installed, {disk_usage.shown(sum(files.values()))} on disk")
    print(
        f"together: {disk_usage.shown(sum(together.values()))} on disk in {paths.cache()} "
        "(a file hard-linked into several installs counted once)"
    )
    return 0


def add_cache(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("cache", help="each framework's installed releases and their size on disk in the cache")
    parser.add_argument("--framework", action="append", metavar="NAME", help="this framework only (repeatable)")
    parser.set_defaults(handler=cmd_cache)
