"""What providers accept as a tool name (``name_rules``, read from ``data/provider_rules.csv``), the rows of that
table read from the providers' own packages (``package_rules``, optional), and the request linter that applies
the rules to captured bodies (``lint``)."""

from probe_lib.providers.name_rules import Rule, check_name, get_rule, load_rules, provider_names, rules, variants

__all__ = ["Rule", "check_name", "get_rule", "load_rules", "provider_names", "rules", "variants"]
