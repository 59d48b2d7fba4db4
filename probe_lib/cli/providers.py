"""``lint`` and ``providers``: captured requests against the providers' tool-name rules, and those rules."""

from __future__ import annotations

import argparse
import json

from probe_lib.core.target import DEFAULT_FRAMEWORK


def cmd_lint(args: argparse.Namespace) -> int:
    from probe_lib import frameworks
    from probe_lib.providers.lint import lint_file

    name_rule = None if args.framework == "none" else frameworks.get(args.framework).name_rule()
    report = lint_file(args.file, args.provider, args.variant, name_rule)
    print(json.dumps(report.to_json(), ensure_ascii=False) if args.json else report.to_text())
    return 1 if report.failed else 0


def add_lint(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("lint", help="find tool names a provider would refuse and forced tools missing from tools")
    parser.add_argument("file", help="a request body, a JSON array of them, capture JSON lines or a HAR export")
    parser.add_argument(
        "--provider", default="openai", help="provider rule to check (default openai; see data/provider_rules.csv)"
    )
    parser.add_argument("--variant", help="rule variant such as documented or observed (default: documented)")
    parser.add_argument(
        "--framework",
        default=DEFAULT_FRAMEWORK,
        help=f"whose renaming to suggest fixes from (default {DEFAULT_FRAMEWORK}; 'none' for no suggestions)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=cmd_lint)


def cmd_providers(args: argparse.Namespace) -> int:
    from probe_lib.providers import name_rules, package_rules

    if args.refresh:
        changed = package_rules.refresh()
        print(f"{name_rules.RULES_PATH}: " + (f"rewrote {', '.join(changed)}" if changed else "unchanged"))
        name_rules.rules.cache_clear()
    for rule in name_rules.rules():
        read = f"{rule.package} {rule.package_version}" if rule.package else rule.source_kind
        print(
            f"{rule.label:<24} {rule.basis:<10} max {rule.max_length or '-':<4} {rule.pattern.pattern:<28} "
            f"read {rule.date_read} from {read}"
        )
    for provider, limits in name_rules.conflicts().items():
        shown = ", ".join(f"{variant} {limit or 'none'}" for variant, limit in limits.items())
        print(f"conflict: {provider}'s sources disagree on the longest name ({shown}); lint --variant picks one")
    return 0


def add_providers(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("providers", help="each provider's tool-name rule, where it was read, and conflicts")
    refresh = "first rewrite data/provider_rules.csv's package rows from the installed packages (providers extra)"
    parser.add_argument("--refresh", action="store_true", help=refresh)
    parser.set_defaults(handler=cmd_providers)
