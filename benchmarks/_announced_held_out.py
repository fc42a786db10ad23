"""The held-out set's truth (benchmarks/upgrade_detection.py HELD_OUT): each change its
changelog announces, written as a call with the outcome on each release (benchmarks/
_changelog.py says how they are confirmed). Written from the changelogs of the sdists (read in
~/.cache/codemode-bench/changelogs) and, where a changelog names a fix without an example, the
new release's tests; each call was then run on both releases. The functions are the ones the
changelog's words name, at the module or class that defines them."""

from __future__ import annotations

from _changelog import Announced

A = Announced

HELD_OUT_ANNOUNCED: dict[tuple[str, str, str], tuple[Announced, ...]] = {
    ("isodate", "0.6.1", "0.7.2"): (
        A(
            "isodate.isodates.parse_date",
            "parse_date('2020-01-01garbage')",
            "value:datetime.date(2020, 1, 1)",
            "raised:ISO8601Error",
            "0.7.2: Don't match garbage characters at the end of parsed strings",
        ),
        A(
            "isodate.isotime.parse_time",
            "parse_time('12:00:00.1234567')",
            "value:datetime.time(12, 0, 0, 123457)",
            "value:datetime.time(12, 0, 0, 123456)",
            "0.7.2: Fractional seconds are cut off to microseconds (always round down)",
        ),
    ),
    ("uritemplate", "3.0.1", "4.0.0"): (
        A(
            "uritemplate.api.expand",
            "expand('{/x}', x=2)",
            "raised:TypeError",
            "value:'/2'",
            "4.0.0: Better support number-like types as values for variables in a template",
        ),
        A(
            "uritemplate.template.URITemplate.expand",
            "URITemplate('{/x}').expand(x=2)",
            "raised:TypeError",
            "value:'/2'",
            "4.0.0: Better support number-like types as values for variables in a template",
        ),
    ),
    ("uritemplate", "4.1.1", "4.2.0"): (
        A(
            "uritemplate.api.expand",
            "expand('{+x}', x='a%20b')",
            "value:'a%2520b'",
            "value:'a%20b'",
            "4.2.0: Fix bug where already url-encoded values were further escaped and encoded",
        ),
        A(
            "uritemplate.template.URITemplate.expand",
            "URITemplate('{#x}').expand(x='%41')",
            "value:'#%2541'",
            "value:'#%41'",
            "4.2.0: Fix bug where already url-encoded values were further escaped and encoded",
        ),
    ),
    ("markdown2", "2.4.8", "2.4.9"): (
        A(
            "markdown2.markdown",
            "markdown('[a](/path)', safe_mode='escape')",
            "value:'<p><a href=\"#\">a</a></p>\\n'",
            "value:'<p><a href=\"/path\">a</a></p>\\n'",
            "2.4.9: [pull #513] Fix relative links not working in safe mode (issue #254)",
        ),
        A(
            "markdown2.markdown",
            "markdown('| a | b |\\n|---|---|\\n| 1 | 2 |\\n', extras={'tables': None, "
            "'html-classes': {'thead': 'hd'}})",
            "value:'<table>\\n<thead>\\n<tr>\\n  <th>a</th>\\n  <th>b</th>\\n</tr>\\n</thead>\\n"
            "<tbody>\\n<tr>\\n  <td>1</td>\\n  <td>2</td>\\n</tr>\\n</tbody>\\n</table>\\n'",
            'value:\'<table>\\n<thead class="hd">\\n<tr>\\n  <th>a</th>\\n  <th>b</th>\\n</tr>\\n'
            "</thead>\\n<tbody>\\n<tr>\\n  <td>1</td>\\n  <td>2</td>\\n</tr>\\n</tbody>\\n</table>\\n'",
            "2.4.9: [pull #500] Add `<thead>` tag to html-classes extra",
        ),
        A(
            "markdown2.Markdown.convert",
            "Markdown(safe_mode='escape').convert('[a](/path)')",
            "value:'<p><a href=\"#\">a</a></p>\\n'",
            "value:'<p><a href=\"/path\">a</a></p>\\n'",
            "2.4.9: [pull #513] Fix relative links not working in safe mode (issue #254)",
        ),
    ),
    ("markdown2", "2.4.9", "2.4.10"): (
        A(
            "markdown2.markdown",
            "markdown('[a](path/x.html)', safe_mode='escape')",
            "value:'<p><a href=\"#\">a</a></p>\\n'",
            "value:'<p><a href=\"path/x.html\">a</a></p>\\n'",
            "2.4.10: [pull #520] Allow more relative links in safe mode (issue #517)",
        ),
        A(
            "markdown2.markdown",
            "markdown('snake_case_word', extras={'middle-word-em': False})",
            "value:'<p>snake<em>case</em>word</p>\\n'",
            "value:'<p>snake_case_word</p>\\n'",
            "2.4.10: [pull #522] Add `middle-word-em` extra",
        ),
        A(
            "markdown2.Markdown.convert",
            "Markdown(safe_mode='escape').convert('[a](path/x.html)')",
            "value:'<p><a href=\"#\">a</a></p>\\n'",
            "value:'<p><a href=\"path/x.html\">a</a></p>\\n'",
            "2.4.10: [pull #520] Allow more relative links in safe mode (issue #517)",
        ),
    ),
    ("simplejson", "3.18.4", "3.19.1"): (
        A(
            "simplejson.dumps",
            "dumps(float('nan'))",
            "value:'NaN'",
            "raised:ValueError",
            "3.19.1: Change default of allow_nan from True to False (SJ-PT-23-107)",
        ),
        A(
            "simplejson.loads",
            "loads('[Infinity]')",
            "value:[inf]",
            "raised:JSONDecodeError",
            "3.19.1: Change default of allow_nan from True to False and add allow_nan to decoder",
        ),
        A(
            "simplejson.encoder.JSONEncoder.encode",
            "JSONEncoder().encode(float('nan'))",
            "value:'NaN'",
            "raised:ValueError",
            "3.19.1: Change default of allow_nan from True to False (SJ-PT-23-107)",
        ),
        A(
            "simplejson.decoder.JSONDecoder.decode",
            "JSONDecoder().decode('NaN')",
            "value:nan",
            "raised:JSONDecodeError",
            "3.19.1: Change default of allow_nan from True to False and add allow_nan to decoder",
        ),
    ),
    ("semantic-version", "2.8.4", "2.8.5"): (
        A(
            "semantic_version.base.match",
            "match('==1.2.*', '1.2.3')",
            "value:False",
            "value:True",
            "2.8.5: #98 Properly handle wildcards in SimpleSpec (e.g. ==1.2.*)",
        ),
        A(
            "semantic_version.base.BaseSpec.match",
            "SimpleSpec('==1.2.*').match(Version('1.2.3'))",
            "value:False",
            "value:True",
            "2.8.5: #98 Properly handle wildcards in SimpleSpec (e.g. ==1.2.*)",
        ),
        A(
            "semantic_version.base.BaseSpec.select",
            "SimpleSpec('==1.2.*').select([Version('1.2.3'), Version('1.3.0')])",
            "value:None",
            "value:Version('1.2.3')",
            "2.8.5: #98 Properly handle wildcards in SimpleSpec (e.g. ==1.2.*)",
        ),
        A(
            "semantic_version.base.BaseSpec.filter",
            "list(SimpleSpec('==1.2.*').filter([Version('1.2.3'), Version('1.3.0')]))",
            "value:[]",
            "value:[Version('1.2.3')]",
            "2.8.5: #98 Properly handle wildcards in SimpleSpec (e.g. ==1.2.*)",
        ),
    ),
    ("python-stdnum", "1.19", "1.20"): (
        A(
            "stdnum.fr.nif.validate",
            "validate('3023217600054')",
            "value:'3023217600054'",
            "raised:InvalidChecksum",
            "1.20: Add check digit validation to French NIF (its doctest: 3023217600054)",
        ),
        A(
            "stdnum.fr.nif.is_valid",
            "is_valid('3023217600054')",
            "value:True",
            "value:False",
            "1.20: Add check digit validation to French NIF",
        ),
        A(
            "stdnum.ua.edrpou.calc_check_digit",
            "calc_check_digit('2324688')",
            "value:'10'",
            "value:'0'",
            "1.20: Fix Ukrainian EDRPOU check digit calculation (23246880 is in its new tests)",
        ),
        A(
            "stdnum.ua.edrpou.validate",
            "validate('23246880')",
            "raised:InvalidChecksum",
            "value:'23246880'",
            "1.20: Fix Ukrainian EDRPOU check digit calculation",
        ),
        A(
            "stdnum.ua.edrpou.is_valid",
            "is_valid('23246880')",
            "value:False",
            "value:True",
            "1.20: Fix Ukrainian EDRPOU check digit calculation",
        ),
        A(
            "stdnum.vatin.compact",
            "compact('EU191849184')",
            "raised:InvalidComponent",
            "value:'EU191849184'",
            '1.20: Fix vatin number compacting for "EU" VAT numbers',
        ),
        A(
            "stdnum.eu.vat.is_valid",
            "is_valid('RO RO 16621241')",
            "value:True",
            "value:False",
            "1.20: Ensure EU VAT numbers don't accept duplicate country codes (its new tests)",
        ),
        A(
            "stdnum.eu.vat.validate",
            "validate('RO RO 16621241')",
            "value:'RORO16621241'",
            "raised:InvalidFormat",
            "1.20: Ensure EU VAT numbers don't accept duplicate country codes",
        ),
    ),
    ("cssselect", "1.1.0", "1.2.0"): (
        A(
            "cssselect.parser.parse",
            "parse('a, :scope > b')",
            "raised:SelectorSyntaxError",
            "value:[Selector[Element[a]], Selector[CombinedSelector[Pseudo[Element[*]:scope] > "
            "Element[b]]]]",
            "1.2.0: Fix parsing :scope after a comma",
        ),
        A(
            "cssselect.parser.parse",
            "parse(':is(a, b)')",
            "raised:SelectorSyntaxError",
            "value:[Selector[Matching[Element[*]:is(Element[a], Element[b])]]]",
            "1.2.0: More features from the CSS Selectors Level 4: the :is() pseudo-class",
        ),
        A(
            "cssselect.xpath.GenericTranslator.css_to_xpath",
            "GenericTranslator().css_to_xpath('a:has(> b)')",
            "raised:SelectorSyntaxError",
            "value:'descendant-or-self::a[./b]'",
            "1.2.0: the :has() pseudo-class, with some limitations",
        ),
        A(
            "cssselect.xpath.GenericTranslator.css_to_xpath",
            "GenericTranslator().css_to_xpath('a:nth-child(2n+1):first-of-type')",
            "value:'descendant-or-self::a[count(preceding-sibling::*) mod 2 = 0 and "
            "(count(preceding-sibling::a) = 0)]'",
            "value:'descendant-or-self::a[(count(preceding-sibling::*) mod 2 = 0) and "
            "(count(preceding-sibling::a) = 0)]'",
            "1.2.0: Add parentheses to fix condition precedence in some cases",
        ),
    ),
    ("boltons", "21.0.0", "23.0.0"): (
        A(
            "boltons.timeutils.daterange",
            "list(zip(range(3), daterange(date(2020, 1, 1), date(2020, 1, 1), inclusive=True)))",
            "value:[(0, datetime.date(2020, 1, 1)), (1, datetime.date(2020, 1, 2)), "
            "(2, datetime.date(2020, 1, 3))]",
            "value:[(0, datetime.date(2020, 1, 1))]",
            "23.0.0: Bugfix for infinite daterange issue when start and stop is the same",
        ),
        A(
            "boltons.mathutils.Bits.as_list",
            "Bits('0011').as_list()",
            "value:[True, True]",
            "value:[False, False, True, True]",
            "23.0.0: Fix Bits.as_list behavior (#315)",
        ),
    ),
    ("pathspec", "0.12.0", "0.12.1"): (
        A(
            "pathspec.pathspec.PathSpec.match_file",
            "PathSpec.from_lines('gitwildmatch', ['*.py']).match_file('a.txt')",
            "value:None",
            "value:False",
            "0.12.1: Issue #84: PathSpec.match_file() returns None since 0.12.0",
        ),
    ),
    ("pydash", "6.0.2", "7.0.0"): (
        A(
            "pydash.objects.to_dict",
            "to_dict([['k', 'v'], ['x', 'y']])",
            "value:{'k': 'v', 'x': 'y'}",
            "value:{0: ['k', 'v'], 1: ['x', 'y']}",
            "7.0.0: Change behavior of to_dict to not using dict() internally (its example)",
        ),
        A(
            "pydash.strings.slugify",
            'slugify("the cat\'s meow")',
            'value:"the-cat\'s-meow"',
            "value:'the-cats-meow'",
            "7.0.0: Change behavior of slugify to remove single-quotes from output (its example)",
        ),
        A(
            "pydash.objects.get",
            "get({'a': [1, 2, 3]}, 'a[-1]')",
            "value:None",
            "value:3",
            "7.0.0: Add support for negative indexes in get path keys",
        ),
    ),
}
