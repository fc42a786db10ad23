"""The YAML most spec files are written in, read without libyaml's events (#36).

Composing a spec's nodes from the C parser's events (compose.py) and building each case from
its nodes cost about 0.07 ms a case: most of checking a 2,000-case file without the spec
cache (a fresh CI checkout). Yet most spec files use a small part of YAML: block mappings
and sequences, one key or item a line, and each case a flow mapping on one line (codemode
writes them so; a JSON object is a flow mapping too). ``read_tree`` reads that part
directly: the block structure from the lines' indentation, a one-line flow collection with
``json`` (in C) when it is JSON, else with a small tokenizer; every plain scalar is resolved
and built by PyYAML's own resolver and constructors, so a value is the one the loader builds.

It gives the nodes the loader walks (``ScalarNode``, ``SequenceNode``, ``MappingNode``), a
flow collection as one node that holds its value already built (tag ``BUILT``), and returns
None whenever the text uses anything else: anchors, aliases and tags, block scalars,
multi-line scalars and flows, tabs, CR line ends, directives and document markers, duplicate
keys, keys that are not plain words, a flow collection where the loader reads the entries
one by one. The full loader then reads the file, and the loader also falls back when what
it built from these nodes has any problem, so every error message is the full loader's.
tests/specs/test_common_yaml.py compares the two on generated files.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from codemode.specs.bounds import MAX_INT_DIGITS, MAX_NODES
from codemode.specs.yaml_nodes import BUILT

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_INT = "tag:yaml.org,2002:int"
_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Anything but a newline and the characters YAML reads as text: tabs, CR and the other line
# breaks (NEL, LS, PS), a BOM inside the text, controls. Their rules are the full loader's.
_ODD = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
# A block key: a plain word (no space, quote, flow or comment character), then ": " or ": EOL.
_KEY = re.compile(r"([^\s\-?:,\[\]{}#&*!|>'\"%@`][^\s:,\[\]{}#'\"]*):(?: +|$)")
_DQ = re.compile(r'"(?:[^"\\]|\\.)*"')
_SQ = re.compile(r"'(?:[^']|'')*'")
# A plain scalar inside a flow collection, up to the next flow indicator; ":" "#" "?" in one
# (whose meaning libyaml's versions disagree on) leave the subset.
_FLOW_PLAIN = re.compile(r"(?:[^\s,\[\]{}#:?&*!|>'\"%@`\-]|-(?=[^\s,\[\]{}]))[^,\[\]{}#:?]*")
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
# PyYAML's escapes, less "\/" (not in every libyaml) and the tab (tabs leave the subset).
_REPLACE = {k: v for k, v in yaml.scanner.Scanner.ESCAPE_REPLACEMENTS.items() if k not in "/\t"}
# Escapes JSON reads otherwise than YAML: "\/", and surrogates (JSON pairs them, YAML not).
_JSON_ODD = re.compile(r"\\(?:/|u[dD][89a-fA-F])")
_FLOW_DEPTH = 40  # well under bounds.MAX_DEPTH with the block levels above it
_INDICATORS = "-?:,[]{}#&*!|>'\"%@`"


class Decline(Exception):
    """The text leaves the common subset: the full loader reads it."""


class _Mark:
    """What the loader reads of a node's mark: its line (0-based, as PyYAML's)."""

    __slots__ = ("line",)

    def __init__(self, line: int) -> None:
        self.line = line


def _built(value: Any, line: int) -> yaml.Node:
    """A flow collection's node: ``data`` is its value, built; no entries to walk."""
    mark = _Mark(line)
    cls = yaml.MappingNode if type(value) is dict else yaml.SequenceNode
    node = cls(BUILT, [], mark, mark, flow_style=True)
    node.data = value  # type: ignore[attr-defined]
    return node


def read_tree(text: str) -> yaml.MappingNode | None:
    """The document's top mapping as the loader's nodes, or None: not in the subset."""
    if len(text) >= MAX_NODES or _ODD.search(text):  # under MAX_NODES: no alias, no budget
        return None
    loader = _Loader("")
    try:
        return _Reader(text, loader).document()
    except Decline:
        return None
    except (ValueError, TypeError, KeyError, IndexError, RecursionError, yaml.YAMLError):
        return None  # what this reader did not foresee is the full loader's to read
    finally:
        loader.dispose()


def _is_entry(content: str) -> bool:
    return content == "-" or content.startswith("- ")


class _Reader:
    def __init__(self, text: str, loader: Any) -> None:
        self.loader = loader
        self.values: dict[str, Any] = {}  # a plain scalar's text -> its value
        self.tags: dict[str, str] = {}  # ... and its tag (a spec repeats its keys)
        self.lines: list[tuple[int, int, str]] = []  # (line, indent, content) of content lines
        for n, raw in enumerate(text.split("\n")):
            content = raw.lstrip(" ")
            if content and content[0] != "#":
                self.lines.append((n, len(raw) - len(content), content.rstrip(" ")))
        self.i = 0
        self.json = json.JSONDecoder(
            object_pairs_hook=_unique,
            parse_float=self.scalar,
            parse_int=self.scalar,
            parse_constant=self.scalar,
        )

    def document(self) -> yaml.MappingNode:
        if not self.lines or self.lines[0][1] != 0:
            raise Decline
        for _, indent, content in self.lines:
            if indent == 0 and content.startswith(("---", "...", "%")):
                raise Decline
        root = self.mapping(0, 0)
        if self.i != len(self.lines):
            raise Decline
        return root

    # --- block structure ----------------------------------------------------------------

    def block(self, indent: int, depth: int) -> yaml.Node:
        if _is_entry(self.lines[self.i][2]):
            return self.sequence(indent, depth)
        return self.mapping(indent, depth)

    def mapping(self, indent: int, depth: int) -> yaml.MappingNode:
        pairs: list[tuple[yaml.Node, yaml.Node]] = []
        node = yaml.MappingNode(_MAP, pairs, _Mark(self.lines[self.i][0]), None, flow_style=False)
        seen: set[str] = set()
        while self.i < len(self.lines):
            n, at, content = self.lines[self.i]
            if at < indent:
                break
            m = _KEY.match(content)
            if at > indent or m is None:
                raise Decline
            key = m.group(1)
            if key in seen or self.tag(key) != _STR:
                raise Decline
            seen.add(key)
            rest = content[m.end() :]
            self.i += 1
            if rest and rest[0] != "#":
                value = self.inline(rest, n, depth + 1, key)
                self.ends_at(indent)
            else:
                value = self.nested(indent, n, depth + 1, mapping=True)
            pairs.append((yaml.ScalarNode(_STR, key, _Mark(n), None), value))
        return node

    def sequence(self, indent: int, depth: int) -> yaml.SequenceNode:
        items: list[yaml.Node] = []
        node = yaml.SequenceNode(_SEQ, items, _Mark(self.lines[self.i][0]), None, flow_style=False)
        while self.i < len(self.lines):
            n, at, content = self.lines[self.i]
            if at != indent or not _is_entry(content):
                break
            rest = content[1:].lstrip(" ")
            if not rest or rest[0] == "#":
                self.i += 1
                items.append(self.nested(indent, n, depth + 1, mapping=False))
            elif _is_entry(rest):
                raise Decline
            elif _KEY.match(rest):  # a mapping in the entry: its keys at the column of the first
                self.lines[self.i] = (n, at + len(content) - len(rest), rest)
                items.append(self.mapping(self.lines[self.i][1], depth + 1))
            else:
                self.i += 1
                items.append(self.inline(rest, n, depth + 1, None))
                self.ends_at(indent)
        return node

    def nested(self, indent: int, line: int, depth: int, mapping: bool) -> yaml.Node:
        """The value of a key (or entry) with nothing after it on its line."""
        if self.i < len(self.lines):
            _, at, content = self.lines[self.i]
            if at > indent:
                return self.block(at, depth)
            if mapping and at == indent and _is_entry(content):  # a sequence at the key's column
                return self.sequence(indent, depth)
        return yaml.ScalarNode(self.tag(""), "", _Mark(line), None)

    def ends_at(self, indent: int) -> None:
        """A value on the key's line is all of it: a deeper line next would continue it."""
        if self.i < len(self.lines) and self.lines[self.i][1] > indent:
            raise Decline

    # --- values on one line -------------------------------------------------------------

    def inline(self, rest: str, line: int, depth: int, key: str | None) -> yaml.Node:
        c = rest[0]
        if c in "[{":
            # Where the loader reads a collection entry by entry (the top level, a function
            # block, its `evals` and `dataset`, a dataset item), a built one would hide them.
            if (
                depth <= 1
                or (depth == 2 and key in ("evals", "dataset"))
                or (depth == 3 and key is None)
            ):
                raise Decline
            value, end = self.flow(rest)
            _tail(rest, end)
            return _built(value, line)
        if c == '"' or c == "'":
            text, end = _quoted(rest, 0)
            _tail(rest, end)
            return yaml.ScalarNode(_STR, text, _Mark(line), None, style=c)
        if c in _INDICATORS and not (c == "-" and rest[1:2] not in ("", " ")):
            raise Decline
        cut = rest.find(" #")
        text = rest if cut < 0 else rest[:cut].rstrip(" ")
        if ": " in text or text.endswith(":") or any(ch in text for ch in "[]{}#"):
            raise Decline
        return yaml.ScalarNode(self.tag(text), text, _Mark(line), None)

    def flow(self, s: str) -> tuple[Any, int]:
        if s.count("[") + s.count("{") > _FLOW_DEPTH:
            raise Decline
        if "\\" not in s or not _JSON_ODD.search(s):
            try:
                value, end = self.json.raw_decode(s)
                return value, end
            except ValueError:
                pass  # not JSON: flow YAML with plain scalars, read below
        return self.yaml_flow(s, 0)

    def yaml_flow(self, s: str, pos: int) -> tuple[Any, int]:
        closing = "}" if s[pos] == "{" else "]"
        out: Any = {} if closing == "}" else []
        pos = _skip(s, pos + 1)
        if s[pos : pos + 1] == closing:
            return out, pos + 1
        while True:
            if closing == "}":
                key, pos, quoted = self.flow_scalar(s, pos)
                if type(key) is not str or key in out or s[pos : pos + 1] != ":":
                    raise Decline
                if not quoted and s[pos + 1 : pos + 2] != " ":
                    raise Decline
                out[key], pos = self.flow_value(s, _skip(s, pos + 1))
            else:
                value, pos = self.flow_value(s, pos)
                out.append(value)
            c = s[pos : pos + 1]
            if c == closing:
                return out, pos + 1
            if c != ",":
                raise Decline
            pos = _skip(s, pos + 1)
            if s[pos : pos + 1] in ("", "]", "}", ","):  # a trailing or empty entry
                raise Decline

    def flow_value(self, s: str, pos: int) -> tuple[Any, int]:
        if s[pos : pos + 1] in ("[", "{"):
            value, pos = self.yaml_flow(s, pos)
            return value, _skip(s, pos)
        value, pos, _ = self.flow_scalar(s, pos)
        if s[pos : pos + 1] == ":":  # a single pair in a sequence, or a key with no value
            raise Decline
        return value, pos

    def flow_scalar(self, s: str, pos: int) -> tuple[Any, int, bool]:
        """A scalar in a flow collection: its value, the next position after spaces, quoted."""
        if s[pos : pos + 1] in ('"', "'"):
            text, end = _quoted(s, pos)
            return text, _skip(s, end), True
        m = _FLOW_PLAIN.match(s, pos)
        if m is None:
            raise Decline
        return self.scalar(m.group().rstrip(" ")), _skip(s, m.end()), False

    def tag(self, text: str) -> str:
        try:
            return self.tags[text]
        except KeyError:
            tag = self.tags[text] = str(self.loader.resolve(yaml.ScalarNode, text, (True, False)))
            return tag

    def scalar(self, text: str) -> Any:
        """A plain scalar's value, as PyYAML's resolver and constructor build it."""
        try:
            return self.values[text]
        except KeyError:
            pass
        tag = self.tag(text)
        if tag == _INT and len(text) > MAX_INT_DIGITS:
            raise Decline
        build = self.loader.yaml_constructors.get(tag)
        if build is None:  # a merge key, a value key: the full loader's
            raise Decline
        value = self.values[text] = build(self.loader, yaml.ScalarNode(tag, text))
        return value


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # a duplicate key: the full loader says where
        raise Decline
    return out


def _skip(s: str, pos: int) -> int:
    while s[pos : pos + 1] == " ":
        pos += 1
    return pos


def _tail(rest: str, end: int) -> None:
    """After a value on its line: nothing, or spaces and a comment."""
    tail = rest[end:]
    if tail and (tail[0] != " " or tail.lstrip(" ")[:1] not in ("", "#")):
        raise Decline


def _quoted(s: str, pos: int) -> tuple[str, int]:
    """A quoted scalar on one line: its text and the position after it."""
    if s[pos] == "'":
        m = _SQ.match(s, pos)
        if m is None:
            raise Decline
        return m.group()[1:-1].replace("''", "'"), m.end()
    m = _DQ.match(s, pos)
    if m is None:
        raise Decline
    body = m.group()[1:-1]
    return (_ESCAPE.sub(_unescape, body) if "\\" in body else body), m.end()


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if len(code) == 1:
        if code not in _REPLACE:
            raise Decline
        return _REPLACE[code]
    point = int(code[1:], 16)
    if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
        raise Decline
    return chr(point)
