"""What providers accept as a tool name (``name_rules``, read from ``data/provider_rules.csv``), and the request
linter that applies those rules to captured bodies (``lint``)."""

from probe_lib.providers.name_rules import Rule, check_name, get_rule, load_rules, provider_names, rules, variants

__all__ = ["Rule", "check_name", "get_rule", "load_rules", "provider_names", "rules", "variants"]
