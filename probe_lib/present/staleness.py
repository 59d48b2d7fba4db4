"""Which notebooks of a report are stale: each executed notebook's inputs, its digest, and why it must run again.

A notebook's inputs are what its kernel read, as :mod:`probe_lib.present.reads` recorded it, plus what the
execution itself was given. Each input is named without a path of the machine and given a value:

- ``notebook``: the SHA-256 of the notebook file executed (a solved copy with ``--solutions``); ``parameters``: the
  parameters papermill injected; ``python``: the interpreter's version; ``program:node``: the version of the
  ``node`` on PATH (``absent`` without one);
- ``report:REL``: a file of the report itself (``measurements/catalogue/mastra-1.67.0.json``), ``kit:REL``: a file
  of the kit's checkout (its modules, as their source even when the kernel loaded the compiled copy, its data, the
  environment lock), ``cache:REL``: a file in the kit's cache, ``file:PATH``: any other file (the time zone, the
  font list), each by the SHA-256 of its bytes (``absent`` for one the kernel looked for and did not find);
- ``package:NAME``: the version of the installed distribution a file it opened belongs to (a module, its data);
- ``entry:KIND/NAME``: an entry of the kit's cache a program it started was given (an installed ``@mastra/core``),
  by its modification time.

The running system (``/proc``, ``/sys``, ``/dev``) is not an input. Every notebook also has the executor's inputs
(the kit's modules that start and prepare the kernel, and the packages that run it). A notebook that started one of the
kit's Node.js runners (a live measurement in its own cells) has that runner's inputs too
(:func:`program_inputs`); one that started any other program is never reused, since what that program read is
not recorded. A notebook's
inputs, digest and the SHA-256 of its executed file are written to ``notebooks/inputs.json`` in the report; a later
``reproduce`` into the same folder reuses an executed notebook only when every one of its inputs has the value
recorded and its executed file is the one recorded (the folder is swapped in whole, so a killed run leaves none).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from probe_lib.core import paths
from probe_lib.core.errors import ProbeError
from probe_lib.install import npm

#: Where a report keeps what each of its notebooks read, relative to the report.
INPUTS = Path("notebooks") / "inputs.json"
#: The kit's environment lock (a pip constraints file): every notebook's input, whether it exists or not.
ENVIRONMENT_LOCK = paths.DATA / "environment.lock"
#: The value of a file looked for and not found.
ABSENT = "absent"
#: What the running system shows as files: its state, not an input of the page.
_SYSTEM = ("/proc/", "/sys/", "/dev/")
#: The packages that execute a notebook, and the kit's modules that start its kernel (forked from a zygote that has
#: made its first imports): inputs of every notebook.
EXECUTOR_PACKAGES = ("papermill", "nbclient", "nbformat", "jupyter_client", "ipykernel")
EXECUTOR_MODULES = ("present/execution.py", "present/kernels.py", "present/warm_kernel.py", "process/zygote.py")


@dataclass(frozen=True)
class Inputs:
    """Everything one executed notebook read, each input by name with its value (see the module docstring)."""

    values: Mapping[str, str]
    #: Why it can never be reused (it started a program), or ``None``.
    never_reused: str | None = None

    @property
    def digest(self) -> str:
        text = json.dumps(dict(self.values), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, or :data:`ABSENT` when it is not a file."""
    try:
        with path.open("rb") as stream:
            return hashlib.file_digest(stream, "sha256").hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return ABSENT


def version_of(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return ABSENT


def declared(source: Path, parameters: Mapping[str, str]) -> dict[str, str]:
    """The inputs every execution of ``source`` with ``parameters`` has, whatever its kernel reads."""
    values = {
        "notebook": sha256(source),
        "parameters": json.dumps(dict(parameters), sort_keys=True),
        "python": sys.version,
        _kit_name(ENVIRONMENT_LOCK): sha256(ENVIRONMENT_LOCK),
    }
    values.update({_kit_name(paths.PACKAGE / module): sha256(paths.PACKAGE / module) for module in EXECUTOR_MODULES})
    values.update({f"package:{name}": version_of(name) for name in EXECUTOR_PACKAGES})
    values["program:node"] = node_version()
    return values


@cache
def node_version() -> str:
    """The version of the ``node`` on PATH (``v20.20.2``), or :data:`ABSENT`: every notebook's input, since a
    notebook may look for it without opening a file (on PATH, by ``os.stat``), which the record does not see."""
    try:
        return npm.node_version()
    except (ProbeError, OSError, subprocess.SubprocessError):
        return ABSENT


def recorded(
    log: Path, report: Path, declared_values: Mapping[str, str], known: dict[str, str] | None = None
) -> Inputs:
    """The inputs of one execution: ``declared_values`` and what its kernel's ``log`` says it read, the report's
    own files named relative to ``report``. ``known``: the values of inputs already read in ``report`` since its
    notebooks ran, by name (filled in here: a kernel opens hundreds of files of a few dozen inputs, and the notebooks
    of one report share most of them)."""
    known = {} if known is None else known
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    head, events = lines[0], lines[1:]
    values = dict(declared_values)
    never = None
    if head["kernel"]["executable"] != sys.executable or head["kernel"]["version"] != sys.version:
        never = "its kernel ran another Python than reproduce itself"
    written: set[str] = set()
    read = list(head["preloaded"])
    for event in events:
        if "process" in event:
            started, why_not = program_inputs(event)
            values.update(started)
            never = never or why_not
        elif event.get("as") == "write":
            written.add(event["open"])
        elif event["open"] not in written:  # a file it wrote itself is its output, not an input
            read.append(event["open"])
    for path in read:
        named = name_of(Path(path), report)
        if named is not None:
            if named not in known:
                known[named] = current(named, report)
            values[named] = known[named]
    return Inputs(values, never)


def program_inputs(started: Mapping) -> tuple[dict[str, str], str | None]:
    """The inputs of a program a kernel started (a line of its log), or why it makes the notebook never reused.

    Only the kit's own Node.js runners are known: ``node`` on PATH (its version is every notebook's input), started
    in the kernel's folder with its environment, on a script of a harness folder of the kit (which loads only its
    harness folders: each of their files is an input) and on entries of the kit's cache (each written whole once and
    never changed, so its modification time stands for its contents). Any other argument with no ``/`` is a word
    (a version, a count, a flag), part of what the kernel gave it. Everything else the program could read is unseen.
    """
    program = Path(started["process"])
    unseen = f"it started {program.name}, whose reads are not recorded"
    if started.get("args") is None or started["cwd"] is not None or started["env"] or not _is_node(program):
        return {}, unseen
    values: dict[str, str] = {}
    for argument in started["args"][1:]:
        if "/" not in argument:
            continue
        path = Path(os.path.abspath(argument))
        if any(path.is_relative_to(folder) for folder in harness_folders()):
            values.update(_harness_files())
        elif path.is_relative_to(paths.cache()) and len(path.relative_to(paths.cache()).parts) >= 2:
            entry = "/".join(path.relative_to(paths.cache()).parts[:2])
            values[f"entry:{entry}"] = _entry_value(paths.cache() / entry)
        else:
            return {}, unseen
    return values, None


@cache
def harness_folders() -> tuple[Path, ...]:
    """The kit's folders of code run by Node.js or a framework's Python: every ``harness`` folder of the package."""
    return tuple(sorted(folder for folder in paths.PACKAGE.rglob("harness") if folder.is_dir()))


@cache
def _harness_files() -> dict[str, str]:
    files = (path for folder in harness_folders() for path in folder.rglob("*") if path.is_file())
    return {_kit_name(path): sha256(path) for path in files if "__pycache__" not in path.parts}


def _entry_value(entry: Path) -> str:
    """A cache entry's modification time (it is published whole, by one rename, and never changed after: one
    installed again has another), or :data:`ABSENT`."""
    try:
        return str(entry.stat().st_mtime_ns)
    except FileNotFoundError:
        return ABSENT


def _is_node(program: Path) -> bool:
    try:
        return Path(shutil.which(program) or program).resolve() == Path(npm.node_executable()).resolve()
    except ProbeError:  # no node on PATH: the program is some other
        return False


def name_of(path: Path, report: Path) -> str | None:
    """The input a file the kernel opened is (see the module docstring), or ``None`` for the running system's."""
    text = path.as_posix()
    if text.startswith(_SYSTEM):
        return None
    if path.name.endswith(".pyc") and path.parent.name == "__pycache__":
        try:
            path = Path(importlib.util.source_from_cache(text))  # the module's source: what the compiled copy is of
        except ValueError:
            pass
    if path.is_relative_to(report):
        return f"report:{path.relative_to(report).as_posix()}"
    if path.is_relative_to(paths.ROOT) and not path.is_relative_to(sys.prefix):
        # The kit's own file, by its bytes, before any distribution claims it: run from the checkout
        # (`python -m probe_lib`), the editable install's probe_lib.egg-info there lists the modules it knew, and
        # would name them by the kit's version, which an edited module does not change.
        return _kit_name(path)
    distribution = _distribution_files().get(str(path)) or _distribution_files().get(str(path.parent))
    if distribution:
        return f"package:{distribution}"
    site = next((Path(folder) for folder in _site_folders() if path.is_relative_to(folder)), None)
    if site is not None:  # a file of no installed distribution
        return f"site:{path.relative_to(site).as_posix()}"
    if path.is_relative_to(sys.prefix) or path.is_relative_to(sys.base_prefix):
        return "python"  # the standard library and the interpreter's own files
    if path.is_relative_to(paths.cache()):
        return f"cache:{path.relative_to(paths.cache()).as_posix()}"
    home = Path.home()
    return f"file:~/{path.relative_to(home).as_posix()}" if path.is_relative_to(home) else f"file:{text}"


@cache
def _site_folders() -> tuple[str, ...]:
    return tuple({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})


def _kit_name(path: Path) -> str:
    return f"kit:{path.relative_to(paths.ROOT).as_posix()}"


def current(name: str, report: Path) -> str:
    """The value input ``name`` has now, its report files read in ``report``."""
    kind, _, rest = name.partition(":")
    if kind == "package":
        return version_of(rest)
    if kind == "python":
        return sys.version
    if kind == "program":
        return node_version()
    if kind == "report":
        return sha256(report / rest)
    if kind == "kit":
        return sha256(paths.ROOT / rest)
    if kind == "site":
        return next((value for folder in _site_folders() if (value := sha256(Path(folder) / rest)) != ABSENT), ABSENT)
    if kind == "cache":
        return sha256(paths.cache() / rest)
    if kind == "entry":
        return _entry_value(paths.cache() / rest)
    if kind == "file":
        return sha256(Path(os.path.expanduser(rest)))
    raise ValueError(f"not an input name: {name}")


@cache
def _distribution_files() -> dict[str, str]:
    """Every file of every installed distribution (from their RECORD), and its metadata folder (which package
    readers look into for files it may not have, ``entry_points.txt``), by absolute path, to the distribution's name.
    Paths as text: an environment holds about a hundred thousand files, and making each a ``Path`` took seconds."""
    owners: dict[str, str] = {}
    for distribution in importlib.metadata.distributions():
        name, base = distribution.metadata["Name"], str(distribution.locate_file(""))
        for file in distribution.files or ():
            located = os.path.abspath(os.path.join(base, str(file)))
            if located.endswith(".pyc"):
                continue  # a module is named by its source
            owners.setdefault(located, name)
            folder = os.path.dirname(located)
            if folder.endswith(".dist-info"):
                owners.setdefault(folder, name)
    return owners


def changed(earlier: Inputs, now: Mapping[str, str], report: Path, known: dict[str, str]) -> list[str]:
    """What differs between ``earlier``'s inputs and their values now (``now``: the declared ones of this run), as
    a reader reads it: ``measurements/catalogue/mastra-1.67.0.json changed``, ``pandas 2.2.3 -> 2.3.0``. ``known``:
    values already read in this run, by name (filled in here; the notebooks of one report share most inputs)."""
    said = []
    for name in sorted(set(earlier.values) | set(now)):
        was = earlier.values.get(name)
        if name in now:
            is_now = now[name]
        else:
            is_now = known[name] = known[name] if name in known else current(name, report)
        if was == is_now:
            continue
        kind, _, rest = name.partition(":")
        if kind in {"package", "python", "program"}:
            said.append(f"{rest or 'Python'} {was or 'not used'} -> {is_now}")
        elif kind in {"notebook", "parameters"}:
            said.append(f"its {kind} changed")
        else:
            said.append(f"{rest} {'appeared' if was == ABSENT else 'is gone' if is_now == ABSENT else 'changed'}")
    return said


@dataclass(frozen=True)
class Entry:
    """One executed notebook as a report keeps it: its inputs and the SHA-256 of the executed file."""

    inputs: Inputs
    executed: str

    def as_json(self) -> dict:
        return {
            "digest": self.inputs.digest,
            "executed": self.executed,
            "never reused": self.inputs.never_reused,
            "inputs": dict(sorted(self.inputs.values.items())),
        }


def write(report: Path, entries: Mapping[str, Entry]) -> None:
    """Write every notebook's entry into ``report`` (:data:`INPUTS`), in reading order."""
    text = json.dumps({name: entry.as_json() for name, entry in entries.items()}, indent=1, ensure_ascii=False)
    (report / INPUTS).parent.mkdir(parents=True, exist_ok=True)
    (report / INPUTS).write_text(text + "\n", encoding="utf-8")


def read(report: Path) -> dict[str, Entry]:
    """The entries an earlier report keeps, by notebook file name; none when it keeps none or cannot be read (an
    older report: every notebook is then executed)."""
    try:
        kept = json.loads((report / INPUTS).read_text(encoding="utf-8"))
        return {
            name: Entry(Inputs(entry["inputs"], entry["never reused"]), entry["executed"])
            for name, entry in kept.items()
            if entry["digest"] == Inputs(entry["inputs"]).digest
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
