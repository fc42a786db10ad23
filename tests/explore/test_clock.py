"""A call whose output may depend on the day it ran is never a case (#12): `regen` today
would write "2 years", and `check` in a year would call it a drift. The worker notes when
the project's own code reads the clock while exploring; a library doing so (logging
stamping its record) does not count, a call given the time as a parameter is kept, and so
is one whose outcome stays the same with the clock moved years ahead.
"""

from __future__ import annotations

from pathlib import Path

from projectkit import cases, project, regen, spec

AGES = """
    import datetime as dt
    import logging
    import time

    def age(born: dt.date) -> str:
        return f"{(dt.date.today() - born).days // 365} years"

    def age_on(born: dt.date, today: dt.date) -> str:
        return f"{(today - born).days // 365} years"

    def elapsed(start: int) -> int:
        return int(time.time()) - start

    def span(delta: dt.timedelta) -> str:
        stamp = dt.datetime.now()  # read, and never shown
        return f"{delta.days} days" if stamp else ""

    def logged(n: int) -> int:
        logging.getLogger("ages").warning("n is %s", n)
        return n * 2
"""


def test_a_call_that_reads_the_clock_is_no_case_and_says_why(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/ages.py": AGES})
    ids = ("age", "age_on", "elapsed", "logged", "span")
    report = regen(root, *(f"pkg.ages.{name}" for name in ids))
    by_id = {f["id"]: f for f in report["functions"]}  # type: ignore[attr-defined]
    for fid, read in (("pkg.ages.age", "date.today()"), ("pkg.ages.elapsed", "time.time()")):
        assert by_id[fid]["status"] != "ok", by_id[fid]
        assert f"read the clock, {read}" in by_id[fid]["message"], by_id[fid]
    written = spec(root, "pkg.ages")
    assert cases(written, "pkg.ages.age_on")  # the time given as a parameter: cases
    assert cases(written, "pkg.ages.logged")  # logging read the clock, not the project
    assert cases(written, "pkg.ages.span")  # the same outcome with the clock years ahead
    assert "pkg.ages.age" not in written
    # one date object passed as both arguments is written twice, never as a YAML anchor
    text = (root / "specs" / "pkg.ages.yml").read_text(encoding="utf-8")
    assert "&id" not in text and "*id" not in text


def test_the_models_calls_follow_the_same_rule(tmp_path: Path) -> None:
    # The model's snippets call both: the clock-free span becomes cases, age does not.
    import asyncio

    from scripted import Scripted, choose_all

    from codemode.config import load_config
    from codemode.explore.llm.budget import ModelBudget
    from codemode.explore.llm.pipeline import explore_with_model
    from codemode.explore.llm.snippets import SnippetRunner
    from codemode.explore.record import Recorder
    from codemode.explore.target import load_target
    from codemode.worker.make import make_worker

    root = project(tmp_path, {"src/pkg/ages.py": AGES})
    config = load_config(root)
    snippets = {
        "pkg.ages.age": "import datetime\nage(datetime.date(2020, 1, 1))",
        "pkg.ages.span": "import datetime\nspan(datetime.timedelta(days=2))",
    }
    got = {}
    for fid, code in snippets.items():
        worker = make_worker(config)
        try:
            recorder = Recorder(worker, fid)
            script = Scripted([[code]], choose=choose_all())

            async def go(
                fid: str = fid, recorder: Recorder = recorder, script: Scripted = script
            ) -> list[object]:
                with SnippetRunner(feed_seconds=0.5) as runner:
                    info = load_target(config, fid)
                    ex = await explore_with_model(
                        info, recorder, runner, script.model(), ModelBudget("scripted")
                    )
                    return list(ex.cases)

            got[fid] = asyncio.run(go())
        finally:
            worker.close()
    assert got["pkg.ages.span"] and not got["pkg.ages.age"], got
