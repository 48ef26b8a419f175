"""A mirror that cannot be written gets a true message and hint (issue 24 item 15).

The tests run as root, whom file permissions do not stop: the data dir is a small
tmpfs of the test's own, filled up or remounted read-only.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_catalog_mirror import point_at

from tui.cli import main
from tui.local.fileio import mirror_path
from tui.local.mirror import Mirror

MOVE_ASIDE = "Move the file aside"


def catalog_sync() -> Result:
    return CliRunner().invoke(main, ["catalog", "sync"], catch_exceptions=False)


@pytest.fixture
def small_catalog_dir():
    """The mirrors' folder (GIFTDESK_DATA_DIR/catalog) on a tmpfs of 8 MiB of its own, unmounted after."""
    folder = mirror_path("env", "sandbox").parent
    folder.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def remount(folder: Path, *, ro: bool) -> None:
    subprocess.run(["mount", "-o", f"remount,{'ro' if ro else 'rw'}", str(folder)], check=True)


def test_a_full_disk_is_said_as_such(sim_factory, demo_credentials, monkeypatch, small_catalog_dir):
    point_at(monkeypatch, sim_factory(brands=300), demo_credentials["acme-sandbox"])
    filler = small_catalog_dir / "filler"
    filler.write_bytes(bytes(8 * 1024 * 1024 - 256 * 1024))  # 256 KiB left: too little for 300 brands
    result = catalog_sync()
    assert result.exit_code == 2
    assert "full" in result.stderr and "free some space" in result.stderr.lower(), result.stderr
    assert "another sync" not in result.stderr and MOVE_ASIDE not in result.stderr
    assert "Traceback" not in result.stderr


def test_a_good_mirror_on_a_read_only_data_dir_is_not_to_be_moved_aside(
    sim_factory, demo_credentials, monkeypatch, small_catalog_dir
):
    point_at(monkeypatch, sim_factory(brands=5), demo_credentials["acme-sandbox"])
    first = catalog_sync()
    assert first.exit_code == 0, first.stderr
    remount(small_catalog_dir, ro=True)
    try:
        result = catalog_sync()
    finally:
        remount(small_catalog_dir, ro=False)
    assert result.exit_code == 2
    assert "writable" in result.stderr and MOVE_ASIDE not in result.stderr, result.stderr
    [path] = small_catalog_dir.glob("*.sqlite3")
    with Mirror(path) as mirror:  # still whole
        assert mirror.counts()[0] == 5
