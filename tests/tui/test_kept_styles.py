"""The styles the last start parsed answer the next start's parses (issue 33: ~10 ms of the way to the first frame).

The file is a pickle in the cache dir, so the tests attack its trust (another user's, writable by others, a link, a
folder others may write) as much as its use: a start answered from it must be styled exactly as one that parsed.
"""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path

import pytest
from apps import app_on, settle, until
from textual.css.stylesheet import Stylesheet

from tui.local.kept_styles_file import kept_styles_path, read_kept_styles, write_kept_styles
from widgets.kept_styles import TEXTUAL, KeptStyles


def rules_of(styles) -> str:
    return repr(sorted(styles.get_rules().items()))


def styled(app) -> tuple[list[tuple[str, str]], list[tuple[str, str, str, str]]]:
    """The app's rules (selectors and values), and every widget of its screen with its place and its styles."""
    rules = [(rule.selectors, rules_of(rule.styles)) for rule in app.stylesheet.rules]
    widgets = [
        (type(node).__name__, str(node.id), str(node.region), rules_of(node.styles.base))
        for node in app.screen.walk_children()
    ]
    return rules, widgets


async def test_the_next_start_is_answered_from_what_the_first_parsed_and_styled_the_same(sim):
    path = kept_styles_path()
    async with app_on(sim, kept_styles=path).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await until(pilot, path.exists)  # nothing was kept: what the start parsed is written once it is drawn
        first = styled(pilot.app)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    written = path.stat().st_mtime_ns
    async with app_on(sim, kept_styles=path).run_test(size=(100, 30)) as pilot:
        await pilot.app.start_drawn()
        assert not pilot.app._kept_styles.changed  # every source on the way to the first frame: from the file
        await settle(pilot)
        assert styled(pilot.app) == first
    assert path.stat().st_mtime_ns == written  # nothing new: not written again


async def test_another_theme_is_parsed_afresh_with_its_own_colours(sim):
    path = kept_styles_path()
    async with app_on(sim, kept_styles=path).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await until(pilot, path.exists)
    async with app_on(sim, kept_styles=path, theme="nord").run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert pilot.app._kept_styles.changed  # the sandbox theme's rules do not answer nord's
        answered = styled(pilot.app)
    async with app_on(sim, theme="nord").run_test(size=(100, 30)) as pilot:  # no kept styles at all
        await settle(pilot)
        assert styled(pilot.app) == answered


async def test_a_start_without_a_usable_file_parses_as_textual_does(sim):
    path = kept_styles_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_bytes(b"not a pickle at all")
    os.chmod(path, 0o600)
    async with app_on(sim, kept_styles=path).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: path.read_bytes() != b"not a pickle at all")  # replaced by the start's rules
        garbled = styled(pilot.app)
    async with app_on(sim).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert styled(pilot.app) == garbled


def test_a_file_of_another_textual_or_shape_is_not_used():
    assert not KeptStyles(pickle.dumps({"textual": "0.0.1", "rules": {("x",): []}})).changed
    for kept in (b"", b"\x80\x05junk", pickle.dumps(["a list"]), pickle.dumps({"textual": TEXTUAL, "rules": []})):
        styles = KeptStyles(kept)
        stylesheet = Stylesheet(variables={})
        styles.answer(stylesheet)
        stylesheet.add_source("Label { color: red; }", read_from=("test", "Label"))
        assert [(rule.selectors, rules_of(rule.styles)) for rule in stylesheet.rules] == [
            ("Label", "[('auto_color', False), ('color', Color(255, 0, 0))]")
        ]
        assert styles.changed  # parsed, as Textual would


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    path = tmp_path / "styles" / "parsed.pickle"
    write_kept_styles(path, b"rules")
    return path


def test_the_file_is_this_users_own_and_private(kept: Path):
    assert read_kept_styles(kept) == b"rules"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700


def test_written_under_a_umask_of_000_it_is_still_private_and_read(tmp_path: Path):
    path = tmp_path / "cache" / "styles" / "parsed.pickle"
    before = os.umask(0)
    try:
        write_kept_styles(path, b"rules")
    finally:
        os.umask(before)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert read_kept_styles(path) == b"rules"


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666])
def test_a_file_others_may_write_is_not_read(kept: Path, mode: int):
    os.chmod(kept, mode)
    assert read_kept_styles(kept) is None


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_file_in_a_folder_others_may_write_is_not_read(kept: Path, mode: int):
    os.chmod(kept.parent, mode)  # e.g. made under a umask of 000 by something else: anyone could have put it there
    assert read_kept_styles(kept) is None


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
@pytest.mark.parametrize("given", ["file", "folder"])
def test_a_file_or_folder_of_another_user_is_not_read(kept: Path, given: str):
    os.chown(kept if given == "file" else kept.parent, 65534, 65534)  # nobody's: a second local user planted it
    assert read_kept_styles(kept) is None


def test_a_link_is_not_followed(kept: Path, tmp_path: Path):
    planted = tmp_path / "planted.pickle"
    planted.write_bytes(b"someone else's")
    kept.unlink()
    kept.symlink_to(planted)
    assert read_kept_styles(kept) is None
    linked_folder = tmp_path / "linked"
    linked_folder.symlink_to(kept.parent, target_is_directory=True)
    assert read_kept_styles(linked_folder / "parsed.pickle") is None


def test_a_file_far_larger_than_the_rules_is_not_read(kept: Path):
    kept.write_bytes(b"x" * (2 * 1024 * 1024 + 1))
    assert read_kept_styles(kept) is None


def test_a_missing_file_or_folder_is_no_error(tmp_path: Path):
    assert read_kept_styles(tmp_path / "none" / "parsed.pickle") is None
    write_kept_styles(tmp_path / "file-not-folder", b"x")  # a folder that cannot be made costs only the head start
    write_kept_styles(tmp_path / "file-not-folder" / "parsed.pickle", b"x")
