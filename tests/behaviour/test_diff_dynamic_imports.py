"""A change to a module that a function imports by a name it computes reaches the function
(#32), through the CLI with real git and real workers on both sides: a table module loaded on
demand (``importlib.import_module(f"demo.tables.{lang}")``, ``__import__("demo.t%02x" % n)``)
changes what its loader returns, though no name links them. Fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

LOADERS = {
    "f-string": (
        "import importlib\n\n\ndef translate(word, lang):\n"
        '    table = importlib.import_module(f"demo.tables.{lang}")\n'
        "    return table.WORDS.get(word, word)\n",
        "translate('cat', 'fr')",
    ),
    "percent": (
        "def translate(word, lang):\n"
        "    table = __import__('demo.tables.%s' % lang, globals(), locals(), ['WORDS'])\n"
        "    return table.WORDS.get(word, word)\n",
        "translate('cat', 'fr')",
    ),
}
TEST = """\
from demo.lib import translate


def test_translate():
    assert translate("cat", "fr")
"""


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_a_table_module_loaded_by_a_computed_name_reaches_its_loader(
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loader, call = LOADERS[kind]
    repo = project(
        tmp_path,
        {
            "src/demo/lib.py": loader,
            "src/demo/tables/__init__.py": "",
            "src/demo/tables/fr.py": 'WORDS = {"cat": "chat", "dog": "chien"}\n',
            "tests/test_lib.py": TEST,
        },
    )
    write(repo, {"src/demo/tables/fr.py": 'WORDS = {"cat": "minou", "dog": "chien"}\n'})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.lib.translate")
    assert f is not None, sorted(functions(report))  # in scope: re-checked and diffed
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls[call]["new"] == {"returned": "minou"}, list(calls)
    assert f["via"] == ["demo.tables.fr.WORDS", "demo.lib.translate"]
