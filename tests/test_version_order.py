"""The one ordering of versions (``release_key``): each registry's own order, and an order by form for tables of
several frameworks; every sweep subject sorts by it."""

from __future__ import annotations

import pytest

from probe_lib.core.target import release_key
from probe_lib.history import framework_sweep
from probe_lib.install import releases

#: Oldest first, as each registry orders them.
ORDERED = {
    "npm": ["0.0.0-ai-v5-20250718021026", "0.1.0", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0", "1.10.0"],
    "pypi": ["0.2.0.dev0", "1.0.0b1", "1.0.0", "1.0.0.post1", "1.10.0"],
}


@pytest.mark.parametrize("registry", sorted(ORDERED))
def test_each_registry_orders_its_versions_and_its_releases_sort_by_the_one_key(registry):
    versions = ORDERED[registry]
    assert sorted(reversed(versions), key=lambda v: release_key(v, registry)) == versions
    served = releases.Releases("example", registry, "example")
    assert sorted(reversed(versions), key=served.sort_key) == versions


def test_without_a_registry_versions_of_both_forms_sort_by_their_numbers():
    assert sorted(["1.10.0", "1.0rc1", "1.2.0", "1.0.0"], key=release_key) == ["1.0rc1", "1.0.0", "1.2.0", "1.10.0"]


def test_mastras_catalogue_sorts_by_npms_order():
    assert framework_sweep.subject("mastra").sort_key("1.0.0-beta.11") == release_key("1.0.0-beta.11", "npm")
