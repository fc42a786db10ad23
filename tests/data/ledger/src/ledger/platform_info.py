"""Which interpreter runs the ledger (shown in its report footer)."""

from __future__ import annotations

import sys


def python_minor() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"
