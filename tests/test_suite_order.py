"""The suite's own order (``conftest.pytest_collection_modifyitems``): the whole reports first, then the slow tests
longest first as the runs before timed them, then the quick ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import conftest
import pytest

#: The config of a run without workers (a pytest-xdist worker's has ``workerinput``).
CONTROLLER = SimpleNamespace()


@dataclass
class Item:
    nodeid: str
    slow: bool = True
    fixturenames: tuple[str, ...] = field(default=())

    def get_closest_marker(self, name: str):
        return object() if name == "slow" and self.slow else None


def test_slow_tests_run_longest_first_as_timed_and_an_untimed_one_counts_as_long(monkeypatch):
    timed = {"short": 1.0, "long": 30.0, "middle": 5.0, "quick-long": 99.0}
    monkeypatch.setattr(conftest, "_known_seconds", lambda: timed)
    items = [
        Item("short"),
        Item("quick-long", slow=False),
        Item("reads-report", fixturenames=("recorded_report",)),
        Item("long"),
        Item("new"),
        Item("middle"),
        Item("quick", slow=False),
    ]
    conftest.pytest_collection_modifyitems(CONTROLLER, items)
    assert [item.nodeid for item in items] == ["reads-report", "new", "long", "middle", "short", "quick-long", "quick"]


def test_a_kept_record_that_cannot_be_read_orders_nothing(monkeypatch, tmp_path):
    monkeypatch.setattr(conftest, "_kept_release_cache", lambda: tmp_path)
    for junk in ("not json", '["a list"]', "[" * 100_000, '{"a": 1' + "0" * 400 + "}"):
        (tmp_path / conftest.TEST_SECONDS).write_text(junk, encoding="utf-8")
        assert conftest._known_seconds() == {}, junk[:20]
    (tmp_path / conftest.TEST_SECONDS).write_text('{"a": "ten", "b": NaN, "c": 2}', encoding="utf-8")
    assert conftest._known_seconds() == {"c": 2.0}


def test_a_worker_orders_by_the_record_the_controller_read_not_by_the_file(monkeypatch):
    """Two workers reading the file each could collect different orders if another run rewrote it meanwhile."""
    monkeypatch.setattr(conftest, "_known_seconds", lambda: {"a": 1.0, "b": 2.0})
    node = SimpleNamespace(workerinput={})
    conftest.pytest_configure_node(node)
    monkeypatch.setattr(conftest, "_known_seconds", lambda: {"a": 9.0, "b": 2.0})  # rewritten since
    items = [Item("a"), Item("b")]
    conftest.pytest_collection_modifyitems(SimpleNamespace(workerinput=node.workerinput), items)
    assert [item.nodeid for item in items] == ["b", "a"]


def test_a_report_reading_test_not_marked_slow_is_refused():
    with pytest.raises(pytest.UsageError, match="not marked slow: quick-report"):
        conftest.pytest_collection_modifyitems(
            CONTROLLER, [Item("quick-report", slow=False, fixturenames=("live_report",))]
        )
