"""Profiles and the config file: real files in tmp dirs, real subprocesses, a real keyring backend."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from memory_keyring import MemoryKeyring

from tui.local import secret_sources
from tui.local.config import Config, ConfigError, SecretSource
from tui.local.config_file import ProfileStore
from tui.local.profiles import (
    choose_profile,
    demo_profile,
    effective_readonly,
    make_profile,
    profile_from_env,
    updated_profile,
)
from tui.local.secret_sources import resolve_secret, store_keyring_secret


def sandbox_profile(name: str = "acme-sandbox", **overrides) -> object:
    fields = dict(
        name=name,
        environment="sandbox",
        base_url="https://sandbox.example.com/",
        client_id="acme-client",
        secret=SecretSource(kind="env", ref="ACME_SANDBOX_SECRET"),
    )
    return make_profile(**{**fields, **overrides})


@pytest.fixture
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path / "conf" / "config.toml")


# --- the file -------------------------------------------------------------------------------


def test_round_trip_keeps_every_field(store: ProfileStore) -> None:
    production = make_profile(
        name="acme-prod",
        environment="production",
        base_url="https://api.example.com",
        client_id="acme-live",
        secret=SecretSource(kind="command", ref="pass show giftdesk/acme"),
        default_account=42,
        readonly=True,
    )
    config = Config().with_profile(sandbox_profile()).with_profile(production).using("acme-prod")
    store.save(config)

    assert store.load() == config
    assert store.load().current_profile == production


def test_missing_file_is_an_empty_config(store: ProfileStore) -> None:
    assert store.load() == Config()


def test_path_comes_from_giftdesk_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIFTDESK_CONFIG", str(tmp_path / "elsewhere.toml"))
    assert ProfileStore().path == tmp_path / "elsewhere.toml"


def test_save_is_atomic_private_and_leaves_no_temp_file(store: ProfileStore) -> None:
    store.add(sandbox_profile())
    store.add(sandbox_profile("second"))

    assert sorted(p.name for p in store.path.parent.iterdir()) == ["config.toml"]
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700


def test_first_profile_becomes_current_and_removing_it_clears_current(store: ProfileStore) -> None:
    assert store.add(sandbox_profile()).current == "acme-sandbox"
    assert store.add(sandbox_profile("other")).current == "acme-sandbox"
    assert store.use("other").current == "other"
    assert store.remove("other").current is None
    assert list(store.load().profiles) == ["acme-sandbox"]


def test_helpers_validate(store: ProfileStore) -> None:
    store.add(sandbox_profile())
    with pytest.raises(ConfigError, match="exists already"):
        store.add(sandbox_profile())
    with pytest.raises(ConfigError, match="no profile named 'nope'"):
        store.use("nope")
    with pytest.raises(ConfigError, match="no profile named 'nope'"):
        store.remove("nope")
    with pytest.raises(ConfigError, match="cannot be renamed"):
        store.update("acme-sandbox", name="renamed")
    assert store.update("acme-sandbox", readonly=True).profiles["acme-sandbox"].readonly


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("name", "bad name", "name:"),
        ("name", "", "name:"),
        ("environment", "staging", "environment:"),
        ("base_url", "ftp://example.com", "base_url:"),
        ("base_url", "https://", "base_url:"),
        ("client_id", "has:colon", "client_id:"),
        ("default_account", -1, "default_account:"),
        ("default_account", True, "default_account:"),
        ("secret", {"kind": "env", "ref": "not a var"}, "secret:"),
        ("secret", {"kind": "command", "ref": "  "}, "secret:"),
        ("secret", {"kind": "vault", "ref": "x"}, "secret"),
    ],
)
def test_invalid_profile_fields_are_named(field: str, value: object, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        sandbox_profile(**{field: value})


def test_http_and_https_urls_are_accepted_without_trailing_slash() -> None:
    assert sandbox_profile(base_url="http://127.0.0.1:8080/").base_url == "http://127.0.0.1:8080"
    assert sandbox_profile(base_url="https://x.example/api/").base_url == "https://x.example/api"


# --- a broken file is reported and never overwritten --------------------------------------


def test_corrupt_toml_names_the_file_and_is_not_overwritten(store: ProfileStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text("[profiles.acme\nbase_url = ")
    before = store.path.read_bytes()

    with pytest.raises(ConfigError) as error:
        store.load()
    assert str(store.path) in str(error.value)
    assert "not valid TOML" in str(error.value)

    with pytest.raises(ConfigError, match="not saved"):
        store.save(Config().with_profile(sandbox_profile()))
    with pytest.raises(ConfigError):
        store.add(sandbox_profile())
    assert store.path.read_bytes() == before


def test_a_fresh_store_does_not_save_over_a_corrupt_file(store: ProfileStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text("current = 'a'\n")  # valid TOML, invalid content
    with pytest.raises(ConfigError, match="not overwritten"):
        ProfileStore(store.path).save(Config())
    assert store.path.read_text() == "current = 'a'\n"


def test_forced_save_replaces_a_corrupt_file(store: ProfileStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text("garbage = = =")
    with pytest.raises(ConfigError):
        store.load()
    store.save(Config(), force=True)
    assert store.load() == Config()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("colour = 'blue'\n", "unknown setting"),
        ("version = 7\n", "version 7"),
        ("current = 'ghost'\n", "names no profile"),
        ("profiles = 3\n", "must be a table"),
        ("[profiles.a]\nname = 'b'\n", "the name is the table's key"),
        (
            "[profiles.a]\nenvironment='sandbox'\nbase_url='https://x.example'\nclient_id='c'\n"
            "readonyl=true\n[profiles.a.secret]\nkind='env'\nref='X'\n",
            "profiles.a: readonyl",
        ),
        (
            "[profiles.a]\nenvironment='prod'\nbase_url='https://x.example'\nclient_id='c'\n"
            "[profiles.a.secret]\nkind='env'\nref='X'\n",
            "profiles.a: environment",
        ),
        (
            "[profiles.a]\nenvironment='sandbox'\nbase_url='https://x.example'\nclient_id='c'\n"
            "[profiles.a.secret]\nkind='inline-demo'\nref='demo'\n",
            "secret.kind must be one of",
        ),
        (
            "[profiles.a]\nenvironment='sandbox'\nbase_url='https://x.example'\nclient_id='c'\n"
            "[profiles.a.secret]\nkind='env'\nref='X'\nvalue='s3cret'\n",
            "profiles.a: secret.value",
        ),
    ],
)
def test_invalid_content_is_reported_with_the_file(store: ProfileStore, content: str, problem: str) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text(content)
    with pytest.raises(ConfigError, match=problem) as error:
        store.load()
    assert str(store.path) in str(error.value)
    assert "s3cret" not in str(error.value)


def test_unreadable_file_is_reported(store: ProfileStore) -> None:
    store.path.mkdir(parents=True)  # a directory where the file should be
    with pytest.raises(ConfigError, match="cannot read it") as error:
        store.load()
    assert str(store.path) in str(error.value)


# --- secrets ---------------------------------------------------------------------------------


def test_secrets_never_reach_the_disk(store: ProfileStore, tmp_path: Path) -> None:
    env_secret, command_secret, demo_secret = "env-s3cret-1", "cmd-s3cret-2", "demo-s3cret-3"
    env_profile = sandbox_profile("by-env", secret=SecretSource(kind="env", ref="BY_ENV_SECRET"))
    command_profile = sandbox_profile(
        "by-command", secret=SecretSource(kind="command", ref=f"echo {command_secret[:4]}''{command_secret[4:]}")
    )
    demo = demo_profile("demo", "sandbox", "http://127.0.0.1:9", "demo-id", demo_secret)
    store.add(env_profile)
    store.add(command_profile)
    with pytest.raises(ConfigError, match="never saved"):
        store.add(demo)

    assert resolve_secret(env_profile, {"BY_ENV_SECRET": env_secret}).get_secret_value() == env_secret
    assert resolve_secret(command_profile).get_secret_value() == command_secret
    assert resolve_secret(demo).get_secret_value() == demo_secret
    assert demo_secret not in repr(demo) and demo_secret not in str(demo.as_dict())

    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in (env_secret, command_secret, demo_secret):
                assert secret.encode() not in data, path


def test_a_demo_profile_rebuilt_from_its_dump_has_no_secret() -> None:
    demo = demo_profile("demo", "sandbox", "http://127.0.0.1:9", "demo-id", "demo-secret")
    rebuilt = make_profile(**demo.as_dict())
    with pytest.raises(ConfigError, match="only in --demo mode"):
        resolve_secret(rebuilt)


def test_env_secret_missing_says_which_variable() -> None:
    with pytest.raises(ConfigError, match="ACME_SANDBOX_SECRET is not set"):
        resolve_secret(sandbox_profile(), environ={})


def test_failing_secret_command_never_echoes_its_output() -> None:
    profile = sandbox_profile(secret=SecretSource(kind="command", ref="echo leaked-out; echo leaked-err >&2; exit 3"))
    with pytest.raises(ConfigError, match="exit status 3") as error:
        resolve_secret(profile)
    assert "leaked" not in str(error.value)


def test_secret_command_printing_nothing_is_an_error() -> None:
    with pytest.raises(ConfigError, match="printed nothing"):
        resolve_secret(sandbox_profile(secret=SecretSource(kind="command", ref="true")))


def test_secret_command_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secret_sources, "SECRET_COMMAND_TIMEOUT", 0.2)
    with pytest.raises(ConfigError, match=r"did not finish within 0\.2 s"):
        resolve_secret(sandbox_profile(secret=SecretSource(kind="command", ref="sleep 5")))


def test_keyring_secret_uses_service_giftdesk_and_the_profile_name(memory_keyring: MemoryKeyring) -> None:
    profile = sandbox_profile(secret=SecretSource(kind="keyring"))
    with pytest.raises(ConfigError, match="no secret in the keyring"):
        resolve_secret(profile)
    store_keyring_secret("acme-sandbox", "kr-secret")
    assert memory_keyring.passwords == {("giftdesk", "acme-sandbox"): "kr-secret"}
    assert resolve_secret(profile).get_secret_value() == "kr-secret"


def test_unusable_keyring_is_a_clear_error() -> None:
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        with pytest.raises(ConfigError, match="keyring is unavailable"):
            resolve_secret(sandbox_profile(secret=SecretSource(kind="keyring")))
    finally:
        keyring.set_keyring(previous)


# --- environment profile, read-only, choosing -----------------------------------------------

ENV = {
    "GIFTDESK_BASE_URL": "https://api.example.com",
    "GIFTDESK_CLIENT_ID": "env-client",
    "GIFTDESK_CLIENT_SECRET": "env-secret",
}


def test_profile_from_env() -> None:
    assert profile_from_env({}) is None
    profile = profile_from_env(ENV)
    assert (profile.name, profile.environment, profile.secret.kind) == ("env", "sandbox", "env")
    assert resolve_secret(profile, ENV).get_secret_value() == "env-secret"
    assert profile_from_env({**ENV, "GIFTDESK_ENVIRONMENT": "production"}).is_production


def test_profile_from_env_rejects_bad_values() -> None:
    with pytest.raises(ConfigError, match="sandbox or production"):
        profile_from_env({**ENV, "GIFTDESK_ENVIRONMENT": "live"})
    with pytest.raises(ConfigError, match="GIFTDESK_CLIENT_SECRET not"):
        profile_from_env({"GIFTDESK_BASE_URL": "https://x.example", "GIFTDESK_CLIENT_ID": "c"})
    with pytest.raises(ConfigError, match="GIFTDESK_\\* variables: invalid profile: base_url"):
        profile_from_env({**ENV, "GIFTDESK_BASE_URL": "nonsense"})


@pytest.mark.parametrize(
    ("flag", "per_profile", "expected"),
    [(False, False, False), (True, False, True), (False, True, True), (True, True, True)],
)
def test_readonly_profile_setting_can_only_make_it_stricter(flag: bool, per_profile: bool, expected: bool) -> None:
    assert effective_readonly(flag, sandbox_profile(readonly=per_profile)) is expected


def test_choose_profile_order() -> None:
    stored = sandbox_profile()
    config = Config().with_profile(stored)
    assert choose_profile(config, environ={}) == stored
    assert choose_profile(config, environ=ENV).name == "env"
    assert choose_profile(config, "acme-sandbox", environ=ENV) == stored
    assert choose_profile(config, "env", environ=ENV).name == "env"
    with pytest.raises(ConfigError, match="no profile chosen"):
        choose_profile(Config(), environ={})


def test_updated_profile_keeps_an_in_memory_secret() -> None:
    demo = demo_profile("demo", "sandbox", "http://127.0.0.1:9", "demo-id", "demo-secret")
    assert resolve_secret(updated_profile(demo, readonly=True)).get_secret_value() == "demo-secret"


def test_data_layer_never_imports_textual() -> None:
    code = (
        "import sys, tui.local.config, tui.local.config_file, tui.local.profiles, tui.local.secret_sources, tui.local.storage, tui.local.logs, tui.commands.profiles\n"
        "assert 'textual' not in sys.modules, 'textual imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})
