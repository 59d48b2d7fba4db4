"""Folders a user owns, and full disks, as a user meets them: the real ``probe-lib`` writing ``export --out`` and
``run --out`` (``reproduce``'s cases, a report run each, are in test_reproduce_safety.py). A file the kit did not
write is never replaced or deleted, whatever it is called; a set of files is replaced as a whole or not at all;
every fault of an output folder (or of a path where a file is expected) is one line and exit 2.

The full-disk cases mount a small tmpfs in a mount namespace of their own (``unshare``: the mount ends with the
process, whatever happens to the test) and are skipped where mounting is not allowed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from test_cli_junk import JUNK, assert_input_error, run_main

from probe_lib.core import folders, paths
from probe_lib.core.errors import FolderRefused
from probe_lib.tables import export

EXAMPLE = paths.ROOT / "data" / "scenarios" / "example.yaml"
#: ``run --out`` on one pinned version: about ten seconds.
RUN = ("run", str(EXAMPLE), "--mastra", "1.71.0", "--out")
COMMANDS = {"export": ("export", "--out"), "run": RUN, "reproduce": ("reproduce", "--recorded", "--out")}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``probe-lib ARGS`` in this process (:func:`run_main`): what these tests read is the command's exit code and
    output, which a separate process would add only its start-up to."""
    code, stdout, stderr = run_main(list(args))
    return subprocess.CompletedProcess(["probe-lib", *args], code, stdout, stderr)


def assert_one_line(done: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Exit 2, nothing on stdout, and one error line on stderr (after ``run``'s progress lines) holding each
    fragment."""
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert lines and all("scenario(s) on" in line for line in lines[:-1]), done.stderr
    assert lines[-1].startswith("probe-lib ") and all(fragment in lines[-1] for fragment in fragments), lines[-1]


def snapshot(folder: Path) -> dict[str, object]:
    """Everything under ``folder``: each file's bytes, each symbolic link's target, each folder."""
    found: dict[str, object] = {}
    for root, subfolders, names in os.walk(folder):
        for name in [*subfolders, *names]:
            path = Path(root, name)
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[relative] = ("link", os.readlink(path))
            elif path.is_dir():
                found[relative] = ("folder",)
            else:
                found[relative] = path.read_bytes()
    return found


# -- a user's own files ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["export", "run"])
@pytest.mark.parametrize("name", ["outcomes.csv", "dictionary.csv", "mastra-1.71.0.json", "outcomes.parquet/"])
def test_a_users_file_named_like_the_kits_is_refused_and_left_untouched(tmp_path, command, name):
    """The class of issue 21: export and run --out took a file for theirs by its name and overwrote it."""
    out = tmp_path / "mine"
    out.mkdir()
    if name.endswith("/"):  # a folder where the kit writes a file
        (out / name).mkdir()
        (out / name / "notes.txt").write_text("my notes")
    else:
        (out / name).write_text("my own table")
    before = snapshot(out)
    assert_one_line(cli(*COMMANDS[command], str(out)), name.rstrip("/"), "nothing was changed")
    assert snapshot(out) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mine"], "nothing may be left beside it"


@pytest.mark.slow
def test_an_earlier_export_is_replaced_whole_but_not_once_the_user_added_a_file(tmp_path):
    out = tmp_path / "export"
    assert cli("export", "--out", str(out)).returncode == 0
    (out / "outcomes.csv").write_bytes(b"an earlier export's table\n")  # still the kit's file: its manifest lists it
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    assert_one_line(cli("export", "--out", str(out)), "notes.txt", "which the kit did not write")
    assert snapshot(out) == before
    (out / "notes.txt").unlink()
    assert cli("export", "--out", str(out)).returncode == 0
    listed = json.loads((out / folders.MANIFEST).read_text())["files"]
    assert sorted(listed) == sorted(export.FILES) == sorted(p.name for p in out.iterdir() if p.name != folders.MANIFEST)
    assert (out / "outcomes.csv").read_bytes() != b"an earlier export's table\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["export"]


@pytest.mark.slow
@pytest.mark.node
def test_run_out_replaces_an_earlier_runs_files_as_a_whole(tmp_path):
    """A second run into the folder leaves that run's files only: no measurement file of the first run remains
    beside a table that does not hold it."""
    out = tmp_path / "mine"
    assert cli("run", str(EXAMPLE), "--mastra", "1.0.4", "--out", str(out)).returncode == 0
    done = cli(*RUN, str(out))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [folders.MANIFEST, "mastra-1.71.0.json", "outcomes.csv", "outcomes.parquet", "dictionary.csv"]
    )
    assert set(export.read_csv(out / "outcomes.csv")["version"]) == {"1.71.0"}


@pytest.mark.parametrize("change", ["a file saved", "a folder made", "the manifest overwritten"])
def test_the_folder_is_checked_again_at_the_swap(tmp_path, change):
    """What ``reproduce`` meets when the user saves into its report folder while notebooks run (the real run is in
    test_reproduce_safety.py): the earlier set and the user's change stay, and the new set is kept beside them."""
    out = tmp_path / "out"
    with folders.replacing(out) as staging:
        (staging / "outcomes.csv").write_text("earlier")
    with pytest.raises(FolderRefused) as refusal:
        with folders.replacing(out) as staging:
            (staging / "outcomes.csv").write_text("new")
            if change == "a file saved":
                (out / "notes.txt").write_text("mine")
            elif change == "a folder made":
                (out / "drafts").mkdir()
            else:
                (out / folders.MANIFEST).write_text("mine")
            before = snapshot(out)
    assert f"the new files are in {out}.new" in str(refusal.value) and ".old-" not in str(refusal.value)
    assert snapshot(out) == before
    assert (out.parent / "out.new" / "outcomes.csv").read_text() == "new"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out", "out.new"]


# -- paths that cannot be used ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("fault", ["under a file", "a file", "a name too long", "a junk manifest"])
def test_an_output_folder_the_kit_cannot_use_is_one_line_and_exit_2(tmp_path, command, fault):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    out = {
        "under a file": afile / "deeper" / "out",
        "a file": afile,
        "a name too long": tmp_path / ("n" * 300),
        "a junk manifest": tmp_path / "out",
    }[fault]
    if fault == "a junk manifest":
        out.mkdir()
        (out / folders.MANIFEST).write_text('{"files": "everything"}')
    before = snapshot(tmp_path)
    fragment = {
        "under a file": f"lies under {afile}, which is a file",
        "a file": "is a file, not a folder",
        "a name too long": "File name too long",
        "a junk manifest": "cannot tell its files from yours",
    }[fault]
    assert_one_line(cli(*COMMANDS[command], str(out)), fragment)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "{dir}"],
        ["run", "{file}/scenarios.yaml"],
        ["lint", "{dir}"],
        ["lint", "{file}/requests.json"],
        ["capture", "--replies", "{dir}"],
        ["capture", "--replies", "{file}/replies.json"],
        ["capture", "--out", "{file}/records.jsonl"],
    ],
    ids=" ".join,
)
def test_a_folder_or_a_path_under_a_file_where_a_file_is_expected_is_one_line(tmp_path, argv):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    done = cli(*(arg.format(dir=tmp_path, file=afile) for arg in argv))
    assert_one_line(done, str(tmp_path))
    assert afile.read_text() == "mine"


# -- full disks ------------------------------------------------------------------------------------------------


def on_a_tmpfs(
    tmp_path: Path, options: str, command: str, before: str = "", keep_kib: int = 0, after: str = ""
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """Mount a tmpfs (``options``) at ``tmp_path/disk`` in a mount namespace of its own, run the shell ``before``
    there (``$DISK``, ``$WORK``, ``$PY`` are set; with ``keep_kib``, the disk is then filled but for about that
    many KiB), then ``probe-lib COMMAND``, then (the filler removed) the shell ``after``. Returns what the command
    did, the disk's path, and a copy of what the command left on the disk. Skips where mounting is not allowed."""
    work, disk = tmp_path / "work", tmp_path / "disk"
    work.mkdir()
    disk.mkdir()
    unshare = shutil.which("unshare")
    wrapper = [str(unshare), "--mount", "--propagation", "private", "sh", "-c"]
    allowed = unshare and subprocess.run([*wrapper, f"mount -t tmpfs -o size=1m tmpfs {work}"], capture_output=True)
    if not allowed or allowed.returncode != 0:
        pytest.skip("a tmpfs of the test's own needs unshare and the right to mount (root, outside a locked container)")
    fill = 'head -c $(( ($(df -k --output=avail "$DISK" | tail -1) - KEEP) * 1024 )) /dev/zero > "$DISK/filler"'
    script = f"""set -eu
mount -t tmpfs -o {options} tmpfs "$DISK"
{before}
{fill if keep_kib else ""}
set +e
"$PY" -m probe_lib {command} >"$WORK/stdout" 2>"$WORK/stderr"
echo $? >"$WORK/rc"
set -e
rm -f "$DISK/filler"
cp -a "$DISK/." "$WORK/disk"
{after}
"""
    env = {**os.environ, "PY": sys.executable, "DISK": str(disk), "WORK": str(work), "KEEP": str(keep_kib)}
    done = subprocess.run([*wrapper, script], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    ran = subprocess.CompletedProcess(
        command, int((work / "rc").read_text()), (work / "stdout").read_text(), (work / "stderr").read_text()
    )
    return ran, disk, work / "disk"


def assert_whole(folder: Path, earlier: dict[str, object]) -> None:
    """``folder`` holds the complete earlier set (byte for byte) or a complete new one (every file its manifest
    lists, none marked as the earlier set's)."""
    now = snapshot(folder)
    if now == earlier:
        return
    listed = json.loads(now.pop(folders.MANIFEST))["files"]
    assert sorted(now) == sorted(listed), "a set that is neither the earlier one nor a whole new one"
    assert not any(content.endswith(b"earlier\n") for content in now.values()), "half new, half earlier"


#: Make an earlier set at ``$DISK/NAME`` with ``probe-lib ARGS``, mark each of its files (they stay the kit's: the
#: manifest lists them, so a mix of old and new shows), and keep a copy in ``$WORK/earlier``.
EARLIER = """"$PY" -m probe_lib {args} "$DISK/{name}" >/dev/null
for file in "$DISK"/{name}/*.*; do printf "earlier\\n" >> "$file"; done
cp -a "$DISK/{name}" "$WORK/earlier"
"""


@pytest.mark.slow
def test_an_export_that_fills_the_disk_leaves_the_earlier_export_whole(tmp_path):
    """On a tmpfs with about 1 MiB left, the ~4 MB export fails: the folder must not end half new, half old."""
    done, disk, left = on_a_tmpfs(
        tmp_path,
        "size=64m",
        'export --out "$DISK/export"',
        EARLIER.format(args="export --out", name="export"),
        keep_kib=1024,
        after='"$PY" -m probe_lib export --out "$DISK/export" >/dev/null; cp -a "$DISK/export" "$WORK/again"',
    )  # with room again, the folder is replaced whole
    earlier = snapshot(tmp_path / "work" / "earlier")
    assert_whole(left / "export", earlier)
    assert_one_line(done, f"the disk holding {disk}/export is full", "was left as it was")
    assert sorted(path.name for path in left.iterdir()) == ["export"], "no staging folder may be left"
    assert snapshot(left / "export") == earlier
    assert_whole(tmp_path / "work" / "again", earlier)
    assert snapshot(tmp_path / "work" / "again") != earlier


@pytest.mark.slow
@pytest.mark.node
def test_a_run_out_that_fills_the_disk_leaves_the_earlier_run_whole(tmp_path):
    """The same for ``run --out``: its measurement file (~40 kB) and table do not fit in the ~16 KiB left."""
    run = " ".join(f'"{arg}"' for arg in RUN)
    done, disk, left = on_a_tmpfs(
        tmp_path, "size=8m", f'{run} "$DISK/run"', EARLIER.format(args=run, name="run"), keep_kib=16
    )
    assert_whole(left / "run", snapshot(tmp_path / "work" / "earlier"))
    assert_one_line(done, f"the disk holding {disk}/run is full")
    assert sorted(path.name for path in left.iterdir()) == ["run"]
    assert snapshot(left / "run") == snapshot(tmp_path / "work" / "earlier")


@pytest.mark.slow
@pytest.mark.parametrize(("options", "fragment"), [("size=1m", "is full"), ("size=1m,ro", "Read-only file system")])
def test_an_export_onto_a_disk_it_cannot_write_is_one_line_and_leaves_nothing(tmp_path, options, fragment):
    done, disk, left = on_a_tmpfs(tmp_path, options, 'export --out "$DISK/export"')
    assert_one_line(done, f"{disk}/export", fragment)
    assert list(left.iterdir()) == []


# -- the property: files the kit did not write survive every command --------------------------------------------

#: Names the kit writes somewhere (an export, a run, a report), which a user's own file may share.
KIT_NAMES = [
    "outcomes.csv",
    "outcomes.parquet",
    "dictionary.csv",
    "version_sweep.csv",
    "mastra-1.71.0.json",
    "index.html",
    "ledger.csv",
    "measurements/catalogue/mastra-1.67.0.json",
    "figures/00-primer-1.png",
    "export/outcomes.csv",
    folders.MANIFEST + ".bak",
]
component = st.text(st.characters(codec="utf-8", exclude_characters="/\0"), min_size=1, max_size=12).filter(
    lambda name: name not in (".", "..") and len(name.encode()) < 200
)
names = st.sampled_from(KIT_NAMES) | st.lists(component, min_size=1, max_size=3).map("/".join)
#: A manifest the kit cannot read as a list of its files.
junk_manifests = st.sampled_from([b"", b"{", b"[]", b'{"files": "all"}', b'{"files": [1]}', b"\xff\xfe"])
earlier_sets = {
    "export": export.FILES,
    "run": ("mastra-1.71.0.json", "outcomes.csv", "outcomes.parquet", "dictionary.csv"),
    "report": (
        "index.html",
        "pages/00-primer.html",
        "ledger.csv",
        "measurements/catalogue/mastra-1.67.0.json",
        "export/outcomes.csv",
    ),
}


def _place(folder: Path, name: str, make) -> bool:
    """Make ``folder/name`` with ``make(path)`` unless that path, or a file above it, is taken; True if made."""
    path = folder / name
    if any(parent.is_file() or parent.is_symlink() for parent in path.parents) or os.path.lexists(path):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    make(path)
    return True


@JUNK
@given(
    command=st.sampled_from(sorted(COMMANDS)),
    earlier=st.sampled_from([None, *earlier_sets]),
    files=st.dictionaries(names, st.binary(max_size=40), max_size=4),
    empty_folders=st.lists(names, max_size=2),
    links=st.lists(names, max_size=2),
    manifest=st.none() | junk_manifests,
)
def test_files_the_kit_did_not_write_survive_every_command_byte_for_byte(
    command, earlier, files, empty_folders, links, manifest
):
    """An output folder holding anything the kit did not write (files of any name, empty folders, links to a file
    outside, a manifest it cannot read), beside an earlier set of the kit's or not: every command refuses it in
    one line, and everything in it (and the linked file) is as it was."""
    with tempfile.TemporaryDirectory() as scratch:
        out, outside = Path(scratch) / "out", Path(scratch) / "outside.txt"
        outside.write_bytes(b"the user's file a link points to")
        out.mkdir()
        if earlier:
            with folders.replacing(out) as staging:
                for name in earlier_sets[earlier]:
                    (staging / name).parent.mkdir(parents=True, exist_ok=True)
                    (staging / name).write_bytes(b"the kit's")
        placed = [
            _place(out, name, lambda path, content=content: path.write_bytes(content))
            for name, content in files.items()
        ]
        placed += [_place(out, name, Path.mkdir) for name in empty_folders]
        placed += [_place(out, name, lambda path: path.symlink_to(outside)) for name in links]
        if manifest is not None:
            (out / folders.MANIFEST).write_bytes(manifest)
        assume(any(placed) or manifest is not None)
        before, beside = snapshot(out), sorted(os.listdir(scratch))
        code, stdout, stderr = run_main([*COMMANDS[command], str(out)])
        assert_input_error(code, stdout, stderr)
        assert snapshot(out) == before
        assert sorted(os.listdir(scratch)) == beside, "nothing may be left beside the folder"
        assert outside.read_bytes() == b"the user's file a link points to"
