"""Fails at import time, like a module that needs configuration it does not find."""

from __future__ import annotations

import os

DSN = os.environ["HAZARDS_DATABASE_URL_NOT_SET"]


def connect() -> str:
    return DSN
