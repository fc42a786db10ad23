"""Shared by the tests under tests/explore: a copy of the shop example and a worker on it.

Their conftests import these fixtures; a module with its own name, because two folders
importing `from conftest import ...` get whichever conftest pytest loaded last.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pydantic_ai.models
import pytest

from codemode.config import Config, load_config
from codemode.worker.make import make_worker
from codemode.worker.pool import Worker

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

SHOP = Path(__file__).resolve().parents[1] / "examples" / "shop"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    dest = tmp_path / "shop"
    shutil.copytree(SHOP, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture
def shop_config(shop: Path) -> Config:
    return load_config(shop)


@pytest.fixture
def worker(shop_config: Config) -> Iterator[Worker]:
    w = make_worker(shop_config)
    w.start()
    yield w
    w.close()
