"""vowel's own spec style runs unchanged: bare builtins (``len:``), stdlib (``math.sqrt:``),
``Class.method`` ids, fixtures and evaluators, as vowel 0.4.0's ``examples/`` write them.

Nothing is downloaded: the spec below is written in vowel's style, the yardstick being
vowel 0.4.0's examples (``examples/evals/builtins.yml`` and friends), where 16 of 76 cases are
bare builtins.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.cli.main import main

VOWEL_STYLE = """\
# Built-in & standard library functions — no code needed.
len:
  dataset:
    - case: { id: len_list_three, input: [1, 2, 3], expected: 3 }
    - case: { id: len_string_hello, input: "hello", expected: 5 }
    - case: { id: len_empty_list, input: [], expected: 0 }

abs:
  dataset:
    - case: { id: abs_negative, input: -7, expected: 7 }
    - case: { id: abs_zero, input: 0, expected: 0 }

sorted:
  dataset:
    - case: { id: sorted_numbers, input: [3, 1, 2], expected: [1, 2, 3] }
    - case: { id: sorted_string, input: "cab", expected: ["a", "b", "c"] }

sum:
  dataset:
    - case: { id: sum_empty_list, input: [], expected: 0 }

max:
  dataset:
    - case: { id: max_list_values, input: [3, 1, 2], expected: 3 }

round:
  dataset:
    - case: { id: round_two_places, inputs: [3.14159, 2], expected: 3.14 }

bool:
  dataset:
    - case: { id: bool_empty_string, input: "", expected: false }

int:
  dataset:
    - case: { id: int_bad_literal, input: "x", raises: ValueError, match: "invalid literal" }

str.upper:
  dataset:
    - case: { id: upper_hello, input: "hello", expected: "HELLO" }

math.sqrt:
  dataset:
    - case: { id: sqrt_16, input: 16, expected: 4.0 }
    - case: { id: sqrt_negative_raises, input: -1, raises: ValueError, match: "math domain" }

math.factorial:
  evals:
    IsInt: { type: int }
    Positive: { assertion: "output > 0" }
  dataset:
    - case: { id: factorial_5, input: 5, expected: 120 }

os.path.join:
  dataset:
    - case: { id: join_two_parts, inputs: ["/home", "user"], expected: "/home/user" }

shapes.Counter.add:
  fixture: [counter]
  dataset:
    - case: { id: add_two, input: 2, expected: 12 }

shapes.Counter.double:
  dataset:
    - case: { id: double_static, input: 4, expected: 8 }

fixtures:
  counter:
    cls: shapes.Counter
    kwargs: { start: 10 }
"""

SHAPES = """\
class Counter:
    def __init__(self, start: int = 0) -> None:
        self.value = start

    def add(self, n: int) -> int:
        self.value += n
        return self.value

    @staticmethod
    def double(n: int) -> int:
        return 2 * n
"""


@pytest.fixture
def vowel_project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'v'\nversion = '0'\n")
    (tmp_path / "shapes.py").write_text(SHAPES)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "builtins.yml").write_text(VOWEL_STYLE)
    return tmp_path


def test_vowel_style_spec_passes_every_case(
    vowel_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "--root", str(vowel_project), "--all", "--color", "never"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "codemode: 14 functions: 14 ok; 19 cases: 19 passed" in out, out


def test_a_bare_word_that_is_no_builtin_is_still_a_misspelt_key(
    vowel_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vowel_project / "specs" / "builtins.yml").write_text(
        VOWEL_STYLE.replace("fixtures:", "fixture:")
    )
    code = main(["check", "--root", str(vowel_project), "--all", "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    assert "unknown top-level key 'fixture' (did you mean 'fixtures'?)" in out


# vowel's own examples/basic_usage/evals.yml (vowel 0.4.0): `greet` and `add` are functions
# its Python API receives by name (run_evals(..., functions={"greet": greet})); its CLI says
# "Function 'greet' not found in builtins. Use full module path" (#23).
API_ONLY = """\
greet:
  dataset:
    - case: {inputs: [World], expected: "Hello, World!"}
add:
  evals:
    IsInt: {type: int}
  dataset:
    - case: {inputs: [1, 2], expected: 3}
len:
  dataset:
    - case: {input: [1, 2], expected: 2}
"""


def test_an_api_only_bare_name_is_a_function_not_found(
    vowel_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vowel_project / "specs" / "builtins.yml").write_text(API_ONLY)
    code = main(["check", "--root", str(vowel_project), "--all", "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    for name, line in (("greet", 1), ("add", 4)):
        assert (
            f"specs/builtins.yml:{line}: error: function '{name}' not found: a bare name must be "
            f"a builtin (len, sorted); name it by its module path (pkg.module.{name})"
        ) in out, out
    assert "unknown top-level key" not in out
