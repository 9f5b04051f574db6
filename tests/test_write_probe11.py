"""An eleventh round on "nothing the user wrote is ever lost", from outside.

A person edits a file while ConKeeper writes it (every way editors save, placed between
ConKeeper's read and write by the ``CONKEEPER_STOP_AT`` seam), and the database and data home
are damaged (a torn WAL, a full disk). Every case goes through the real ``conkeeper`` command or
hook as a subprocess.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from conftest import cli_env
from conkeeper.domain.paths import data_home


def _file_size_limit(size: int) -> None:
    """Run in the child before ``exec``: no file may grow past ``size`` bytes (a full disk, as
    far as every write is concerned; Python ignores the ``SIGXFSZ`` that goes with it)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_doctor_on_a_full_disk_leaves_no_probe_file_and_names_the_cause(project: Path) -> None:
    """``doctor`` checks the data home by writing a probe file; on a full disk the write failed
    after the file was made, so every run left a ``.doctor-probe-PID`` behind, and the advice
    was to fix the folder's permissions. The probe goes whatever happens, and the fix line
    names the full disk (here a file-size limit, which fails writes the same way)."""
    done = subprocess.run(
        [sys.executable, "-m", "conkeeper", "doctor"],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: _file_size_limit(1),
    )
    home = data_home()
    assert not [p.name for p in home.iterdir() if p.name.startswith(".doctor-probe")]
    line = next(x for x in done.stdout.splitlines() if x.startswith("FAIL  data home"))
    fix = done.stdout.splitlines()[done.stdout.splitlines().index(line) + 1]
    assert "permissions" not in fix, done.stdout
    assert "ulimit" in fix, done.stdout
