"""Atomic writes, symlink containment, concurrent appends and safe reads of memory files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conkeeper.domain.textio import (
    ConcurrentEditError,
    MemoryFileError,
    append_text,
    atomic_write,
    file_stamp,
    read_text,
)


def test_atomic_write_preserves_permissions(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    target = root / "patterns.md"
    target.write_text("old")
    target.chmod(0o600)
    atomic_write(target, "new", root=root)
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in root.iterdir()] == ["patterns.md"]


def test_refuses_symlink_leading_outside_root(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text("mine")
    (root / "evil.md").symlink_to(outside)
    with pytest.raises(MemoryFileError, match="symlink leading outside"):
        atomic_write(root / "evil.md", "pwned", root=root)
    assert outside.read_text() == "mine"


def test_in_root_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "real.md").write_text("a")
    (root / "alias.md").symlink_to(root / "real.md")
    atomic_write(root / "alias.md", "b", root=root)
    assert (root / "alias.md").is_symlink()
    assert (root / "real.md").read_text() == "b"


def test_memory_root_that_is_a_file(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.write_text("oops")
    with pytest.raises(MemoryFileError, match="memory root is a file"):
        atomic_write(root / "x.md", "y", root=root)
    assert root.read_text() == "oops"


def test_concurrent_human_edit_is_not_clobbered(tmp_path: Path) -> None:
    root = tmp_path
    target = root / "active-context.md"
    target.write_text("v1")
    stamp = file_stamp(target)
    target.write_text("human edit, longer")
    with pytest.raises(ConcurrentEditError):
        atomic_write(target, "tool edit", root=root, expected_stamp=stamp)
    assert target.read_text() == "human edit, longer"


def test_read_rejects_binary_invalid_utf8_and_directories(tmp_path: Path) -> None:
    (tmp_path / "bin.md").write_bytes(b"\x89PNG\x00\x00")
    (tmp_path / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "dir.md").mkdir()
    for name, fragment in (("bin.md", "binary"), ("latin.md", "UTF-8"), ("dir.md", "directory")):
        with pytest.raises(MemoryFileError, match=fragment) as info:
            read_text(tmp_path / name)
        assert "\n" not in str(info.value)
    with pytest.raises(MemoryFileError, match="larger than"):
        (tmp_path / "big.md").write_text("x" * 100)
        read_text(tmp_path / "big.md", max_bytes=10)


def test_read_strips_bom(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbf# Title\r\n")
    assert read_text(tmp_path / "a.md") == "# Title\r\n"


def test_parallel_appends_lose_and_interleave_nothing(tmp_path: Path) -> None:
    target = tmp_path / "log.md"
    script = (
        "import sys\nfrom pathlib import Path\nfrom conkeeper.domain.textio import append_text\n"
        "for i in range(200):\n"
        "    append_text(Path(sys.argv[1]), f'{sys.argv[2]}-{i}-' + 'x' * 300 + '\\n',"
        " header='# H\\n')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(target), f"w{n}"], env=env)
        for n in range(4)
    ]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    lines = target.read_text().splitlines()
    assert lines[0] == "# H" and lines.count("# H") == 1
    body = lines[1:]
    assert len(body) == 800 and len(set(body)) == 800
    assert all(line.endswith("x" * 300) for line in body)


def test_append_writes_header_once(tmp_path: Path) -> None:
    target = tmp_path / "q.md"
    append_text(target, "a\n", header="# Q\n")
    append_text(target, "b\n", header="# Q\n")
    assert target.read_text() == "# Q\na\nb\n"
