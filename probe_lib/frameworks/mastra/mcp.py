"""MCP measured, not assumed: the corpus' real tool sets served by real MCP servers, loaded by the real ``@mastra/mcp``.

For every MCP tool set of the corpus (one per server and repository, :func:`probe_lib.inputs.corpus.record_of`), a
real MCP server (:class:`probe_lib.capture.mcp_servers.McpServers`) serves exactly its tool names under the corpus's
server label; the real ``MCPClient`` (``harness/mcp``, its own pinned package with the ``@mastra/core`` it needs)
connects to it, and an ``Agent`` holding the client's ``listTools()`` record makes one ``generate()`` call against
the capture server. What is kept per tool set: the keys the client built, the names that reached the wire, which
served tool each of those names is (read from the description its server gave it, which no one rewrites), and why
the turn failed if it did.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pandas as pd

from probe_lib import wire
from probe_lib.capture import CaptureServer
from probe_lib.capture.mcp_servers import McpServers, served_description
from probe_lib.core import files, paths
from probe_lib.core.errors import HarnessError, InputError
from probe_lib.inputs import corpus
from probe_lib.install import npm

RUNNER = paths.MCP_HARNESS / "mcp_runner.cjs"
RECORDING = paths.CAPTURES / "mcp-mastra.json"
#: Watchdog for the whole batch (about 0.1 s per tool set is typical).
BATCH_SECONDS = 600
COLUMNS = ("record", "server", "tools served", "client keys", "wire names", "wire served", "failure", "collision name")


def versions() -> dict[str, str]:
    """The ``@mastra/mcp`` and ``@mastra/core`` versions the MCP harness pins."""
    return json.loads((paths.MCP_HARNESS / "package.json").read_text())["dependencies"]


def tool_sets(frame: pd.DataFrame) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every MCP tool set of the corpus: record -> (server label, tool names in corpus order)."""
    mcp = frame[corpus.subset_of(frame) == "mcp"]
    records = corpus.record_of(mcp)
    return {
        record: (str(group["server"].iloc[0]), tuple(group["tool"]))
        for record, group in mcp.groupby(records, sort=True)
    }


def measure(frame: pd.DataFrame) -> pd.DataFrame:
    """Serve, load and send every MCP tool set of ``frame`` now; one row per tool set (see :data:`COLUMNS`)."""
    sets = tool_sets(frame)
    ids = {record: f"mcp-{index}" for index, record in enumerate(sets)}
    with McpServers({ids[record]: names for record, (_, names) in sets.items()}) as servers, CaptureServer() as capture:
        requests = []
        for record, (label, _) in sets.items():
            capture.script(ids[record], ())
            requests.append(
                {"label": label, "mcpUrl": servers.url(ids[record]), "modelUrl": capture.scenario_url(ids[record])}
            )
        replies = _run(requests)
        sent = {record: [c for c in capture.take(ids[record]) if c.wire is not None] for record in sets}
    rows = []
    for (record, (label, names)), reply in zip(sets.items(), replies):
        calls = sent[record]
        body = calls[0].body if calls else None
        error = reply["error"] or []
        collision = next((link["toolName"] for link in error if link.get("toolName")), None)
        failure = "collision" if collision else (error[-1]["message"] if error else "no request")
        served = [_served_tool(ids[record], text) for text in wire.tool_descriptions(body)]
        rows.append(
            {
                "record": record,
                "server": label,
                "tools served": list(names),
                "client keys": reply["keys"],
                "wire names": wire.BY_NAME[calls[0].wire].tool_names(body) if calls else None,
                "wire served": served if calls else None,
                "failure": None if calls else failure,
                "collision name": collision,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _served_tool(server: str, description: str | None) -> str | None:
    """The served tool a sent tool is, read from the description ``server`` gave it (``None``: not one of ours)."""
    prefix = served_description(server, "")
    return description.removeprefix(prefix) if description is not None and description.startswith(prefix) else None


def _run(requests: list[dict]) -> list[dict]:
    command = [npm.node_executable(), str(RUNNER), str(npm.modules_dir(paths.MCP_HARNESS, "@mastra/mcp"))]
    payload = json.dumps({"servers": requests})
    try:
        done = subprocess.run(command, input=payload, capture_output=True, timeout=BATCH_SECONDS, encoding="utf-8")
    except subprocess.TimeoutExpired:
        raise HarnessError(f"the @mastra/mcp runner gave no answer within {BATCH_SECONDS} s") from None
    if done.returncode != 0:
        raise HarnessError(f"the @mastra/mcp runner failed: {done.stderr.strip()[-1000:]}")
    replies = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if [reply["label"] for reply in replies] != [request["label"] for request in requests]:
        raise HarnessError("the @mastra/mcp runner answered for other servers than it was given")
    return replies


def record(frame: pd.DataFrame | None = None) -> Path:
    """Measure every MCP tool set live and write ``data/captures/mcp-mastra.json`` (deterministic)."""
    table = measure(corpus.load_corpus() if frame is None else frame)
    document = {"versions": versions(), "tool sets": table.to_dict("records")}
    return files.write_json(RECORDING, document)


def load(live: bool = True) -> pd.DataFrame:
    """The MCP measurement: measured now when ``live`` and Node.js and the MCP harness are here, else the
    recording; ``attrs["source"]`` says which, with the package versions it was made with."""
    if live and shutil.which("node") and npm.is_installed(paths.MCP_HARNESS):
        table, how, pinned = measure(corpus.load_corpus()), "measured live now", versions()
    elif not RECORDING.exists():
        raise InputError(f"no MCP recording at {RECORDING.name}: run `probe-lib record` where Node is installed")
    else:
        recording = json.loads(RECORDING.read_text(encoding="utf-8"))
        table = pd.DataFrame(recording["tool sets"], columns=list(COLUMNS))
        how, pinned = f"read from the recording data/captures/{RECORDING.name}", recording["versions"]
    table.attrs["source"] = f"{how} ({', '.join(f'{package} {version}' for package, version in pinned.items())})"
    return table


def naming(table: pd.DataFrame) -> pd.DataFrame:
    """Per tool set, what was measured: did the client prefix every name with its server label, did any name
    reach the wire rewritten or cut, and was the set refused (collision) or not sent at all."""
    joined = [
        keys == [f"{server}_{tool}" for tool in tools] if keys is not None else None
        for server, tools, keys in zip(table["server"], table["tools served"], table["client keys"])
    ]
    rewritten = [
        sum(1 for key in keys if key not in set(names)) if keys is not None and names is not None else None
        for keys, names in zip(table["client keys"], table["wire names"])
    ]
    cut = [
        sum(1 for key in keys if len(key) > 63) if keys is not None and names is not None else None
        for keys, names in zip(table["client keys"], table["wire names"])
    ]
    return pd.DataFrame(
        {
            "record": table["record"],
            "tools": table["tools served"].map(len),
            "client prefixed server_tool": pd.array(joined, dtype="boolean"),
            "names rewritten on the wire": pd.array(rewritten, dtype="Int64"),
            "keys over 63 (cut)": pd.array(cut, dtype="Int64"),
            "failure": table["failure"],
            "collision name": table["collision name"],
        }
    )
