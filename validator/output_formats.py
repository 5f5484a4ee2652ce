"""Diagnostics for CI tools: SARIF 2.1.0 (code scanning) and GitHub workflow-command annotations.

Both are built from the same `Diagnostic` records as the text and JSON renderings; the rules a
SARIF log describes take their text from docs/diagnostics.md (`code_docs`).
"""
from __future__ import annotations

import json
from pathlib import Path, PurePath
from typing import Iterable, Mapping
from urllib.parse import quote

from .diagnostics import Diagnostic, printable

SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
                "sarif-schema-2.1.0.json")
SARIF_LEVELS = {"error": "error", "warning": "warning", "note": "note"}
GITHUB_COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def _message(d: Diagnostic) -> str:
    return f"{d.message}\nhelp: {d.hint}" if d.hint else d.message


# ------------------------------------------------------------------------------------ SARIF
def artifact_uri(file: str) -> str:
    """A file as a SARIF URI: relative paths stay relative (to where the check ran, which is
    what code-scanning uploads expect), absolute ones become `file:` URIs."""
    path = PurePath(file)
    if path.is_absolute():
        return Path(path).as_uri()
    return quote(path.as_posix())


def _region(line: int, column, end_line=None, end_column=None) -> dict:
    region = {"startLine": line}
    if column is not None and column >= 1:
        region["startColumn"] = column
    if end_line is not None and end_line >= line:
        region["endLine"] = end_line
        # SARIF's endColumn is exclusive, as ours; an empty span keeps only its start.
        if end_column is not None and column is not None \
                and (end_line > line or end_column > column):
            region["endColumn"] = end_column
    return region


def _location(file: str, line, column, end_line=None, end_column=None) -> dict:
    physical: dict = {"artifactLocation": {"uri": artifact_uri(file)}}
    if line is not None and line >= 1:
        physical["region"] = _region(line, column, end_line, end_column)
    return {"physicalLocation": physical}


def _result(d: Diagnostic, rule_index: int) -> dict:
    result: dict = {"ruleId": d.code, "ruleIndex": rule_index, "level": SARIF_LEVELS[d.severity],
                    "message": {"text": _message(d)}}
    if d.file:
        result["locations"] = [_location(d.file, d.line, d.column, d.end_line, d.end_column)]
    related = [r for r in d.related if r.file or d.file]
    if related:
        result["relatedLocations"] = [
            {"id": i, "message": {"text": r.message},
             **_location(r.file or d.file, r.line, r.column)}
            for i, r in enumerate(related)]
    return result


def _rule(code: str, doc, severity: str) -> dict:
    rule: dict = {"id": code, "defaultConfiguration": {"level": SARIF_LEVELS[severity]}}
    if doc is not None:
        rule["shortDescription"] = {"text": doc.title}
        rule["fullDescription"] = {"text": doc.summary or doc.title}
        rule["help"] = {"text": doc.body or doc.title, "markdown": doc.markdown()}
    return rule


def render_sarif(diagnostics: Iterable[Diagnostic], docs: Mapping[str, object],
                 version: str) -> str:
    """One SARIF 2.1.0 log with one run, and a rule for every code reported, described by
    ``docs`` (code -> `CodeDoc`)."""
    diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
    codes = sorted({d.code for d in diagnostics})
    index = {code: i for i, code in enumerate(codes)}
    severity = {d.code: d.severity for d in diagnostics}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "rulebook", "version": version,
                                "rules": [_rule(c, docs.get(c), severity[c]) for c in codes]}},
            "columnKind": "unicodeCodePoints",
            "results": [_result(d, index[d.code]) for d in diagnostics],
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


# ----------------------------------------------------------------------------------- GitHub
def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: Iterable[Diagnostic]) -> str:
    """One workflow command per diagnostic: `::error file=F,line=L,col=C,title=CODE::message`
    (GitHub shows each as an annotation on the line of the pull request's diff)."""
    lines = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        props = []
        if d.file:
            props.append(f"file={_escape_property(d.file)}")
            if d.line is not None:
                props.append(f"line={d.line}")
                if d.column is not None:
                    props.append(f"col={d.column}")
                if d.end_line is not None and d.end_line >= d.line:
                    props.append(f"endLine={d.end_line}")
        props.append(f"title={_escape_property(d.code)}")
        # printable(): a message may quote text a stranger wrote; the log is read by a terminal
        lines.append(f"::{GITHUB_COMMANDS[d.severity]} {','.join(props)}::"
                     f"{_escape_data(printable(_message(d)))}")
    return "\n".join(lines)
