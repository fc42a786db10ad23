"""Fixtures for the GitHub tests; the helpers live in ghfake.py (a unique module name, since
``from conftest import`` resolves to whichever conftest pytest loaded last)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ghfake import FakeGitHub, serve


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    state = FakeGitHub()
    server = serve(state)
    yield state
    server.shutdown()
    server.server_close()
