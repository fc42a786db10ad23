"""Announced changes of the earlier held-out sets (benchmarks/upgrade_detection.py EARLIER),
written as in _announced_tuning.py: each a call whose outcomes on both releases were run and
seen to be the ones written here (the benchmark runs them again and excludes a wrong one).

Sources, in this order: the changelog in the new release's sdist; where the sdist has none
(mistune, xmltodict, termcolor, pathvalidate, pytimeparse, titlecase), the new release's own
tests, or the project's release notes where said so; the calls are ordinary ones a user makes
(the changelog's or the tests' own examples where they give one), never picked by what codemode
finds. Written on 2026-11-27 from 11:55 UTC (the truth5 helper, issue #32).

Pairs with no entry, and why (they are reported as "no announced change written for this
pair yet", never scored):
- iso8601 0.1.16 -> 1.0.0, 1.0.2 -> 1.1.0, 1.1.0 -> 2.0.0: the changelog announces no
  changed outcome of a function both releases have (1.0.0: internals simplified, type
  annotations; 1.1.0: a new function, is_iso8601; 2.0.0: its module is the same as 1.1.0's).
- webcolors 1.11.1 -> 1.12: "No bug fixes or new features" (its changelog).
- webcolors 1.12 -> 1.13, 1.13 -> 24.6.0: the functions moved to other modules (no function
  at the same path in both releases).
- more-itertools 9.0.0 -> 9.1.0's other entries (iter_index, transpose, matmul, factor,
  gray_product are new functions; sieve's new code gives the same primes)."""

from __future__ import annotations

from _changelog import Announced

A = Announced

EARLIER_ANNOUNCED: dict[tuple[str, str, str], tuple[Announced, ...]] = {
    ("jsonpointer", "3.1.1", "3.2.0"): (
        A(
            "jsonpointer.resolve_pointer",
            "resolve_pointer({'foo': 'abc'}, '/foo/0')",
            "value:'a'",
            "raised:JsonPointerException",
            "3.2.0: its new tests (assertRaises(JsonPointerException, resolve_pointer, ...))",
        ),
        A(
            "jsonpointer.set_pointer",
            "set_pointer({'a': [1]}, '/a/5', 2)",
            "raised:IndexError",
            "raised:JsonPointerException",
            "3.2.0: its new tests (an invalid assignment target raises JsonPointerException)",
        ),
    ),
    ("bracex", "3.2", "3.2.1"): (
        A(
            "bracex.expand",
            "expand('{+1..3}')",
            "value:['{+1..3}']",
            "value:['1', '2', '3']",
            "3.2.1: a sequence with a leading + expands (the old notes' by-hand check)",
        ),
        A(
            "bracex.iexpand",
            "list(iexpand('{+1..3}'))",
            "value:['{+1..3}']",
            "value:['1', '2', '3']",
            "3.2.1: a sequence with a leading + expands (the old notes' by-hand check)",
        ),
    ),
    ("html2text", "2020.1.16", "2024.2.25"): (
        A(
            "html2text.html2text",
            "html2text('<b>a</b><b>b</b>')",
            "value:'**a** **b**\\n\\n'",
            "value:'**a****b**\\n\\n'",
            "2024.2.25: Fix #332: Insert at most one space for multiple emphasis",
        ),
        A(
            "html2text.html2text",
            "html2text('<ol><li>a<ul><li>b</li></ul></li></ol>')",
            "value:'  1. a\\n    * b\\n\\n'",
            "value:'  1. a\\n     * b\\n\\n'",
            "2024.2.25: Fix #344: indent <ul> inside <ol> three spaces instead of two",
        ),
        A(
            "html2text.html2text",
            "html2text('a<b> b </b>c')",
            "value:'a **b** c\\n\\n'",
            "value:'a**b** c\\n\\n'",
            "2024.2.25: Fix #324: unnecessary spaces around <b>, <em>, and strike tags",
        ),
        A(
            "html2text.html2text",
            "html2text('<table><tr><td><p>a</p></td><td>b</td></tr></table>')",
            "value:'a\\n\\n| b  \\n---|---\\n\\n'",
            "value:'a| b  \\n---|---\\n\\n'",
            "2024.2.25: Feature #198: Ignore <p> tags inside table rows",
        ),
        A(
            "html2text.HTML2Text.handle",
            "HTML2Text().handle('<b>a</b><b>b</b>')",
            "value:'**a** **b**\\n\\n'",
            "value:'**a****b**\\n\\n'",
            "2024.2.25: Fix #332: Insert at most one space for multiple emphasis",
        ),
        A(
            "html2text.HTML2Text.handle",
            "HTML2Text().handle('<ol><li>a<ul><li>b</li></ul></li></ol>')",
            "value:'  1. a\\n    * b\\n\\n'",
            "value:'  1. a\\n     * b\\n\\n'",
            "2024.2.25: Fix #344: indent <ul> inside <ol> three spaces instead of two",
        ),
    ),
    ("mistune", "2.0.3", "2.0.4"): (
        A(
            "mistune.markdown",
            "mistune.markdown('*a* b *c*')",
            "value:'<p><em>a* b *c</em></p>\\n'",
            "value:'<p><em>a</em> b <em>c</em></p>\\n'",
            "2.0.4: Fix * formatting (the project's release notes, docs/changes.rst; not in the "
            "sdist)",
        ),
        A(
            "mistune.markdown",
            "mistune.markdown('<a href=\"http://a.b\">http://a.b</a>', plugins=['url'])",
            "value:'<p>&lt;a href=&quot;http://a.b&quot;&gt;<a "
            'href="http://a.b">http://a.b</a>&lt;/a&gt;</p>\\n\'',
            "value:'<p>&lt;a href=&quot;http://a.b&quot;&gt;http://a.b&lt;/a&gt;</p>\\n'",
            "2.0.4: Fix url plugin in <a> tag (the project's release notes; not in the sdist)",
        ),
        A(
            "mistune.markdown.Markdown.parse",
            "mistune.create_markdown().parse('*a* b *c*')",
            "value:'<p><em>a* b *c</em></p>\\n'",
            "value:'<p><em>a</em> b <em>c</em></p>\\n'",
            "2.0.4: Fix * formatting (the project's release notes; not in the sdist)",
        ),
    ),
    ("xmltodict", "0.12.0", "0.13.0"): (
        A(
            "xmltodict.unparse",
            "unparse({'a': {'b': [['1', '2'], ['3']]}}, expand_iter='item')",
            "raised:TypeError",
            'value:\'<?xml version="1.0" '
            'encoding="utf-8"?>\\n<a><b><item>1</item><item>2</item></b>'
            "<b><item>3</item></b></a>'",
            "0.13.0: its new test test_list_expand_iter (unparse(obj, expand_iter='item'))",
        ),
        A(
            "xmltodict.parse",
            "parse((c for c in '<a><b>1</b></a>'))",
            "raised:TypeError",
            "value:{'a': {'b': '1'}}",
            "0.13.0: its new test test_streaming_generator (a generator as input)",
        ),
        A(
            "xmltodict.parse",
            "parse('<a><!-- note --><b>1</b></a>', process_comments=True)",
            "raised:TypeError",
            "value:{'a': {'#comment': 'note', 'b': '1'}}",
            "0.13.0: its new test test_comments (parse(xml, process_comments=True))",
        ),
    ),
    ("packaging", "23.2", "24.0"): (
        A(
            "packaging.specifiers.Specifier.contains",
            "Specifier('==2!1.0.0.0.*').contains('2!1.0.0')",
            "value:False",
            "value:True",
            "24.0: Do specifier matching correctly when the specifier contains an epoch number "
            "and has more components than the version (#683; its new test row)",
        ),
        A(
            "packaging.specifiers.Specifier.filter",
            "list(Specifier('==2!1.0.0.0.*').filter(['2!1.0.0']))",
            "value:[]",
            "value:['2!1.0.0']",
            "24.0: Do specifier matching correctly when the specifier contains an epoch number "
            "(#683)",
        ),
        A(
            "packaging.specifiers.SpecifierSet.contains",
            "SpecifierSet('==2!1.0.0.0.*').contains('2!1.0.0')",
            "value:False",
            "value:True",
            "24.0: Do specifier matching correctly when the specifier contains an epoch number "
            "(#683)",
        ),
        A(
            "packaging.specifiers.SpecifierSet.filter",
            "list(SpecifierSet('==2!1.0.0.0.*').filter(['2!1.0.0']))",
            "value:[]",
            "value:['2!1.0.0']",
            "24.0: Do specifier matching correctly when the specifier contains an epoch number "
            "(#683)",
        ),
    ),
    ("natsort", "8.2.0", "8.3.0"): (
        A(
            "natsort.natsort.natsorted",
            "natsorted([float('inf'), float('-inf'), '25', 5, float('nan'), 1e40, None])",
            "value:[-inf, nan, None, 5, '25', 1e+40, inf]",
            "value:[nan, None, -inf, 5, '25', 1e+40, inf]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149; its new "
            "test's input)",
        ),
        A(
            "natsort.natsort.natsorted",
            "natsorted([float('-inf'), None])",
            "value:[-inf, None]",
            "value:[None, -inf]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149)",
        ),
        A(
            "natsort.natsort.index_natsorted",
            "index_natsorted([float('-inf'), float('nan')])",
            "value:[0, 1]",
            "value:[1, 0]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149)",
        ),
        A(
            "natsort.natsort.realsorted",
            "realsorted([float('-inf'), float('nan')])",
            "value:[-inf, nan]",
            "value:[nan, -inf]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149)",
        ),
        A(
            "natsort.natsort.humansorted",
            "humansorted([float('-inf'), float('nan')])",
            "value:[-inf, nan]",
            "value:[nan, -inf]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149)",
        ),
        A(
            "natsort.natsort.index_realsorted",
            "index_realsorted([float('-inf'), float('nan')])",
            "value:[0, 1]",
            "value:[1, 0]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149)",
        ),
        A(
            "natsort.natsort.index_humansorted",
            "index_humansorted([float('-inf'), float('nan')])",
            "value:[0, 1]",
            "value:[1, 0]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149)",
        ),
        A(
            "natsort.natsort.natsort_keygen",
            "sorted([float('-inf'), float('nan')], key=natsort_keygen())",
            "value:[-inf, nan]",
            "value:[nan, -inf]",
            "8.3.0: Logic to ensure None and NaN are sorted in a consistent order (#149)",
        ),
        A(
            "natsort.natsort.os_sorted",
            "os_sorted(['a1', 'a01'], presort=True)",
            "raised:TypeError",
            "value:['a01', 'a1']",
            "8.3.0: The PRESORT option (its new test test_os_sorted_can_presort)",
        ),
    ),
    ("parse", "1.19.1", "1.20.0"): (
        A(
            "parse.parse",
            "parse('{:%Y/%m/%d}', '2023/11/25')",
            "raised:ValueError",
            "value:<Result (datetime.date(2023, 11, 25),) {}>",
            "1.20.0: Added support for strptime codes (its README's example)",
        ),
        A(
            "parse.search",
            "search('on {:%Y-%m-%d}', 'due on 2023-11-25!')",
            "raised:ValueError",
            "value:<Result (datetime.date(2023, 11, 25),) {}>",
            "1.20.0: Added support for strptime codes",
        ),
        A(
            "parse.findall",
            "[r[0] for r in findall('{:%Y-%m-%d}', '1997-07-16 and 2023-11-21')]",
            "raised:ValueError",
            "value:[datetime.date(1997, 7, 16), datetime.date(2023, 11, 21)]",
            "1.20.0: Added support for strptime codes",
        ),
        A(
            "parse.compile",
            "compile('{:%Y-%m-%d}').parse('1997-07-16')",
            "raised:ValueError",
            "value:<Result (datetime.date(1997, 7, 16),) {}>",
            "1.20.0: Added support for strptime codes",
        ),
    ),
    ("humanfriendly", "8.2", "9.0"): (
        A(
            "humanfriendly.format_number",
            "format_number(-285.67)",
            "value:'-,285.67'",
            "value:'-285.67'",
            "9.0: format_number() properly supports negative numbers (#40; its new test)",
        ),
        A(
            "humanfriendly.text.pluralize",
            "pluralize(1.5, 'second')",
            "value:'1.5 second'",
            "value:'1.5 seconds'",
            "9.0: pluralize() generates '1.5 seconds' instead of '1.5 second' (#43)",
        ),
        A(
            "humanfriendly.format_timespan",
            "format_timespan(1.5)",
            "value:'1.5 second'",
            "value:'1.5 seconds'",
            "9.0: pluralize() generates '1.5 seconds' instead of '1.5 second' (#43), as "
            "format_timespan says it",
        ),
        A(
            "humanfriendly.format_length",
            "format_length(1.5)",
            "value:'1.5 metre'",
            "value:'1.5 metres'",
            "9.0: pluralize() generates '1.5 seconds' instead of '1.5 second' (#43), as "
            "format_length says it",
        ),
        A(
            "humanfriendly.text.concatenate",
            "concatenate(['a', 'b', 'c'], conjunction='or')",
            "raised:TypeError",
            "value:'a, b or c'",
            "9.0: concatenate() supports conjunction and serial_comma keyword arguments (#30)",
        ),
    ),
    ("termcolor", "2.0.1", "2.1.0"): (
        A(
            "termcolor.termcolor.colored",
            "colored('text', 'red')",
            "value:'\\x1b[31mtext\\x1b[0m'",
            "value:'text'",
            "2.1.0: colours only where stdout is a TTY or FORCE_COLOR is set (its new tests "
            "test_tty and test_environment_variables; the runner's stdout is a pipe)",
        ),
    ),
    ("pathvalidate", "2.5.2", "3.0.0"): (
        A(
            "pathvalidate._filename.sanitize_filename",
            "sanitize_filename(' space ', platform='windows')",
            "value:' space'",
            "value:'space'",
            "3.0.0: its new test row ['windows', ' space ', 'space'] (no changelog in the sdist)",
        ),
        A(
            "pathvalidate._filename.validate_filename",
            "validate_filename('\\u3042' * 86)",
            "value:None",
            "raised:ValidationError",
            "3.0.0: its new test row (a filename's length counted in bytes of its encoding: 86 x "
            "3 > 255)",
        ),
        A(
            "pathvalidate._filename.is_valid_filename",
            "is_valid_filename('\\u3042' * 86)",
            "value:True",
            "value:False",
            "3.0.0: a filename's length counted in bytes of its encoding (its new test rows)",
        ),
        A(
            "pathvalidate._filepath.sanitize_filepath",
            "sanitize_filepath('/a/b')",
            "raised:ValidationError",
            "value:'/a/b'",
            "3.0.0: an absolute path is sanitized, not refused (the notes' by-hand check before "
            "any run)",
        ),
    ),
    ("w3lib", "2.0.1", "2.1.0"): (
        A(
            "w3lib.url.safe_url_string",
            'safe_url_string("http://example.com/a|b?q=it\'s#[x]")',
            'value:"http://example.com/a|b?q=it\'s#[x]"',
            "value:'http://example.com/a%7Cb?q=it%27s#%5Bx%5D'",
            "2.1.0: safe_url_string now generates safer URLs: ' in the query of a special scheme "
            "and |[] in paths, queries and fragments are percent-encoded",
        ),
        A(
            "w3lib.url.safe_url_string",
            "safe_url_string('http://us;er:pa:ss@example.com/')",
            "value:'http://us;er:pa:ss@example.com/'",
            "value:'http://us%3Ber:pa%3Ass@example.com/'",
            "2.1.0: ;= are percent-encoded in the URL username, ;:= in the password",
        ),
        A(
            "w3lib.url.safe_download_url",
            "safe_download_url('http://example.com/a|b')",
            "value:'http://example.com/a|b'",
            "value:'http://example.com/a%7Cb'",
            "2.1.0: safe_url_string now generates safer URLs (safe_download_url is built on it)",
        ),
        A(
            "w3lib.url.canonicalize_url",
            "canonicalize_url(' http://www.example.com/ ')",
            "value:'http://www.example.com/%20'",
            "value:'http://www.example.com/'",
            "2.1.0: canonicalize_url now strips spaces from the input URL (#132, #136)",
        ),
        A(
            "w3lib.html.get_base_url",
            "get_base_url('<!-- <base href=\"http://example.com/\"/> -->')",
            "value:'http://example.com/'",
            "value:''",
            "2.1.0: get_base_url now ignores HTML comments (#70, #77; its new test)",
        ),
        A(
            "w3lib.http.basic_auth_header",
            "basic_auth_header('someuser', '@<yu9>&o?Q')",
            "value:b'Basic c29tZXVzZXI6QDx5dTk-Jm8_UQ=='",
            "value:b'Basic c29tZXVzZXI6QDx5dTk+Jm8/UQ=='",
            "2.1.0: Fixed basic_auth_header using the wrong flavor of base64 encoding (#181, "
            "#192; its test)",
        ),
        A(
            "w3lib.html.replace_entities",
            "replace_entities('&#82179209091;')",
            "raised:OverflowError",
            "value:''",
            "2.1.0: Fixed replace_entities raising OverflowError in some cases (#199, #202; its "
            "new test)",
        ),
        A(
            "w3lib.encoding.html_to_unicode",
            "html_to_unicode('Content-Type: text/html; charset=utf-8', b'\\xfe\\xff\\x00h\\x00i')",
            "value:('utf-8', '\ufffd\ufffd\\x00h\\x00i')",
            "value:('utf-16-be', 'hi')",
            "2.1.0: html_to_unicode now checks for the byte order mark before inspecting the "
            "Content-Type header (#189, #191; its test_BOM)",
        ),
    ),
    ("w3lib", "2.2.0", "2.2.1"): (
        A(
            "w3lib.url.canonicalize_url",
            "canonicalize_url('sftp://UsEr:PaSsWoRd@www.EXAMPLE.com/')",
            "value:'sftp://user:password@www.example.com/'",
            "value:'sftp://UsEr:PaSsWoRd@www.example.com/'",
            "2.2.1: canonicalize_url no longer applies lowercase to the userinfo URL component "
            "(#229, #230; its new test)",
        ),
    ),
    ("pytimeparse", "1.1.8", "1.1.9"): (
        A(
            "pytimeparse.timeparse.timeparse",
            "timeparse('|5m')",
            "value:300",
            "value:None",
            "1.1.9: its new test: a stray pipe is not a valid sign and must not be silently "
            "accepted",
        ),
        A(
            "pytimeparse.timeparse.timeparse",
            "timeparse('-1.5m30s')",
            "value:-60",
            "value:-120",
            "1.1.9: its new test test_fractional_units_with_signed_seconds (the sign covers the "
            "whole expression)",
        ),
    ),
    ("emoji", "1.7.0", "2.0.0"): (
        A(
            "emoji.core.emojize",
            "emojize('Python is fun :thumbsup:', use_aliases=True)",
            "value:'Python is fun \U0001f44d'",
            "raised:TypeError",
            "2.0.0: Removed use_alias parameter (use_aliases, deprecated in 1.7.0)",
        ),
        A(
            "emoji.core.demojize",
            "demojize('\\U0001f44d', use_aliases=True)",
            "value:':+1:'",
            "raised:TypeError",
            "2.0.0: Removed use_alias parameter (use_aliases, deprecated in 1.7.0)",
        ),
        A(
            "emoji.core.replace_emoji",
            "replace_emoji('a \\U0001f44d', language='en')",
            "value:'a '",
            "raised:TypeError",
            "2.0.0: Removed unused language=None parameters",
        ),
    ),
    ("emoji", "2.1.0", "2.2.0"): (
        A(
            "emoji.core.emojize",
            "emojize(':shaking_face:')",
            "value:':shaking_face:'",
            "value:'\\U0001fae8'",
            "2.2.0: Add support for Unicode Version 15 (U+1FAE8 SHAKING FACE)",
        ),
        A(
            "emoji.core.demojize",
            "demojize('\\U0001fae8')",
            "value:'\\U0001fae8'",
            "value:':shaking_face:'",
            "2.2.0: Add support for Unicode Version 15",
        ),
        A(
            "emoji.core.is_emoji",
            "is_emoji('\\U0001fae8')",
            "value:False",
            "value:True",
            "2.2.0: Add support for Unicode Version 15",
        ),
        A(
            "emoji.core.emoji_count",
            "emoji_count('a \\U0001fae8')",
            "value:0",
            "value:1",
            "2.2.0: Add support for Unicode Version 15",
        ),
        A(
            "emoji.core.emoji_list",
            "emoji_list('a \\U0001fae8')",
            "value:[]",
            "value:[{'match_start': 2, 'match_end': 3, 'emoji': '\\U0001fae8'}]",
            "2.2.0: Add support for Unicode Version 15",
        ),
        A(
            "emoji.core.distinct_emoji_list",
            "distinct_emoji_list('a \\U0001fae8')",
            "value:[]",
            "value:['\\U0001fae8']",
            "2.2.0: Add support for Unicode Version 15",
        ),
        A(
            "emoji.core.replace_emoji",
            "replace_emoji('a \\U0001fae8')",
            "value:'a \\U0001fae8'",
            "value:'a '",
            "2.2.0: Add support for Unicode Version 15",
        ),
        A(
            "emoji.core.version",
            "version('\\U0001fae8')",
            "raised:ValueError",
            "value:15",
            "2.2.0: Add support for Unicode Version 15",
        ),
    ),
    ("emoji", "2.2.0", "2.3.0"): (
        A(
            "emoji.core.emojize",
            "emojize(':jempol_ke_atas:', language='id')",
            "raised:KeyError",
            "value:'\U0001f44d'",
            "2.3.0: Added Indonesian and Simplified Chinese",
        ),
        A(
            "emoji.core.demojize",
            "demojize('\\U0001f44d', language='zh')",
            "value:'\U0001f44d'",
            "value:':\u62c7\u6307\u5411\u4e0a:'",
            "2.3.0: Added Indonesian and Simplified Chinese",
        ),
    ),
    ("Unidecode", "1.3.6", "1.3.7"): (
        A(
            "unidecode.unidecode_expect_ascii",
            "unidecode.unidecode('\\u30fb')",
            "value:''",
            "value:'*'",
            "1.3.7: Add missing replacements for katakana punctuation",
        ),
        A(
            "unidecode.unidecode_expect_ascii",
            "unidecode.unidecode('\\U0001f19c')",
            "value:'[2nc-Scr]'",
            "value:'[2nd-Scr]'",
            "1.3.7: Fix replacement for U+1F19C SQUARED SECOND SCREEN",
        ),
        A(
            "unidecode.unidecode_expect_nonascii",
            "unidecode_expect_nonascii('\\U0001f1a9')",
            "value:'[Loss-less]'",
            "value:'[Lossless]'",
            "1.3.7: Fix replacement for U+1F1A9 SQUARED LOSSLESS",
        ),
    ),
    ("Unidecode", "1.3.7", "1.3.8"): (
        A(
            "unidecode.unidecode_expect_ascii",
            "unidecode.unidecode('STRA\\u1e9eE')",
            "value:'STRASsE'",
            "value:'STRASSE'",
            "1.3.8: Fix replacement for U+1E9E LATIN CAPITAL LETTER SHARP S",
        ),
        A(
            "unidecode.unidecode_expect_nonascii",
            "unidecode_expect_nonascii('STRA\\u1e9eE')",
            "value:'STRASsE'",
            "value:'STRASSE'",
            "1.3.8: Fix replacement for U+1E9E LATIN CAPITAL LETTER SHARP S",
        ),
    ),
    ("idna", "3.3", "3.4"): (
        A(
            "idna.core.encode",
            "encode(b'\\x0a\\x33\\x81')",
            "raised:UnicodeDecodeError",
            "raised:IDNAError",
            "3.4: Correct another instance where generic exception was raised instead of "
            "IDNAError for malformed input (its new test)",
        ),
        A(
            "idna.core.uts46_remap",
            "uts46_remap('\\U0001e4d0')",
            "raised:InvalidCodepoint",
            "value:'\\U0001e4d0'",
            "3.4: Update to Unicode 15.0.0 (U+1E4D0, Nag Mundari, new in 15.0)",
        ),
        A(
            "idna.core.alabel",
            "alabel('\\U0001e4d0')",
            "raised:InvalidCodepoint",
            "raised:IDNABidiError",
            "3.4: Update to Unicode 15.0.0 (the codepoint passes the table; this Python's bidi "
            "data then refuses it, another exception type)",
        ),
    ),
    ("titlecase", "2.3", "2.4"): (
        A(
            "titlecase.titlecase",
            "titlecase('the cat\\n\\nthe dog', preserve_blank_lines=True)",
            "raised:TypeError",
            "value:'The Cat\\n\\nThe Dog'",
            "2.4: its new tests (titlecase(s, preserve_blank_lines=True); no changelog in the "
            "sdist)",
        ),
    ),
    ("more-itertools", "8.14.0", "9.0.0"): (
        A(
            "more_itertools.recipes.grouper",
            "list(grouper(3, 'abcdef'))",
            "value:[('a', 'b', 'c'), ('d', 'e', 'f')]",
            "raised:TypeError",
            "9.0.0: grouper no longer accepts an integer as its first argument. Previously this "
            "raised a DeprecationWarning.",
        ),
        A(
            "more_itertools.more.windowed",
            "list(windowed([], 3))",
            "value:[(None, None, None)]",
            "value:[]",
            "9.0.0: windowed now yields nothing when its iterable is empty.",
        ),
    ),
    ("more-itertools", "9.0.0", "9.1.0"): (
        A(
            "more_itertools.more.split_after",
            "list(split_after('aXbX', lambda c: c == 'X', maxsplit=2))",
            "value:[['a', 'X'], ['b', 'X'], []]",
            "value:[['a', 'X'], ['b', 'X']]",
            "9.1.0 (headed 8.14.0 in its docs/versions.rst): maxsplit was updated to fix a bug "
            "(split_after's maxsplit: no empty last part)",
        ),
    ),
    ("more-itertools", "9.1.0", "10.0.0"): (
        A(
            "more_itertools.recipes.batched",
            "list(batched('abcde', 2))",
            "value:[['a', 'b'], ['c', 'd'], ['e']]",
            "value:[('a', 'b'), ('c', 'd'), ('e',)]",
            "10.0.0: batched and matmul now yield tuples instead of lists",
        ),
        A(
            "more_itertools.recipes.matmul",
            "list(matmul([(7, 5), (3, 5)], [[2, 5], [7, 9]]))",
            "value:[[49, 80], [41, 60]]",
            "value:[(49, 80), (41, 60)]",
            "10.0.0: batched and matmul now yield tuples instead of lists",
        ),
        A(
            "more_itertools.more.iterate",
            "list(iterate(lambda x: next(iter([])) if x > 2 else x + 1, 0))",
            "raised:RuntimeError",
            "value:[0, 1, 2, 3]",
            "10.0.0: iterate now breaks when its func argument raises StopIteration",
        ),
    ),
    ("sqlparse", "0.4.3", "0.4.4"): (
        A(
            "sqlparse.parse",
            "[type(t).__name__ for t in parse('a in (1, 2)')[0].tokens]",
            "value:['Comparison']",
            "value:['Identifier', 'Token', 'Token', 'Token', 'Parenthesis']",
            "0.4.4: Revert a change from 0.4.0 that changed IN to be a comparison (issue694)",
        ),
        A(
            "sqlparse.format",
            "format('select a in (1, 2) as x, b from t', reindent=True)",
            "value:'select a in (1,\\n             2) as x,\\n       b\\nfrom t'",
            "value:'select a in (1,\\n             2) as x,\\n            b\\nfrom t'",
            "0.4.4: Revert a change from 0.4.0 that changed IN to be a comparison (issue694), as "
            "reindent lays it out",
        ),
    ),
}
