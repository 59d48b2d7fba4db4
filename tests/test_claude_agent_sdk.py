"""The Claude Agent SDK adapter, on the real package: its bundled Claude Code CLI run against the capture server.

Expectations are what the SDK was measured to do (claims X22-X31), written out: the `mcp__<server>__` prefix,
the list probes, the tunnels its CLI asks for. The socket check and the watchdog are tested by making them fire:
the CLI pointed at a listener on this machine's own non-loopback address that never answers.
"""

from __future__ import annotations

import base64
import http.client
import os
import socket
import subprocess
import threading
from dataclasses import replace

import pytest
from test_frameworks import _installed as installed

from probe_lib import frameworks
from probe_lib.analysis import matrix, permissions, traffic
from probe_lib.capture import CaptureServer
from probe_lib.core.errors import StateError
from probe_lib.core.scenarios import for_keys
from probe_lib.measure import measurement, permission_runs
from probe_lib.measure.collection import LISTS
from probe_lib.measure.provenance import Provenance
from probe_lib.present.execution import MEASUREMENTS
from probe_lib.process.lines import LinesChild
from probe_lib.wire.replies import ToolCall, ToolCallsReply

ADAPTER = frameworks.get("claude-agent-sdk")


def _installed() -> str:
    return installed(ADAPTER)


def test_the_capture_server_records_and_refuses_a_tunnel_in_the_scenario_its_proxy_user_names():
    with CaptureServer() as server:
        host, port = server.base_url.removeprefix("http://").split(":")
        for user in ("scenario-7", None):
            connection = http.client.HTTPConnection(host, int(port), timeout=10)
            headers = {"Proxy-Authorization": "Basic " + base64.b64encode(f"{user}:".encode()).decode()} if user else {}
            connection.set_tunnel("telemetry.example.com", 443, headers=headers)
            with pytest.raises(OSError, match="403"):
                connection.connect()
            connection.close()
        assert server.proxy_url("scenario-7") == server.base_url.replace("://", "://scenario-7@")
        tunnelled = [(c.scenario, c.method, c.path, c.status) for c in server.records()]
    assert tunnelled == [
        ("scenario-7", "CONNECT", "telemetry.example.com:443", 403),
        ("default", "CONNECT", "telemetry.example.com:443", 403),
    ]


def test_a_dotted_key_goes_out_prefixed_and_rewritten_and_a_call_of_that_name_runs_it(capture_server):
    version = _installed()
    call = ToolCallsReply((ToolCall("mcp__probe__search_web", {"city": "Paris"}),))
    plain, forced, trip = ADAPTER.run(
        [
            for_keys("dot", ["search.web", "plain"]),
            for_keys("dot+forced", ["search.web", "plain"], {"type": "tool", "toolName": "search.web"}),
            replace(for_keys("dot+round-trip", ["search.web", "plain"]), replies=(call,)),
        ],
        version,
        server=capture_server,
    )
    assert plain.wire == "anthropic-messages"
    assert plain.wire_names == ["mcp__probe__plain", "mcp__probe__search_web"]
    assert all("tool_choice" not in request for request in plain.requests)
    assert forced.failure.kind == "not applicable" and "tool_choice" in forced.failure.message
    assert [run["key"] for run in trip.executions] == ["search.web"], trip.error
    # Everything else the turn sent is kept: its tunnels to Anthropic's host, refused by the kit's proxy.
    assert plain.unrouted and {(e["method"], e["path"]) for e in plain.unrouted} == {
        ("CONNECT", "api.anthropic.com:443")
    }


@pytest.mark.slow
@pytest.mark.node
def test_the_list_probes_measured_live_agree_with_the_recording(recorded_lists, live_report):
    """The list probes as the live report measured them (``reproduce`` measures them live) against the recording."""
    _installed()
    file = measurement.path(live_report.folder / MEASUREMENTS, LISTS.name, LISTS.targets()[0])
    measured = measurement.read(file)
    assert measured.made.how is Provenance.LIVE, measured.made
    columns = ["list", "spelling", "offered", "offers the tool", "search.web ran"]
    live = permissions.table(measured.outcomes)
    recorded = permissions.table(recorded_lists)
    assert live[columns].equals(recorded[columns]), live[columns].compare(recorded[columns])
    assert (
        live["search.web ran"] == (live["spelling"] == "name on the wire") ^ (live["list"] == "disallowedTools")
    ).all()


def _own_address() -> str:
    """An address of this machine that is not loopback (a test that needs one is skipped without it)."""
    found = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    ipv4 = [address for address in found if "." in address and not address.startswith("127.")]
    if not ipv4:
        pytest.skip("this machine has no non-loopback IPv4 address to point the CLI at")
    return ipv4[0]


@pytest.mark.slow
def test_a_turn_that_reaches_past_loopback_is_refused_and_a_stalled_cli_is_killed_with_its_children():
    """The CLI's base URL on this machine's own non-loopback address, where a listener accepts and never answers:
    the socket poll sees the connection, the adapter refuses the outcome, and the watchdog kills the CLI."""
    version = _installed()
    listener = socket.create_server((_own_address(), 0))
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
    host, port = listener.getsockname()[:2]
    child = LinesChild([*ADAPTER.pins.command(version), "1"], "claude-agent-sdk")
    child.start()
    try:
        url = f"http://{host}:{port}/s/off-loopback/v1"
        request = {"id": "off", "url": url, "keys": ["plain"], "toolChoice": None, "timeoutMs": 8000}
        report = child.exchange([request], timeout=60)["off"]
    finally:
        child.close()
        listener.close()
        for connection in accepted:
            connection.close()
    assert report["stalled"] is True and "watchdog killed it" in report["error"][0]["message"]
    assert any(f"{port:04X}" in remote for remote in report["offLoopback"]), report["offLoopback"]
    assert not os.path.exists(f"/proc/{report['cliPid']}/stat") or _is_zombie(report["cliPid"])
    with pytest.raises(StateError, match="past loopback"):
        ADAPTER._outcome(for_keys("off", ["plain"]), version, report, [])


def _is_zombie(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()[0] == "Z"


def test_the_recorded_matrix_holds_the_sdk_and_judges_its_first_request(recorded_matrix):
    recorded = matrix.table([o for o in recorded_matrix if o.framework == "claude-agent-sdk"])
    dot = recorded.set_index("probe").loc["dot"]
    assert dot["names"] == ["mcp__probe__plain", "mcp__probe__search_web"] and dot["round trip"] == "right tool"
    assert set(recorded["forced verdict"].dropna()) == {"not applicable"}


def test_the_traffic_table_shows_what_the_sdk_sent_beside_the_judged_request_and_nothing_for_the_others(
    recorded_matrix,
):
    table = traffic.per_target(recorded_matrix)
    claude = table.loc[f"claude-agent-sdk@{ADAPTER.versions()[-1]}"]
    assert claude["fewest requests"] >= 2 and claude["other traffic"] == ["CONNECT api.anthropic.com:443 -> 403"]
    assert table.drop(index=claude.name)["other traffic"].map(len).eq(0).all(), table


def test_each_table_reads_its_own_probes_from_a_target_holding_both(recorded_matrix, recorded_lists):
    both = recorded_matrix + recorded_lists
    assert matrix.table(both).equals(matrix.table(recorded_matrix))
    lists = permissions.table(both)
    assert len(lists) == len(permission_runs.PROBES) and set(lists["target"]) == {
        f"claude-agent-sdk@{ADAPTER.versions()[-1]}"
    }
