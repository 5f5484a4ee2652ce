"""Suppression comments are read from any text without failing, and cover lines of the file."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.validator.code_docs import code_docs
from rulebook.validator.diagnostics import Diagnostic
from rulebook.validator.suppress import apply_suppressions, find_suppressions

KNOWN = set(code_docs())
FRAGMENTS = st.sampled_from([
    "play {", "}", "    log \"# not a comment {x}\"", "option a where n > 1 {", "(", ")", "\\",
    "# rulebook: ignore[W0201]", "# rulebook: ignore[W02, E0201]", "# rulebook: ignore",
    "x  # rulebook: ignore[W0205]", "\"unclosed # rulebook: ignore[W0201]", "", "   ",
    "# rulebook:ignore[ W0203 ,W0202 ]", "# rulebook: ignore[W9999]", "\r",
    "a\u2028b # rulebook: ignore[W0201]",  # not a line break for the parser
])


@settings(max_examples=150, deadline=None)
@given(st.lists(FRAGMENTS, max_size=30))
def test_any_text_gives_suppressions_within_its_lines(lines):
    text = "\n".join(lines)
    found, problems = find_suppressions(text, "f.rules", KNOWN)
    count = len(text.split("\n"))
    for s in found:
        assert 1 <= s.first <= s.last <= count
        assert s.line <= s.first or s.first == s.last == s.line
        assert all(c.startswith("W") for c in s.codes)
    assert all(p.code == "W0211" and not p.is_error for p in problems)


@settings(max_examples=100, deadline=None)
@given(st.lists(FRAGMENTS, max_size=30), st.lists(st.integers(1, 40), max_size=10))
def test_errors_are_never_suppressed_and_every_warning_is_kept_or_used(lines, where):
    text = "\n".join(lines)
    diagnostics = [Diagnostic("E0201", "e", file="f.rules", line=n) for n in where] + [
        Diagnostic("W0201", "w", severity="warning", file="f.rules", line=n) for n in where]
    out = apply_suppressions(diagnostics, {"f.rules": text}, {"f.rules"}, KNOWN)
    assert [d for d in out if d.is_error] == [d for d in diagnostics if d.is_error]
    kept = [d for d in out if d.code == "W0201"]
    found, _ = find_suppressions(text, "f.rules", KNOWN)
    for d in diagnostics[len(where):]:
        covered = any(s.first <= d.line <= s.last and "W0201".startswith(tuple(s.codes))
                      for s in found)
        assert (d in kept) is not covered
