"""giftdesk's own files when the machine is shared (issue 35, break 8): under umask 000 every folder giftdesk
creates is 0700, its parents included; a file planted in place of the audit log (a symbolic link, another
user's file) is never written through and is named by `giftdesk audit verify`. Driven as a shell does."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

GIFTDESK = str(Path(sys.executable).parent / "giftdesk")
OTHER_USER = 65534  # nobody: a second local user


@pytest.fixture
def shell(sim, demo_credentials, tmp_path):
    """A shell under umask 000 whose giftdesk data folder's parents do not exist yet (a fresh $HOME)."""
    credential = demo_credentials["acme-sandbox"]
    home = tmp_path / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "GIFTDESK_DATA_DIR": str(home / ".local" / "share" / "giftdesk"),
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
    }

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [GIFTDESK, *args], env=env, capture_output=True, text=True, timeout=60, preexec_fn=lambda: os.umask(0)
        )

    run.home = home  # type: ignore[attr-defined]
    run.data = Path(env["GIFTDESK_DATA_DIR"])  # type: ignore[attr-defined]
    return run


def place(shell) -> subprocess.CompletedProcess:
    request_id = str(uuid.uuid4())
    place = ["order", "place", "--account", "1001", "--product", "201", "--value", "10", "--yes"]
    return shell(*place, "--request-id", request_id)


def test_under_umask_000_every_folder_giftdesk_creates_is_private(shell):
    placed = place(shell)
    assert placed.returncode == 0, placed.stderr
    made = [shell.home / ".local", shell.home / ".local" / "share", shell.data]
    made += [path for path in shell.data.rglob("*") if path.is_dir()]
    assert {str(folder): oct(stat.S_IMODE(folder.stat().st_mode)) for folder in made} == {
        str(folder): "0o700" for folder in made
    }
    files = [path for path in shell.data.rglob("*") if path.is_file()]
    assert shell.data / "audit.jsonl" in files
    assert {str(file): oct(stat.S_IMODE(file.stat().st_mode)) for file in files} == {
        str(file): "0o600" for file in files
    }


def test_a_symlink_planted_in_place_of_the_audit_log_is_never_written_through(shell, tmp_path):
    assert place(shell).returncode == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n")
    victim.chmod(0o644)
    audit = shell.data / "audit.jsonl"
    audit.unlink()
    audit.symlink_to(victim)

    refused = place(shell)
    assert refused.returncode != 0
    assert "symbolic link" in refused.stderr and "nothing was sent" in refused.stderr, refused.stderr
    assert victim.read_text() == "someone else's file\n" and stat.S_IMODE(victim.stat().st_mode) == 0o644

    verify = shell("audit", "verify")
    assert verify.returncode == 1 and "symbolic link" in verify.stderr and "replaced" in verify.stderr, verify.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_an_audit_log_of_another_user_is_named_by_audit_verify(shell):
    assert place(shell).returncode == 0
    audit = shell.data / "audit.jsonl"
    replaced = audit.with_name("planted")
    replaced.write_bytes(audit.read_bytes())
    os.chown(replaced, OTHER_USER, OTHER_USER)
    replaced.replace(audit)
    verify = shell("audit", "verify")
    assert verify.returncode == 1 and f"another user (uid {OTHER_USER})" in verify.stderr, verify.stderr


def test_a_symlink_in_place_of_the_limiters_file_is_refused_naming_it(shell, tmp_path):
    assert place(shell).returncode == 0
    (limiter,) = (shell.data / "profiles").glob("*.sqlite3")
    target = tmp_path / "elsewhere.sqlite3"
    limiter.replace(target)
    limiter.symlink_to(target)
    refused = shell("accounts")
    assert refused.returncode == 2 and str(limiter) in refused.stderr and "symbolic link" in refused.stderr
