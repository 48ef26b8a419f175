"""`giftdesk profiles ...` through click's CliRunner, on a real config file in a tmp dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from memory_keyring import MemoryKeyring

from tui.commands.profiles import command
from tui.local.config_file import ProfileStore

SANDBOX = ["--environment", "sandbox", "--base-url", "https://sandbox.example.com", "--client-id", "acme-client"]


@pytest.fixture(autouse=True)
def config_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("GIFTDESK_CONFIG", str(path))
    for variable in ("GIFTDESK_BASE_URL", "GIFTDESK_CLIENT_ID", "GIFTDESK_CLIENT_SECRET"):
        monkeypatch.delenv(variable, raising=False)
    return path


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(command, list(args), input=input)


def test_add_list_use_show_remove() -> None:
    assert run("add", "sbx", *SANDBOX, "--secret-env", "SBX_SECRET").exit_code == 0
    added = run(
        "add",
        "live",
        "--environment",
        "production",
        "--base-url",
        "https://api.example.com",
        "--client-id",
        "acme-live",
        "--secret-command",
        "pass show acme",
        "--default-account",
        "7",
        "--readonly",
    )
    assert added.exit_code == 0, added.output
    assert "added profile 'live' (production)" in added.stderr

    listed = run("list")
    assert listed.exit_code == 0
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["NAME", "ENVIRONMENT", "BASE", "URL", "CLIENT", "ID", "SECRET", "ACCOUNT", "READ-ONLY"]
    assert lines[2].split() == ["live", "production", "https://api.example.com", "acme-live", "command", "7", "yes"]
    assert lines[3].split() == ["*", "sbx", "sandbox", "https://sandbox.example.com", "acme-client", "env"]

    assert run("use", "live").exit_code == 0
    shown = run("show")
    assert "live  (current)" in shown.stdout and "PRODUCTION" in shown.stdout
    assert "command: pass show acme" in shown.stdout

    data = json.loads(run("show", "sbx", "--json").stdout)
    assert data == {
        "name": "sbx",
        "environment": "sandbox",
        "base_url": "https://sandbox.example.com",
        "client_id": "acme-client",
        "secret": {"kind": "env", "ref": "SBX_SECRET"},
        "default_account": None,
        "readonly": False,
        "stuck_after_minutes": None,
        "limits": None,
        "current": False,
    }

    removed = run("remove", "live")
    assert removed.exit_code == 0
    assert "no current profile now" in removed.stderr
    listing = json.loads(run("list", "--json").stdout)
    assert listing["current"] is None and [p["name"] for p in listing["profiles"]] == ["sbx"]


def test_empty_list_explains_what_to_do() -> None:
    result = run("list")
    assert result.exit_code == 0 and result.stdout == ""
    assert "giftdesk profiles add" in result.stderr


def test_list_warns_when_environment_variables_take_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIFTDESK_BASE_URL", "https://x.example")
    assert "GIFTDESK_* variables are set" in run("list").stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "x", *SANDBOX], "exactly one of"),
        (["add", "x", *SANDBOX, "--secret-env", "A", "--secret-command", "b"], "exactly one of"),
        (["add", "bad name", *SANDBOX, "--secret-env", "A"], "name:"),
        (
            ["add", "x", "--environment", "sandbox", "--base-url", "ftp://x", "--client-id", "c", "--secret-env", "A"],
            "base_url:",
        ),
        (
            [
                "add",
                "x",
                "--environment",
                "staging",
                "--base-url",
                "https://x.example",
                "--client-id",
                "c",
                "--secret-env",
                "A",
            ],
            "staging",
        ),
        (["use", "ghost"], "no profile named 'ghost'"),
        (["remove", "ghost"], "no profile named 'ghost'"),
        (["show"], "no current profile"),
    ],
)
def test_bad_input_exits_2_with_the_message_on_stderr(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_adding_a_taken_name_fails() -> None:
    run("add", "sbx", *SANDBOX, "--secret-env", "A")
    result = run("add", "sbx", *SANDBOX, "--secret-env", "B")
    assert result.exit_code == 2 and "exists already" in result.stderr


def test_a_corrupt_config_is_reported_and_kept(config_path: Path) -> None:
    config_path.parent.mkdir(parents=True)
    config_path.write_text("[[[ not toml")
    for args in (["list"], ["add", "sbx", *SANDBOX, "--secret-env", "A"], ["use", "sbx"]):
        result = run(*args)
        assert result.exit_code == 2
        assert str(config_path) in result.stderr
    assert config_path.read_text() == "[[[ not toml"


def test_secret_keyring_prompts_and_never_writes_the_secret(memory_keyring: MemoryKeyring, config_path: Path) -> None:
    result = run("add", "kr", *SANDBOX, "--secret-keyring", input="kr-s3cret-value\n")
    assert result.exit_code == 0, result.output
    assert "kr-s3cret-value" not in result.output
    assert memory_keyring.passwords == {("giftdesk", "kr"): "kr-s3cret-value"}
    assert b"kr-s3cret-value" not in config_path.read_bytes()
    assert ProfileStore().load().get("kr").secret.kind == "keyring"
    assert "keyring (giftdesk / kr)" in run("show", "kr").stdout

    removed = run("remove", "kr")
    assert "removed from the keyring" in removed.stderr
    assert memory_keyring.passwords == {}


def test_secret_keyring_with_a_taken_name_does_not_prompt(memory_keyring: MemoryKeyring) -> None:
    run("add", "kr", *SANDBOX, "--secret-env", "A")
    result = run("add", "kr", *SANDBOX, "--secret-keyring", input="should-not-be-read\n")
    assert result.exit_code == 2 and "exists already" in result.stderr
    assert memory_keyring.passwords == {}
