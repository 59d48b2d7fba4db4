"""The capture server's record store on its own, without a socket: scripts, records, take, redaction, threads."""

from __future__ import annotations

import threading

import pytest

from probe_lib.capture import RecordStore
from probe_lib.core.errors import StoreFailed
from probe_lib.wire.replies import DEFAULT_REPLY, ErrorReply, TextReply


def call(store: RecordStore, scenario: str, headers: dict[str, str] | None = None, n: int = 0):
    """Commit one model call the way the server does; returns (record, reply, number of the call)."""
    path = f"/s/{scenario}/v1/chat/completions"
    return store.commit(scenario, "POST", path, (headers or {}).items(), {"n": n}, None, None, "chat-completions")


def test_model_calls_take_the_scripted_replies_in_order_then_the_default():
    store = RecordStore()
    store.script("s", [TextReply("one"), ErrorReply(503, "busy")])
    answered = [call(store, "s") for _ in range(3)]
    assert [reply for _, reply, _ in answered] == [TextReply("one"), ErrorReply(503, "busy"), DEFAULT_REPLY]
    assert [number for _, _, number in answered] == [1, 2, 3]
    assert [record.status for record in store.records("s")] == [200, 503, 400]


def test_a_model_call_the_script_does_not_answer_gets_the_default_and_leaves_the_replies_for_those_it_does():
    store = RecordStore()
    store.script("s", [TextReply("one")], answers=lambda body: body["n"] > 0)
    answered = [call(store, "s", n=n)[1] for n in (0, 1, 0, 2)]
    assert answered == [DEFAULT_REPLY, TextReply("one"), DEFAULT_REPLY, DEFAULT_REPLY]


def test_a_request_answered_with_a_status_takes_no_reply_and_is_not_a_model_call():
    store = RecordStore()
    store.script("s", [TextReply("kept for the model call")])
    record, reply, calls = store.commit("s", "GET", "/s/s/v1/models", (), None, None, 404, None)
    assert (record.status, record.wire, reply, calls) == (404, None, None, 0)
    assert call(store, "s")[1] == TextReply("kept for the model call")


def test_take_returns_and_forgets_records_and_script_and_records_are_copies_in_arrival_order():
    store = RecordStore()
    store.script("a", [TextReply("1"), TextReply("2")])
    call(store, "a")
    call(store, "b")
    call(store, "a")
    assert [(record.scenario, record.seq) for record in store.records()] == [("a", 0), ("b", 1), ("a", 2)]
    store.records().clear()
    assert [record.seq for record in store.take("a")] == [0, 2]
    assert store.records("a") == [] and store.take("a") == []
    assert call(store, "a")[1] == DEFAULT_REPLY, "the rest of the script went with the records"


def test_credentials_are_redacted_and_the_host_dropped_before_anything_is_kept():
    seen = []
    store = RecordStore(on_record=seen.append)
    headers = {"Authorization": "Bearer sk-secret", "X-Api-Key": "k", "Host": "127.0.0.1:1234", "X-Trace": "t"}
    record, _, _ = call(store, "s", headers)
    assert record.headers == {"authorization": "<redacted>", "x-api-key": "<redacted>", "x-trace": "t"}
    assert seen == [record] and "sk-secret" not in repr(store.records())


def test_without_keep_records_each_record_goes_only_to_on_record():
    seen = []
    store = RecordStore(on_record=seen.append, keep_records=False)
    for n in range(5):
        call(store, "s", n=n)
    assert [record.body["n"] for record in seen] == list(range(5))
    assert store.records() == [] and store.take("s") == []


def test_a_writer_that_fails_fails_the_store_so_no_later_record_is_written_after_a_lost_one():
    written, disk_full = [], [False]

    def write(record):
        if disk_full[0]:
            raise OSError(28, "No space left on device")
        written.append(record.seq)

    store = RecordStore(on_record=write)
    call(store, "s")
    disk_full[0] = True
    with pytest.raises(StoreFailed, match="record 1 could not be written: No space left on device"):
        call(store, "s")
    disk_full[0] = False  # space freed: still no record after the lost one, so the written ones have no gap
    with pytest.raises(StoreFailed):
        call(store, "s")
    assert written == [0] and str(store.failure).startswith("record 1 ")


def test_scripts_refuse_a_scenario_id_a_url_would_change_and_anything_but_a_reply():
    store = RecordStore()
    with pytest.raises(ValueError, match="scenario id"):
        store.script("../x", [])
    with pytest.raises(TypeError, match="is not an ErrorReply"):
        store.script("s", ["text"])


def test_commits_from_many_threads_get_unique_sequential_numbers_and_each_its_own_reply():
    store = RecordStore()
    threads, per_thread = 8, 200
    for t in range(threads):
        store.script(f"t{t}", [TextReply(str(n)) for n in range(per_thread)])

    def commit_all(t: int) -> None:
        for n in range(per_thread):
            call(store, f"t{t}", n=n)

    workers = [threading.Thread(target=commit_all, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert [record.seq for record in store.records()] == list(range(threads * per_thread))
    for t in range(threads):
        assert [record.body["n"] for record in store.records(f"t{t}")] == list(range(per_thread))
        assert all(record.status == 200 for record in store.records(f"t{t}")), "no script ran out or was shared"
