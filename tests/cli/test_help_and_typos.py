"""What a newcomer sees when exploring the CLI: help that groups the commands, help for every
option, and a typo answered with "did you mean", one `codemode: error:` prefix only."""

from __future__ import annotations

import argparse

import pytest

from codemode.cli.main import PLUMBING, build_parser, main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(argv)
    return code, capsys.readouterr().err


def test_misspelt_command_suggests_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["chek", "--all"], capsys)
    assert code == 2
    assert err == (
        "codemode: error: unknown command 'chek' (did you mean 'check'?); "
        "`codemode --help` lists the commands\n"
    )


def test_misspelt_option_suggests_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["check", "--stagd"], capsys)
    assert code == 2
    assert err.startswith("usage: codemode check ")
    last = err.splitlines()[-1]
    assert last == (
        "codemode: error: check: unrecognized arguments: --stagd (did you mean '--staged'?)"
    )
    assert last.count("codemode") == 1


def test_bad_value_names_the_subcommand_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["check", "--color", "sometimes"], capsys)
    assert code == 2
    assert err.splitlines()[-1].startswith(
        "codemode: error: check: argument --color: invalid choice: 'sometimes'"
    )


def test_help_lists_user_commands_first_and_plumbing_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    commands, plumbing = out.split("CI plumbing (run by the GitHub Action and the hooks):")
    for name in ("check", "diff", "regen", "accept", "schema"):
        assert f"\n    {name} " in commands
    for name in PLUMBING:
        assert f"\n    {name} " not in commands
        assert f"\n  {name} " in plumbing


def _actions(parser: argparse.ArgumentParser, name: str) -> list[tuple[str, argparse.Action]]:
    out = []
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sub_name, sub in a.choices.items():
                out += _actions(sub, sub_name)
        else:
            out.append((name, a))
    return out


def test_every_option_has_help() -> None:
    missing = [
        f"{name} {'/'.join(a.option_strings) or a.dest}"
        for name, a in _actions(build_parser(), "codemode")
        if not a.help
    ]
    assert missing == []


def test_regen_help_describes_what_its_scopes_explore(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["regen", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "spec files or folders to check" not in out
    assert "--all every function in the source roots: a first spec for those without one" in out
    assert "PATH spec files (their functions), or modules and package folders" in out
    assert "--staged the functions the staged change added or modified" in out
