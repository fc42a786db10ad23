"""One verification run of the ledger example per test module: the tests read its verdicts."""

from __future__ import annotations

import shutil

import pytest
from ledger_report import LEDGER, Ledger

from codemode.check.run import run_check
from codemode.config import load_config
from codemode.scope import Scope


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Ledger:
    root = tmp_path_factory.mktemp("ledger") / "ledger"
    shutil.copytree(LEDGER, root, ignore=shutil.ignore_patterns("__pycache__"))
    config = load_config(root)
    return Ledger(root, run_check(config, Scope("all")))
