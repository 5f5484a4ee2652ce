"""`rulebook docs`: each part of a ruleset's reference, read from small example rulesets, and the
escaping of untrusted rule text in both pages."""
from __future__ import annotations

import functools
import re
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.cli import main
from rulebook.ruleset_docs.reference import build_reference
from rulebook.ruleset_docs.render import render_html, render_markdown


@pytest.fixture(scope="module")
def love_letter():
    return build_reference("examples/love_letter")


@pytest.fixture(scope="module")
def no_thanks():
    return build_reference("examples/no_thanks")


@pytest.fixture(scope="module")
def dewdrop():
    return build_reference("examples/dewdrop_garden")


@pytest.fixture(scope="module")
def hostile_game(tmp_path_factory):
    return _hostile_game(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def hostile(hostile_game):
    """The reference of a game whose names and texts try to break out of the page."""
    return build_reference(str(hostile_game))


@pytest.fixture(scope="module")
def hostile_extra(hostile_game):
    """The same game with its variant applied."""
    return build_reference(str(hostile_game), ["extra"])


class _Elements(HTMLParser):
    """The elements, attributes and text of a page, as a browser's parser reads them."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    return parser


# ------------------------------------------------------------------------------- components
def test_a_table_lists_its_rows_and_counts_its_components(love_letter):
    table, = love_letter.components.tables
    assert (table.name, table.record, table.columns) == ("cards", "Card",
                                                         ["id", "name", "value", "count"])
    assert table.rows[0] == ["guard", "Guard", "1", "5"]
    assert [row[0] for row in table.rows][-1] == "princess"
    assert table.components == 16
    assert table.meta.cites == ["Contents"]
    page = render_html(love_letter)
    assert '<h4 id="table-cards">' in page
    assert "<td>princess</td><td>Princess</td>" in page
    assert "| princess | Princess | 8 | 1 |" in render_markdown(love_letter)


def test_records_state_and_constants_are_tables_of_their_own(love_letter):
    record, = love_letter.components.records
    assert (record.name, record.shown_as) == ("Card", "{name} ({value})")
    assert record.fields == [("name", "text"), ("value", "int")]
    state = {v.name: v.cells for v in love_letter.components.state}
    assert state["hand"]["of"] == "player" and state["hand"]["seen by"] == "owner"
    assert state["deck"]["type"] == "deck of Card" and state["deck"]["starts at"] == "cards"
    assert state["tokens"]["kept"] == "shown"
    constants = {v.name: v.cells["value"] for v in love_letter.components.constants}
    assert constants["tokens_to_win"] == "match player_count { 2: 7, 3: 5, else: 4 }"


# ------------------------------------------------------------------------------------ flow
def test_setup_and_play_are_outlined_in_the_order_they_run(dewdrop):
    setup, play = dewdrop.flow
    assert (setup.title, play.title) == ("setup", "play")
    assert [(i.depth, i.word, i.detail) for i in play.items] == [
        (0, "rounds", "round_count"), (1, "phase", ""), (2, "turn of", "p"), (3, "do", ""),
        (3, "do", "")]
    calls = [(i.name, i.link.anchor) for i in play.items[3:]]  # procedures that decide
    assert calls == [("crow_turn(p)", "procedure-crow_turn"),
                     ("gardener_turn(p)", "procedure-gardener_turn")]
    assert play.items[1].name == "planting" and play.items[1].place.anchor == "phase-planting"
    assert "rounds round_count" in play.code  # the whole block, printed from the AST


def test_steps_of_a_block_are_listed_in_order_with_their_code(hostile):
    reference = hostile
    setup, play = reference.flow
    assert [(i.word, i.name) for i in setup.items] == [("step", "deal")]
    assert setup.items[0].code.startswith("step deal cite ")
    assert [i.word for i in play.items] == ["rounds", "phase", "turn of", "decision"]
    assert play.items[3].link.anchor == "decision-1" and play.items[3].place is None
    assert play.items[1].code.startswith('phase keep cite "Play" {')  # it holds no step
    assert play.items[0].detail == "2"


# ------------------------------------------------------------------------------- decisions
def test_every_decision_lists_its_options_labels_as_written(no_thanks):
    decision, = no_thanks.decisions
    assert decision.player == "p"
    assert decision.prompt == "Take {offer[1]} (with {pot} chips), or pay a chip to pass it on"
    assert decision.where.title == "play"
    rows = {o.name: o for o in decision.options}
    assert rows["take"].label == "take {offer[1]} and {pot} chips"
    assert rows["pay"].condition == "p.chips > 0"
    assert rows["pay"].label == "no thanks! (pay a chip)"
    assert "<q>take {offer[1]} and {pot} chips</q>" in render_html(no_thanks)


def test_a_decision_built_in_steps_lists_each_step(dewdrop):
    decision = next(d for d in dewdrop.decisions if d.steps)
    assert decision.where.title == "procedure gardener_turn"
    assert [s.name for s in decision.steps] == ["pick", "turn", "place"]
    pick = decision.steps[0]
    assert pick.until == "p.plan.source != none"
    assert [o.name for o in pick.options] == ["take", "take_by_bee", "sow"]
    assert pick.options[1].meta.cites == ["Paying for tiles: or pay 1 bee"]


def test_decisions_nested_in_an_option_say_where_they_are(love_letter):
    titles = {d.prompt: d.where.title for d in love_letter.decisions}
    assert titles["Play a card"] == "play"
    nested = next(t for p, t in titles.items() if p.startswith("Guard: name a card"))
    assert nested.startswith("procedure play_card › decision ")


# ---------------------------------------------------------------------------------- scoring
def test_scoring_and_winners(no_thanks, dewdrop):
    assert no_thanks.scoring.ranking == "p in players"
    assert no_thanks.scoring.keys == [("p.score", "lowest first")]
    assert "set p.score = points(p)" in no_thanks.scoring.scoring.code
    assert no_thanks.scoring.scoring.items == []
    assert dewdrop.scoring.keys == [("p.score", "highest first"),
                                    ("finished_at(p)", "lowest first")]
    assert "<code>p.score</code> highest first" in render_html(dewdrop)


# ------------------------------------------------------------------ assumptions and readings
def test_every_assumption_is_listed_with_its_reason(no_thanks):
    assumption, = no_thanks.assumptions
    assert assumption.what == "const starting_chips"
    assert assumption.where.anchor == "const-starting_chips"
    assert assumption.reason.startswith("9 chips with 6 players")
    assert (assumption.file, assumption.line) == ("no_thanks.rules", 11)
    assert "9 chips with 6 players and 7 with 7" in render_markdown(no_thanks)


def test_reading_notes_are_tied_to_the_rule_they_explain(love_letter, no_thanks):
    places = [(n.where.title, n.line, n.contradiction) for n in love_letter.notes]
    assert places == [("procedure end_round", 188, False), ("setup", 208, False)]
    assert [n.where.title for n in no_thanks.notes] == ["play", "winner"]


def test_a_contradiction_is_flagged_and_a_file_introduction_is_no_note(hostile):
    reference = hostile
    assert [(n.where.title, n.contradiction) for n in reference.notes] == [
        ("const hand_size", True), ("play", True)]  # not the introduction, above the header
    assert reference.notes[0].text == '"Deal two", which the same section contradicts.'
    assert reference.notes[1].text.startswith("Reading (a contradiction): the book says")
    page = render_html(reference)
    assert '<span class="badge contradiction">contradiction</span>' in page


# -------------------------------------------------------------------------------- citations
def test_citations_link_each_section_to_the_places_citing_it(love_letter):
    sections = {s.title: s for s in love_letter.sections}
    assert [p.title for p in sections["Contents"].places] == [
        "record Card", "table cards", "invariant sixteen_cards"]
    assert sections["Contents"].anchor == "cite-contents"
    page = render_html(love_letter)
    assert '<a class="cite" href="#cite-contents">Contents</a>' in page
    assert '<tr id="cite-contents"><td>Contents</td>' in page


def test_coverage_lists_the_sections_cited_when_the_book_s_are_not_listed(love_letter):
    coverage = love_letter.coverage
    assert not coverage.listed
    titles = [title for _, title, _ in coverage.rows]
    assert set(titles) == {s.title for s in love_letter.sections}
    assert titles == sorted(titles, key=str.casefold)  # no numbers in these titles
    assert "does not list its book's sections" in render_html(love_letter)


def test_sections_sort_numbers_as_numbers():
    from rulebook.ruleset_docs.notes import Section, natural_order

    titles = ["Setup 10", "Setup 2", "(2) Sales", "(1) Planning", "Bank"]
    assert [s.title for s in natural_order([Section(t, t) for t in titles])] == [
        "(1) Planning", "(2) Sales", "Bank", "Setup 2", "Setup 10"]


def test_coverage_against_a_list_of_the_books_sections():
    from rulebook.ruleset_docs.notes import Section, coverage

    cited = [Section("Setup", "cite-setup")]
    table = coverage(cited, ["Setup", "Scoring"])
    assert table.listed and table.cited == 1
    assert [(title, seen) for _, title, seen in table.rows] == [("Setup", True),
                                                                ("Scoring", False)]


def test_coverage_reads_the_sections_the_configuration_lists(tmp_path):
    """The sections `rulebook check` reads (`book-sections`, docs/lint.md) are the coverage
    table's rows; a cite names a section when it starts with its title."""
    (tmp_path / "rulebook.toml").write_text('book-sections = ["Setup", "Scoring", "Variants"]\n')
    game = tmp_path / "g.rules"
    game.write_text(textwrap.dedent("""\
        game "G" {
            players 2
        }
        global n: int = 0 cite "Setup step 2"
        setup cite "Setup" {
            set n = 1
        }
        play {
            end game
        }
        winner p in players by n cite "Scoring"
    """))
    table = build_reference(str(game)).coverage
    assert table.listed and table.cited == 2
    assert [(title, seen) for _, title, seen in table.rows] == [
        ("Setup", True), ("Scoring", True), ("Variants", False)]


def test_liqueur_cites_every_section_of_its_book():
    table = build_reference("liqueur").coverage
    assert table.listed and table.cited == len(table.rows) == 11


# --------------------------------------------------------------------------------- variants
def test_variants_say_what_they_add_replace_and_patch(hostile):
    variant, = hostile.variants
    assert (variant.name, variant.file, variant.extends) == ("extra", "extra.rules",
                                                             "game.rules")
    assert not variant.applied
    changes = [(c.action, c.target, c.link) for c in variant.changes]
    assert changes == [("adds", "const bonus", None),
                       ("replaces", "const hand_size", "const-hand_size"),
                       ("runs after step", "deal", "step-deal")]
    assert [a.reason for a in variant.assumptions] == ["variant reason <i>"]
    assert [n.text for n in variant.notes] == ["Reading: one more gem each."]


def test_a_page_with_a_variant_applied_documents_the_merged_game(hostile_extra):
    reference = hostile_extra
    assert reference.name == "game+extra"
    assert reference.variants[0].applied
    constants = {v.name: v.cells["value"] for v in reference.components.constants}
    assert constants["hand_size"] == "3" and constants["bonus"] == "1"
    setup = reference.flow[0]
    assert "increase players[1].score by bonus" in setup.code  # the patched step
    assert "variant reason <i>" in [a.reason for a in reference.assumptions]
    notes = [(n.file, n.where.title) for n in reference.notes]
    assert ("extra.rules", "const bonus") in notes  # a variant's note, tied to what it adds
    changes = [(c.action, c.link) for c in reference.variants[0].changes]
    assert changes[0] == ("adds", "const-bonus")  # now on the page


# --------------------------------------------------------------------------------- escaping
def test_hostile_rule_text_is_escaped_in_the_html_page(hostile_extra):
    page = render_html(hostile_extra)
    parsed = _parse(page)
    tags = [tag for tag, _ in parsed.tags]
    assert "script" not in tags and "img" not in tags and "b" not in tags and "i" not in tags
    assert not any(name.startswith("on") for _, attrs in parsed.tags for name in attrs)
    assert not any(value and value.startswith("javascript:")
                   for _, attrs in parsed.tags for value in attrs.values())
    text = "".join(parsed.text)
    assert "Evil <script>alert('title')</script> & | *bold*" in text  # shown as written
    assert "Extra <script>alert(7)</script>" in text
    assert "keep {g} </q><script>alert(6)</script>" in text
    assert "values <script>alert(2)</script> | guessed" in text
    assert "Ruby </td><script>x</script>" in text
    rows = [a for t, a in parsed.tags if t == "tr"]
    assert rows  # the table of gems keeps its 4 columns: the cell did not close early
    assert page.count("<td>ruby</td><td>Ruby &lt;/td&gt;&lt;script&gt;x&lt;/script&gt;</td>") == 1


def test_hostile_rule_text_is_escaped_in_markdown(hostile_extra):
    text = render_markdown(hostile_extra)
    outside_code = re.sub(r"(?ms)^(`{3,})rules\n.*?^\1$", "", text)
    for tag in ["<script", "<img", "</td>", "</q>", "<b>", "<i>"]:
        assert tag not in outside_code, tag
    gem_rows = [line for line in outside_code.splitlines()
                if line.startswith(("| ruby ", "| pearl "))]
    assert len(gem_rows) == 2
    for row in gem_rows:  # a `|` in a cell is escaped: each row keeps its four cells
        assert len(re.findall(r"(?<!\\)\|", row)) == 5
    assert "**Game:** Evil &lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt; &amp; \\| " \
        "\\*bold\\*" in text
    # What a Markdown renderer makes of the page: no element the rule text wrote
    parsed = _parse(_markdown().render(text))
    tags = {tag for tag, _ in parsed.tags}
    assert not tags & {"script", "img", "b", "i"}
    links = [attrs.get("href", "") for tag, attrs in parsed.tags if tag == "a"]
    assert links and all(href.startswith("#") or not href for href in links)
    assert "Pearl `code` | [link](javascript:alert(3))" in "".join(parsed.text)


@functools.cache
def _markdown():
    from markdown_it import MarkdownIt  # rich's Markdown renderer, a dependency already

    return MarkdownIt("commonmark", {"html": True}).enable("table")


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=40)


@settings(max_examples=150, deadline=None)
@given(text=_TEXT, as_code=st.booleans())
def test_any_text_stays_text_in_a_markdown_table_cell(text, as_code):
    """What a Markdown renderer makes of an escaped cell: one cell, holding the text as written
    (in a `<code>` when it is code), whatever the text."""
    from rulebook.ruleset_docs.render import md_code, md_text

    cell = md_code(text) if as_code else md_text(text)
    rendered = _markdown().render(f"| h |\n|---|\n| {cell} |\n")
    parsed = _parse(rendered)
    tags = [tag for tag, _ in parsed.tags]
    assert tags == ["table", "thead", "tr", "th", "tbody", "tr", "td"] + (
        ["code"] if as_code else []), rendered
    shown = "".join(parsed.text).split("h", 1)[1].strip()
    assert shown == text.strip(), rendered


def test_a_code_fence_outlasts_backticks_in_the_code():
    from rulebook.ruleset_docs.render import md_fence

    fenced = md_fence('log "````"')
    assert fenced.startswith("`````rules\n") and fenced.endswith("\n`````")


# -------------------------------------------------------------------------------------- CLI
def test_the_command_writes_the_formats_asked_for(tmp_path, hostile_game):
    runner = CliRunner()
    out = tmp_path / "site"
    result = runner.invoke(main, ["docs", "examples/no_thanks", "--out", str(out),
                                  "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out / 'no_thanks.md'}\n"
    assert [p.name for p in out.iterdir()] == ["no_thanks.md"]
    result = runner.invoke(main, ["docs", str(hostile_game.parent), "--variant", "extra",
                                  "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "game+extra.html", "game+extra.md", "no_thanks.md"]
    page = (out / "game+extra.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'class="badge applied"' in page
    assert (out / "game+extra.html").stat().st_mode & 0o044  # readable by others (umask 022)


def test_the_command_reports_a_bad_ruleset_as_a_diagnostic(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["docs", "no_such_game", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "error[E0501]" in result.output and "Traceback" not in result.output
    broken = tmp_path / "broken.rules"
    broken.write_text('game "B" { players 2 to 2 }\nsetup { set nothing = 1 }\n')
    result = runner.invoke(main, ["docs", str(broken), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and "error[E" in result.output
    assert not (tmp_path / "o").exists()


def _hostile_game(folder: Path) -> Path:
    """A small game and a variant whose names and texts try to break out of the page."""
    (folder / "game.rules").write_text(textwrap.dedent('''\
        # Introduction: where the book contradicts itself, a "Reading:" comment says so.
        game "Evil <script>alert('title')</script> & | *bold*" {
            players 2 to 3
            source "<img src=x onerror=alert(1)>"
        }

        enum Color { red "Red <b>", blue "Blue | pipe" }

        record Gem show "<i>{name}</i>" cite "Components <a href=x>" {
            name: text
            color: Color
        }

        table gems of Gem cite "Components <a href=x>" \\
            assumed "values <script>alert(2)</script> | guessed" {
            id    | name                                          | color  | count
            ruby  | "Ruby </td><script>x</script>"                | "red"  | 2
            pearl | "Pearl `code` | [link](javascript:alert(3))" | "blue" | 3
        }

        # "Deal two", which the same section contradicts.
        const hand_size = 2 cite "Setup 10" assumed "the book \\"says\\" <nothing>"

        global bag: deck of Gem = gems secret cite "Setup 2"
        player hand: list of Gem owner cite "Setup 2"
        player score: int = 0 shown cite "Scoring"

        setup cite "Setup 2" {
            step deal cite "Setup 10" {
                for p in players {
                    move top hand_size from bag to p.hand
                }
            }
        }

        # Reading (a contradiction): the book says </blockquote><script>alert(4)</script> both.
        play cite "Play" {
            rounds 2 {
                phase keep cite "Play" {
                    for p in players {
                        turn p {
                            choose p "Keep a gem? <script>alert(5)</script>" {
                                option keep for g in p.hand \\
                                    label "keep {g} </q><script>alert(6)</script>" cite "Play" {
                                    increase p.score by 1
                                }
                                option drop where size(p.hand) > 0 label "drop | *it*" {
                                    move top 1 from p.hand to bag
                                }
                            }
                        }
                    }
                }
            }
        }

        scoring cite "Scoring" {
            for p in players {
                increase p.score by size(p.hand)
            }
        }

        winner p in players by p.score descending cite "Scoring"
        '''), encoding="utf-8")
    (folder / "extra.rules").write_text(textwrap.dedent('''\
        # A variant: more gems and a step after the deal.
        variant "Extra <script>alert(7)</script>" extends "game.rules" {
        }

        # Reading: one more gem each.
        const bonus = 1 cite "Variant <b>" assumed "variant reason <i>"

        override const hand_size = 3 cite "Setup 10"

        after step deal cite "Variant <b>" {
            increase players[1].score by bonus
        }
        '''), encoding="utf-8")
    return folder / "game.rules"
