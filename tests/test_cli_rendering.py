"""How diagnostics are drawn: source excerpt, carets, notes, help, colour, JSON."""
from __future__ import annotations

import json

from rulebook.validator.diagnostics import Diagnostic, Related, render_json, render_text


def diag(**kw) -> Diagnostic:
    base = dict(code="E0100", message="something is wrong", file="f.rules")
    return Diagnostic(**{**base, **kw})


def test_caret_underlines_the_span():
    text = "const a = 1 ~ 2\n"
    out = render_text([diag(line=1, column=13, end_line=1, end_column=14, hint="remove it")],
                      {"f.rules": text})
    assert out == ("f.rules:1:13: error[E0100]: something is wrong\n"
                   "  |\n"
                   "1 | const a = 1 ~ 2\n"
                   "  |             ^\n"
                   "  = help: remove it")


def test_tabs_are_copied_so_the_caret_lines_up():
    out = render_text([diag(line=1, column=3, end_line=1, end_column=6)], {"f.rules": "\t\tabc\n"})
    assert out.splitlines()[3] == "  | \t\t^^^"


def test_span_over_several_lines_is_marked_to_the_end_of_its_first_line():
    out = render_text([diag(line=1, column=5, end_line=3, end_column=2)],
                      {"f.rules": "abc defgh\nx\n}\n"})
    assert out.splitlines()[3] == "  |     ^^^^^"


def test_error_at_the_end_of_a_file_that_ends_with_a_newline():
    out = render_text([diag(line=2, column=1)], {"f.rules": "setup {\n"})
    assert out.splitlines()[2:4] == ["2 | ", "  | ^"]


def test_long_lines_are_cut_around_the_span():
    text = "x" * 150 + "@" + "y" * 150
    out = render_text([diag(line=1, column=151, end_line=1, end_column=152)], {"f.rules": text})
    source, carets = out.splitlines()[2:4]
    assert source.startswith("1 | ...") and source.endswith("...")
    assert len(source) < 120
    assert source[carets.index("^")] == "@"


def test_gutter_is_as_wide_as_the_largest_line_number():
    text = "\n" * 120 + "bad\n"
    out = render_text([diag(line=121, column=1, end_line=1, end_column=4),
                       diag(line=9, column=1, file="g.rules")], {"f.rules": text})
    assert "121 | bad" in out
    assert "    |" in out


def test_without_source_only_the_location_line_and_help():
    out = render_text([diag(line=3, column=2, hint="do this")])
    assert out == "f.rules:3:2: error[E0100]: something is wrong\n  = help: do this"


def test_related_locations_become_notes():
    d = diag(line=2, column=1, related=(Related("first declared here", file="g.rules", line=7,
                                                column=3),))
    assert "  = note: first declared here (g.rules:7:3)" in render_text([d])


def test_diagnostics_are_sorted_by_file_line_and_column():
    out = render_text([diag(file="b.rules", line=1, column=1), diag(line=9, column=1),
                       diag(line=2, column=5), diag(line=2, column=1, severity="warning")])
    firsts = [line.split(": ")[0] for line in out.splitlines() if "something is wrong" in line]
    assert firsts == ["b.rules:1:1", "f.rules:2:1", "f.rules:2:5", "f.rules:9:1"]


def test_colour_only_when_asked():
    plain = render_text([diag(line=1, column=1)], {"f.rules": "x\n"})
    coloured = render_text([diag(line=1, column=1)], {"f.rules": "x\n"}, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31merror[E0100]\x1b[0m" in coloured


def test_warning_severity_is_shown():
    out = render_text([diag(line=1, column=1, code="W0201", severity="warning")])
    assert out.startswith("f.rules:1:1: warning[W0201]: ")


def test_json_has_every_field_sorted_diagnostics_and_a_summary():
    doc = json.loads(render_json([diag(line=5, column=1), diag(line=1, column=2, severity="warning",
                                                              code="W0201")], files_checked=3))
    assert [d["line"] for d in doc["diagnostics"]] == [1, 5]
    assert set(doc["diagnostics"][0]) == {"code", "message", "severity", "file", "line", "column",
                                          "end_line", "end_column", "hint", "related"}
    assert doc["summary"] == {"errors": 1, "warnings": 1, "notes": 0}
    assert doc["files_checked"] == 3
