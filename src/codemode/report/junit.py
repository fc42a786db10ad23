"""JUnit XML: one ``<testcase>`` per spec case, one ``<testsuite>`` per function.

CI dashboards (GitLab, Jenkins, test-reporter actions) read this format; drifted and failed
cases are ``<failure>``, errors ``<error>``, empty and skipped cases ``<skipped>``. A function
with a verdict but no case to hang it on (missing, orphaned, an import error) gets one
testcase named after the verdict, so nothing in the report is invisible in the XML.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from codemode.report.model import CaseResult, FunctionResult, Report, Witness

# XML 1.0 forbids most control characters, even escaped; observed outputs can hold them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_FAILURE = {"drifted": "failure", "failed": "failure", "error": "error"}
_SKIPPED = ("empty", "skipped")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def render_junit(report: Report) -> str:
    root = ET.Element("testsuites", name="codemode")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    if report.problems:
        suite = ET.SubElement(root, "testsuite", name="codemode.spec-problems")
        for p in report.problems:
            case = ET.SubElement(suite, "testcase", classname="codemode.spec-problems")
            case.set("name", _clean(f"{p.file}:{p.line}" if p.line else p.file))
            case.set("file", _clean(p.file))
            ET.SubElement(case, "error", message=_clean(p.message))
        _count(suite, totals)
    for f in report.sorted_functions():
        suite = ET.SubElement(root, "testsuite", name=_clean(f.id))
        if f.spec:
            suite.set("file", _clean(f.spec))
        for c in f.cases:
            _case(suite, f, c)
        for w in f.witnesses:
            _witness_case(suite, f, w)
        if not f.cases and not f.witnesses and f.status != "ok":
            _verdict_case(suite, f)
        _count(suite, totals)
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _case(suite: ET.Element, f: FunctionResult, c: CaseResult) -> None:
    case = ET.SubElement(suite, "testcase", classname=_clean(f.id), name=_clean(c.id))
    if f.spec:
        case.set("file", _clean(f.spec))
    if c.line:
        case.set("line", str(c.line))
    if c.duration_ms is not None:
        case.set("time", f"{c.duration_ms / 1000:.3f}")
    kind = _FAILURE.get(c.status)
    if kind:
        message = c.message or f"{c.status}: expected {c.expected!r}, observed {c.observed!r}"
        if c.call:  # which call failed, as in every other rendering (#19)
            message = f"{c.call}: {message}"
        el = ET.SubElement(case, kind, message=_clean(message), type=c.status)
        el.text = _clean(c.diff or message)
    elif c.status in _SKIPPED:
        ET.SubElement(case, "skipped", message=_clean(c.message or c.status))


def _witness_case(suite: ET.Element, f: FunctionResult, w: Witness) -> None:
    """A behaviour-diff witness (#18): named by its call, a failure saying old → new."""
    from codemode.report.witness import witness_text

    case = ET.SubElement(suite, "testcase", classname=_clean(f.id), name=_clean(w.call))
    if f.path:
        case.set("file", _clean(f.path))
    if w.kind == "message":  # only the exception's message: fails only on request (#32)
        text = _clean(f"message_changed: {witness_text(w, 300)}")
        ET.SubElement(case, "skipped", message=text)
        return
    text = _clean(f"behaviour changed: {witness_text(w, 300)}")
    el = ET.SubElement(case, "failure", message=text, type="changed")
    el.text = text


def _verdict_case(suite: ET.Element, f: FunctionResult) -> None:
    case = ET.SubElement(suite, "testcase", classname=_clean(f.id), name=f"<{f.status}>")
    if f.spec:
        case.set("file", _clean(f.spec))
    message = _clean(f.message or f.status)
    if f.status == "error":
        ET.SubElement(case, "error", message=message, type="error")
    elif f.status == "drifted":
        ET.SubElement(case, "failure", message=message, type="drifted")
    else:  # missing, orphaned, stale, unstable: not failures of a case, but worth seeing
        ET.SubElement(case, "skipped", message=f"{f.status}: {message}" if f.message else f.status)


def _count(suite: ET.Element, totals: dict[str, int]) -> None:
    cases = suite.findall("testcase")
    counts = {
        "tests": len(cases),
        "failures": sum(1 for c in cases if c.find("failure") is not None),
        "errors": sum(1 for c in cases if c.find("error") is not None),
        "skipped": sum(1 for c in cases if c.find("skipped") is not None),
    }
    for k, v in counts.items():
        suite.set(k, str(v))
        totals[k] += v
