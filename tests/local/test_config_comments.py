"""Config edits keep the user's comments and layout (tomlkit): `profiles add/use/remove`
on a hand-written, commented file, through the real command on a real file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tui.cli import main
from tui.local.config_file import ProfileStore

COMMENTED = """\
# giftdesk profiles, kept by hand as well
version = 1
current = "sbx"   # the one I use most

# sandbox: try things here
[profiles.sbx]
environment = "sandbox"
base_url    = "https://sandbox.example.com"   # aligned on purpose
client_id   = "acme"

[profiles.sbx.secret]
kind = "env"
ref = "SBX_SECRET"

# production: careful
[profiles.live]
environment = "production"
base_url = "https://api.example.com"
client_id = "acme-live"
readonly = true   # never write from here
secret = { kind = "command", ref = "pass show acme" }

# staging, rarely used
[profiles.stage]
environment = "sandbox"
base_url = "https://stage.example.com"
client_id = "acme-stage"
secret = { kind = "env", ref = "STAGE_SECRET" }
# end of file
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "config" / "config.toml"  # GIFTDESK_CONFIG (tests/conftest.py)
    path.parent.mkdir()
    path.write_text(COMMENTED)
    return path


def giftdesk(*args: str) -> None:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_use_changes_one_value_and_nothing_else(config_file):
    giftdesk("profiles", "use", "live")
    assert config_file.read_text() == COMMENTED.replace('current = "sbx"', 'current = "live"')


def test_add_appends_a_table_and_keeps_every_comment(config_file):
    giftdesk(
        "profiles",
        "add",
        "new",
        "--environment",
        "sandbox",
        "--base-url",
        "https://new.example.com",
        "--client-id",
        "acme-new",
        "--secret-env",
        "NEW_SECRET",
    )
    text = config_file.read_text()
    assert text.startswith(COMMENTED)
    added = text.removeprefix(COMMENTED)
    assert "[profiles.new]" in added and 'ref = "NEW_SECRET"' in added
    assert "readonly" not in added  # a default is not written out
    config = ProfileStore(config_file).load()
    assert sorted(config.profiles) == ["live", "new", "sbx", "stage"]
    assert config.profiles["new"].secret.ref == "NEW_SECRET"


@pytest.mark.parametrize(
    "name, own_comment",
    [
        ("sbx", "# sandbox: try things here"),
        ("live", "# production: careful"),
        ("stage", "# staging, rarely used"),
    ],
)
def test_remove_takes_the_profile_and_its_own_comment_only(config_file, name, own_comment):
    giftdesk("profiles", "remove", name)
    text = config_file.read_text()
    assert f"[profiles.{name}" not in text and own_comment not in text
    for line in COMMENTED.splitlines():
        if line.startswith("#") and line != own_comment:
            assert line in text, f"lost {line!r}"
    assert "aligned on purpose" in text or name == "sbx"
    # Each remaining profile still has its comment right above its header.
    lines = text.splitlines()
    for other, comment in [
        ("sbx", "# sandbox: try things here"),
        ("live", "# production: careful"),
        ("stage", "# staging, rarely used"),
    ]:
        if other != name:
            assert lines[lines.index(f"[profiles.{other}]") - 1] == comment
    config = ProfileStore(config_file).load()
    assert name not in config.profiles and len(config.profiles) == 2


def test_a_changed_value_keeps_its_comment(config_file):
    ProfileStore(config_file).update("live", readonly=False)
    text = config_file.read_text()
    assert "readonly = false   # never write from here" in text
    assert text.replace("readonly = false", "readonly = true") == COMMENTED


def test_removing_the_first_of_tables_under_a_profiles_header(tmp_path):
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir()
    path.write_text(
        'version = 1\n\n[profiles]\n# first\n[profiles.a]\nenvironment = "sandbox"\n'
        'base_url = "http://a.test"\nclient_id = "a"\nsecret = {kind = "env", ref = "A"}\n\n'
        '# second\n[profiles.b]\nenvironment = "sandbox"\nbase_url = "http://b.test"\n'
        'client_id = "b"\nsecret = {kind = "env", ref = "B"}\n'
    )
    giftdesk("profiles", "remove", "a")
    text = path.read_text()
    assert "# first" not in text and "# second\n[profiles.b]" in text
    assert list(ProfileStore(path).load().profiles) == ["b"]


def test_a_new_file_is_plain_toml(tmp_path):
    giftdesk(
        "profiles",
        "add",
        "one",
        "--environment",
        "sandbox",
        "--base-url",
        "https://one.example.com",
        "--client-id",
        "c1",
        "--secret-env",
        "ONE",
    )
    text = (tmp_path / "config" / "config.toml").read_text()
    assert text == (
        'version = 1\ncurrent = "one"\n\n[profiles.one]\nenvironment = "sandbox"\n'
        'base_url = "https://one.example.com"\nclient_id = "c1"\n\n'
        '[profiles.one.secret]\nkind = "env"\nref = "ONE"\n'
    )
