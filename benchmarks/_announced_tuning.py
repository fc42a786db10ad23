"""The tuning set's truth (benchmarks/upgrade_detection.py TUNING), written as in
_announced_held_out.py. Where the sdist carries no changelog (inflection, pyhumps, humanize,
wcwidth, json5's is in its README, toml), the change is the one TUNING's notes give from the
project's release notes, and the call comes from the new release's tests where they show it."""

from __future__ import annotations

from _changelog import Announced

A = Announced

TUNING_ANNOUNCED: dict[tuple[str, str, str], tuple[Announced, ...]] = {
    ("inflection", "0.3.1", "0.4.0"): (
        A(
            "inflection.pluralize",
            "pluralize('passerby')",
            "value:'passerbies'",
            "value:'passersby'",
            "0.4.0: passerby plurals",
        ),
        A(
            "inflection.singularize",
            "singularize('passersby')",
            "value:'passersby'",
            "value:'passerby'",
            "0.4.0: passerby plurals",
        ),
    ),
    ("pyhumps", "3.7.3", "3.8.0"): (
        A(
            "humps.main.decamelize",
            "decamelize('hello World')",
            "value:'hello_ world'",
            "value:'hello_world'",
            "3.8.0: whitespace in case conversion",
        ),
        A(
            "humps.main.kebabize",
            "kebabize('hello World')",
            "value:'hello-World'",
            "value:'hello-world'",
            "3.8.0: whitespace in case conversion",
        ),
        A(
            "humps.main.camelize",
            "camelize('hello world')",
            "value:'helloWorld'",
            "value:'helloworld'",
            "3.8.0: whitespace in case conversion",
        ),
        A(
            "humps.main.pascalize",
            "pascalize('hello world')",
            "value:'HelloWorld'",
            "value:'Helloworld'",
            "3.8.0: whitespace in case conversion",
        ),
    ),
    ("humanize", "4.9.0", "4.10.0"): (
        A(
            "humanize.time.naturaldelta",
            "naturaldelta(timedelta(seconds=-30))",
            "value:'a day'",
            "value:'30 seconds'",
            "4.10.0: negative deltas",
        ),
        A(
            "humanize.number.metric",
            "metric(999.9, precision=2)",
            "raised:ValueError",
            "value:'1000'",
            "4.10.0: metric precision",
        ),
    ),
    ("humanize", "4.10.0", "4.11.0"): (
        A(
            "humanize.filesize.naturalsize",
            "naturalsize(10**27)",
            "value:'1000.0 YB'",
            "value:'1.0 RB'",
            "4.11.0: naturalsize past 1000 YB (ronna, quetta)",
        ),
    ),
    ("roman", "3.1", "3.2"): (
        A(
            "roman.toRoman",
            "toRoman(0)",
            "raised:OutOfRangeError",
            "value:'N'",
            "3.2: Added support for 0 -> N",
        ),
        A(
            "roman.fromRoman",
            "fromRoman('N')",
            "raised:InvalidRomanNumeralError",
            "value:0",
            "3.2: Added support for 0 -> N",
        ),
    ),
    ("validators", "0.28.0", "0.28.1"): (
        A(
            "validators.domain.domain",
            "domain('__exa__mple__.com', rfc_2782=True)",
            "value:True",
            "value:ValidationError(func=domain, args={'value': '__exa__mple__.com', "
            "'rfc_2782': True})",
            "0.28.1: fix: rfc cases in the domain validator (its new test row)",
        ),
    ),
    ("wcwidth", "0.2.6", "0.2.7"): (
        A(
            "wcwidth.wcwidth.wcwidth",
            "wcwidth('\\u2ffc')",
            "value:1",
            "value:2",
            "0.2.7: Unicode 15.1 tables",
        ),
        A(
            "wcwidth.unicode_versions.list_versions",
            "list_versions()[-1]",
            "value:'15.0.0'",
            "value:'15.1.0'",
            "0.2.7: Unicode 15.1 tables",
        ),
    ),
    ("tabulate", "0.8.10", "0.9.0"): (
        A(
            "tabulate.tabulate",
            "tabulate([], headers='firstrow')",
            "value:'f    i    r    s    t    r    o    w\\n---  ---  ---  ---  ---  ---  ---  ---'",
            "value:''",
            "0.9.0: Various bug fixes (headers='firstrow' on no rows)",
        ),
        A(
            "tabulate.tabulate",
            "tabulate([['a', 1]], tablefmt='asciidoc')",
            "value:'-  -\\na  1\\n-  -'",
            "value:'[cols=\"3<,3>\"]\\n|====\\n| a | 1 \\n|===='",
            "0.9.0: New output formats: asciidoc",
        ),
    ),
    ("json5", "0.9.25", "0.9.26"): (
        A(
            "json5.lib.loads",
            "loads('\"\\x01\"', strict=False)",
            "raised:TypeError",
            "value:'\\x01'",
            "0.9.26: Add support for the strict parameter to load()/loads()",
        ),
        A(
            "json5.lib.load",
            "load(io.StringIO('\"\\x01\"'), strict=False)",
            "raised:TypeError",
            "value:'\\x01'",
            "0.9.26: Add support for the strict parameter to load()/loads()",
        ),
    ),
    ("json5", "0.10.0", "0.11.0"): (
        A(
            "json5.lib.loads",
            "loads('--4')",
            "raised:ValueError",
            "raised:ValueError",
            "0.11.0: Fix a bug where we were attempting to allow '--4' as a valid number",
        ),
    ),
    ("toml", "0.10.0", "0.10.1"): (
        A(
            "toml.decoder.load",
            "load(b'missing.toml')",
            "raised:TypeError",
            "raised:FileNotFoundError",
            "0.10.1: load() reads a bytes path",
        ),
    ),
}
