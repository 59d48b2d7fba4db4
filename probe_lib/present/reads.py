"""What a notebook kernel read, recorded as it runs: every file it opened and every process it started.

``reproduce`` starts each kernel with :func:`record` (an IPython ``exec_lines`` entry, so before the first cell and
outside the execution count). It adds a CPython audit hook (PEP 578) that sees every ``open`` of the interpreter,
whoever calls it (``open()``, ``io``, ``os.open``, ``pathlib``, pandas and matplotlib's readers, the import
system loading a module), and every child process started (``subprocess``, ``os.exec*``, ``os.posix_spawn``,
``os.system``); one started by ``subprocess`` with its arguments, its working folder and what it changed in the
environment, so :mod:`probe_lib.present.staleness` can tell what it could read. Each new event is appended to a
JSON-lines log at once, so what the kernel read is on disk however it ends. The first line says what the kernel is
(its Python and where it looks for packages) and which modules it had loaded before the hook, which the import
system opened unseen. A kernel forked from a zygote (:mod:`probe_lib.process.zygote`) shares the zygote's imports:
the zygote calls :func:`remember` first, and what those imports opened is recorded as the kernel's own reads.

This module is imported into every kernel: it uses the standard library alone.
"""

from __future__ import annotations

import json
import os
import sys

#: The audit events that start another program; their first argument is the program run.
PROCESS_EVENTS = ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.startfile")

#: The name a zygote loads this module under (by its file, apart from the kit) to :func:`remember` what its imports
#: open; the kernels forked from it find that copy by this name.
IN_ZYGOTE = "probe_lib_reads_in_zygote"
#: What this process opened since :func:`remember`, until it first forked.
opened_before_fork: list[dict] = []


def remember() -> None:
    """Keep every file this process opens from now on until it first forks, for :func:`record` to write first: a
    zygote's imports are read once for every kernel forked from it, and what a kernel opens as it starts, before
    its record, is no more recorded than a kernel started cold records it."""
    remembering = True

    def hook(event: str, arguments: tuple) -> None:
        # A relative path (an import hook's name tried as a zip file) names a file of this process's folder alone.
        if remembering and event == "open" and _absolute(arguments[0]):
            opened_before_fork.append(_opened(*arguments[:2]))

    def forking() -> None:
        nonlocal remembering
        remembering = False

    sys.addaudithook(hook)
    os.register_at_fork(before=forking)


def record(log: str) -> None:
    """Append to ``log`` (a new file) every file this process opens and every process it starts from now on, after
    what it opened since :func:`remember`, if that was called."""
    zygote = sys.modules.get(IN_ZYGOTE)
    earlier = zygote.opened_before_fork if zygote is not None else []
    out = open(log, "x", encoding="utf-8", buffering=1)  # noqa: SIM115 (held open for the process's life)
    preloaded = sorted(
        {module.__file__ for module in list(sys.modules.values()) if isinstance(getattr(module, "__file__", None), str)}
    )
    out.write(
        json.dumps(
            {"kernel": {"executable": sys.executable, "version": sys.version, "path": sys.path}, "preloaded": preloaded}
        )
        + "\n"
    )
    seen: set[str] = set()

    def write(line: dict) -> None:
        text = json.dumps(line)
        if text not in seen:
            seen.add(text)
            out.write(text + "\n")

    for line in earlier:
        write(line)

    def hook(event: str, arguments: tuple) -> None:
        if event == "open":
            line = _opened(*arguments[:2])
            if line is None:
                return
        elif event == "subprocess.Popen":  # the program with everything it was given, to judge what it could read
            program, argv, cwd, env = arguments
            listed = argv if isinstance(argv, list | tuple) else [argv]
            line = {
                "process": _text(program),
                "args": [_text(argument) for argument in listed],
                "cwd": None if cwd is None else _text(cwd),
                "env": _env_changes(env),
            }
        elif event.startswith(PROCESS_EVENTS):
            line = {"process": _text(arguments[0])}
        else:
            return
        write(line)

    sys.addaudithook(hook)


def _absolute(path: object) -> bool:
    return isinstance(path, str | bytes | os.PathLike) and os.path.isabs(os.fsdecode(path))


def _opened(path: object, mode: object) -> dict | None:
    """The record of an ``open`` event, or ``None`` for a descriptor already open (its opening was seen)."""
    if isinstance(path, int) or path is None:
        return None
    if isinstance(mode, int):  # os.open's flags
        mode = "r" if mode & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) == 0 else "w"
    kind = "read" if mode is None or not set(str(mode)) & set("wax+") else "write"
    return {"open": os.path.abspath(os.fsdecode(path)), "as": kind}


def _text(value: object) -> str:
    return os.fsdecode(value) if isinstance(value, str | bytes | os.PathLike) else repr(value)


def _env_changes(env: object) -> dict[str, str | None] | None:
    """What a started program's environment changes from this process's (``None``: it inherits it whole); a
    variable removed is ``None``."""
    if env is None:
        return None
    given = {_text(name): _text(value) for name, value in dict(env).items()}
    changes: dict[str, str | None] = {name: value for name, value in given.items() if os.environ.get(name) != value}
    changes.update({name: None for name in os.environ if name not in given})
    return changes
