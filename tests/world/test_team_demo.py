"""`giftdesk --demo --team` as a person starts it, in a real terminal: the demo on a throwaway PostgreSQL cluster
of its own, its URL said so that a second demo can join it, and nothing of it left once the demo ends."""

from __future__ import annotations

import os
import re
import signal
import socket
from urllib.parse import urlsplit

import psycopg
import pytest
from test_start_in_a_terminal import read_until, start_demo

from tui.team.cluster import server_bindir

pytestmark = pytest.mark.skipif(server_bindir() is None, reason="PostgreSQL's server programs are not installed")
SAID_URL = re.compile(rb"team database: (postgresql://\S+)")


def accepts_connections(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_the_team_demo_says_its_database_shows_the_team_and_leaves_nothing_when_it_ends():
    child, leader = start_demo(arguments=("--demo", "--team"))
    try:
        shown = read_until(leader, lambda text: SAID_URL.search(text) is not None and b"Acme" in text, linger=1.0)
        url = SAID_URL.search(shown)[1].decode()
        assert b"team" in shown[shown.index(b"profile demo-sandbox") :]  # the header says team mode
        with psycopg.connect(url, connect_timeout=5) as teammate:  # the URL said is one a second demo can join
            tables = {row[0] for row in teammate.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert {"audit", "notes", "inbox"} <= tables, tables
        port = urlsplit(url).port
        assert port is not None and accepts_connections(port)

        os.write(leader, b":q\r")
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        os.close(leader)
    assert not accepts_connections(port)  # its cluster stopped with it
