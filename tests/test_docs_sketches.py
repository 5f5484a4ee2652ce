"""The language reference stays true: its examples parse, its grammar excerpts are the grammar,
its "Hardest rules" sketches exist, it covers every requirement, and every diagnostic code the
sources can raise is documented in docs/diagnostics.md.

Fenced blocks in docs/language.md are checked by their tag:
``rules`` is a whole file, ``rules-stmt`` is a statement snippet (wrapped in a procedure),
``rules-expr`` is one expression, ``ebnf`` is an excerpt of grammar/rules.lark.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from rulebook.grammar import ast as A
from rulebook.grammar.parser import parse_expression, parse_text
from rulebook.interpreter.rules import compile_rules
from rulebook.interpreter.scenario import run_scenarios
from rulebook.validator.diagnostics import DiagnosticError
from rulebook.validator.schema import validate_program
from rulebook.validator.semantic import check_program

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = ROOT / "docs" / "language.md"
DIAGNOSTICS = ROOT / "docs" / "diagnostics.md"
GRAMMAR = ROOT / "grammar" / "rules.lark"
REQUIREMENTS = ROOT.parent / "shared" / "language-requirements.md"
CODE_DIRS = ("grammar", "validator", "interpreter", "rulebook")

STMT_PREFIX = "procedure example() {\n"
CHECKED_TAGS = ("rules", "rules-stmt", "rules-expr", "ebnf")


@dataclass(frozen=True)
class Block:
    tag: str
    line: int  # line of the first line of code inside the fence, 1-based
    text: str

    def __str__(self) -> str:
        return f"{self.tag}@{self.line}"


def fenced_blocks(path: Path) -> list[Block]:
    blocks, tag, start, body = [], None, 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if tag is None:
            opening = re.fullmatch(r"```([\w-]*)\s*", line)
            if opening:
                tag, start, body = opening.group(1), number + 1, []
        elif line.strip() == "```":
            if tag in CHECKED_TAGS:
                blocks.append(Block(tag, start, "\n".join(body) + "\n"))
            tag = None
        else:
            body.append(line)
    assert tag is None, f"{path.name}: a ``` fence opened on line {start - 1} is never closed"
    return blocks


@dataclass(frozen=True)
class Section:
    title: str
    level: int
    first: int  # line of the heading, 1-based
    last: int  # last line before the next heading of the same or a higher level
    text: str


def sections(path: Path) -> list[Section]:
    lines = path.read_text(encoding="utf-8").splitlines()
    heads, fence = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fence = not fence
        elif not fence and (m := re.match(r"(#{1,6}) (.+)", line)):
            heads.append((i, len(m.group(1)), m.group(2).strip()))
    out = []
    for k, (i, level, title) in enumerate(heads):
        end = next((j for j, lv, _ in heads[k + 1:] if lv <= level), len(lines))
        out.append(Section(title, level, i + 1, end, "\n".join(lines[i + 1:end])))
    return out


def section(title: str) -> Section:
    found = [s for s in sections(LANGUAGE) if s.title == title]
    assert found, f"docs/language.md needs a section `{title}`"
    return found[0]


BLOCKS = fenced_blocks(LANGUAGE)
CODE_BLOCKS = [b for b in BLOCKS if b.tag != "ebnf"]
EBNF_BLOCKS = [b for b in BLOCKS if b.tag == "ebnf"]


def parse_block(block: Block):
    if block.tag == "rules":
        return parse_text(block.text, f"language.md:{block.line}")
    if block.tag == "rules-stmt":
        return parse_text(STMT_PREFIX + block.text + "}\n", f"language.md:{block.line}")
    return parse_expression(block.text.strip())


def where(block: Block, err: DiagnosticError) -> str:
    shift = -1 if block.tag == "rules-stmt" else 0
    parts = []
    for d in err.diagnostics:
        line = block.line + (d.line or 1) - 1 + shift
        parts.append(f"docs/language.md:{line}: [{d.code}] {d.message} ({d.hint or 'no hint'})")
    return "\n".join(parts)


@pytest.mark.parametrize("block", CODE_BLOCKS, ids=str)
def test_example_parses(block):
    try:
        parse_block(block)
    except DiagnosticError as err:
        pytest.fail(f"the {block.tag} block at docs/language.md:{block.line} does not parse:\n"
                    + where(block, err))


@pytest.mark.parametrize("block", [b for b in CODE_BLOCKS if b.tag != "rules-expr"], ids=str)
def test_example_matches_the_ast_schema(block):
    problems = validate_program(parse_block(block), f"docs/language.md:{block.line}")
    assert not problems, "\n".join(d.message for d in problems)


def test_reference_has_examples_of_every_kind():
    tags = [b.tag for b in CODE_BLOCKS]
    assert tags.count("rules") >= 20
    assert tags.count("rules-stmt") >= 20
    assert tags.count("rules-expr") >= 10


# ------------------------------------------------------------------------------ grammar
def _normal(line: str) -> str:
    return " ".join(line.split())


def grammar_rule_names(text: str) -> set[str]:
    names = set()
    for line in text.splitlines():
        m = re.match(r"[?!]?([A-Za-z_][A-Za-z_0-9]*)(?:\.\d+)?\s*:", line)
        if m and not line.startswith("//"):
            names.add(m.group(1))
    return names


def test_grammar_excerpts_are_taken_from_the_grammar():
    grammar_lines = {_normal(line) for line in GRAMMAR.read_text(encoding="utf-8").splitlines()}
    stale = [f"docs/language.md:{b.line + i}: {line.strip()}"
             for b in EBNF_BLOCKS for i, line in enumerate(b.text.splitlines())
             if line.strip() and _normal(line) not in grammar_lines]
    assert not stale, "grammar excerpts that are not in grammar/rules.lark:\n" + "\n".join(stale)


def test_every_grammar_rule_is_shown():
    shown = set()
    for b in EBNF_BLOCKS:
        shown |= grammar_rule_names(b.text)
    missing = sorted(grammar_rule_names(GRAMMAR.read_text(encoding="utf-8")) - shown)
    assert not missing, f"rules of grammar/rules.lark missing from docs/language.md: {missing}"


def test_every_line_of_the_grammar_is_shown():
    """A new alternative of an existing rule must reach the reference too."""
    shown = {_normal(line) for b in EBNF_BLOCKS for line in b.text.splitlines()}
    missing = [f"grammar/rules.lark:{n}: {line.strip()}"
               for n, line in enumerate(GRAMMAR.read_text(encoding="utf-8").splitlines(), 1)
               if line.strip() and not line.lstrip().startswith("//")
               and _normal(line) not in shown]
    assert not missing, "grammar lines missing from docs/language.md:\n" + "\n".join(missing)


# ------------------------------------------------------------------------ hardest rules
HARDEST = {
    # game -> (distinctive words in the sketch's prose or code, AST kinds the sketch must use)
    "Beverage": (["market research", "bust", "inventory disposal", "minus one",
                  "special treatment"],
                 {"simultaneously", "choose", "sort", "random_key", "reveal", "while"}),
    "Smartphone Inc.": (["pad", "covered", "active", "Steve", "Phase 5"],
                        {"define", "choose", "automaton", "policy", "record_lit"}),
    "Beer Empire": (["work schedule", "shift", "crates", "beerfest"],
                    {"grid_type", "aggregate", "sort", "simultaneously", "phase"}),
    "Liqueur": (["bottom row", "slide", "refill", "token"],
                {"grid_type", "move", "choose", "option"}),
}


# Harness for the Beverage sketch: the rulebook's 4-player sales example, busting twice,
# a reputation tie.
HARNESS_BEVERAGE = """
game "Beverage sales harness" {
    players 3 to 5
}
table market_card_table of MarketCard {
    value | recession
    1 | false
    8 | false
    0 | true
    5 | false
    6 | false
    0 | true
}
setup {
    set market_deck = shuffled(market_card_table)
}
procedure deal_face_down(a, b, c) {
    move all from face_down_cards to market_deck
    for card in [a, b, c] {
        move card from market_deck to face_down_cards
    }
}
play {
    do planning_phase()
    do sales_phase()
}
scenario "rulebook example: 4 players, yellow busts" {
    players 4
    seed 3
    given {
        do deal_face_down(market_card_table[1], market_card_table[2], market_card_table[3])
        set market = 50
        set players[3].research_tokens = 1
    }
    choose players[1] "bid:11"
    choose players[2] "bid:12"
    choose players[3] "market_research"
    choose players[4] "bid:20"
    expect market == 50
    choose players[3] "bid:15"
    expect option players[4] "rebid:10"
    expect no option players[4] "rebid:11"
    choose players[4] "rebid:10"
    expect players[4].caps == 20
    expect market == 3
    expect players[2].reputation_tokens == 1
    expect players[3].reputation_tokens == 2
    expect players[4].reputation_tokens == 0
    expect turn_order == [players[1], players[2], players[3], players[4]]
    expect game_over
}
scenario "busting again lowers the cap" {
    players 3
    seed 3
    given {
        do deal_face_down(market_card_table[1], market_card_table[4], market_card_table[5])
        set market = 0
    }
    choose players[1] "bid:5"
    choose players[2] "bid:6"
    choose players[3] "bid:30"
    expect option players[3] "rebid:4"
    choose players[3] "rebid:4"
    expect option players[3] "rebid:3"
    expect no option players[3] "rebid:4"
    choose players[3] "rebid:1"
    expect players[3].caps == 11
}
scenario "equal bids: more reputation collects first" {
    players 3
    seed 5
    given {
        do deal_face_down(market_card_table[1], market_card_table[4], market_card_table[5])
        set market = 0
        set players[3].reputation = 2
    }
    choose players[1] "bid:4"
    choose players[2] "bid:4"
    choose players[3] "bid:4"
    expect turn_order[1] == players[3]
    expect players[3].caps == 14
}
"""


# Harness for the Smartphone sketch: legal and illegal pad positions, active and covered
# cells, Steve's research.
HARNESS_SMARTPHONE = """
game "Smartphone Inc. sketch check" {
    players 1 to 4
}
define priority_order() = players
define steve_count(s) = 3
play {
    rounds 3 {
        do planning_phase()
        for p in players where not is_automaton(p) {
            log "{p}: price {price(p)}, goods {goods_produced(p)}"
        }
        do research_phase()
    }
}
scenario "pads: 1 to 4 covered cells, active symbols" {
    players 1
    expect option players[1] "arrange:1:1:1:no:1:1"
    expect option players[1] "arrange:1:1:1:yes:0:0"
    expect no option players[1] "arrange:1:1:1:no:0:0"
    expect no option players[1] "arrange:1:1:1:yes:-2:-2"
    choose players[1] "arrange:1:1:1:no:1:1"
    expect covered_cells(players[1]) == 2
    expect price(players[1]) == 3
    expect goods_produced(players[1]) == 4
    expect active_count(players[1], research) == 2
}
scenario "Steve: already studying, then the cheapest Patent" {
    players 1
    choose players[1] "arrange:1:1:1:no:1:1"
    choose players[1] "place_marker:4g"
    choose players[1] "keep_the_rest"
    expect markers_on(players[2], technologies[3]) == 3
    expect not has(players[2], technologies[3])
    choose players[1] "arrange:1:1:1:no:1:1"
    choose players[1] "place_marker:4g"
    choose players[1] "place_marker:4g"
    expect has(players[2], technologies[3])
    expect technologies[3] in players[2].patents
    expect markers_on(players[2], technologies[2]) == 2
}
"""


# Harness for the Beer Empire sketch: the work schedule examples, beerfest points, ties and
# award order.
HARNESS_BEER_EMPIRE = """
game "Beer Empire sketch check" {
    players 2 to 4
}
setup {
    set reviewer = new Reviewer {
        aroma_fp: 3,
        color_fp: 2,
        taste_fp: 2,
        fermentation: open_vat,
        fermentation_fp: 2,
        filling: keg,
        filling_fp: 1
    }
    set aroma_tokens = 2
    set taste_tokens = 1
    set trend_track = [pilsner, ale, ipa, stout]
    set players[1].submitted = new Beer {
        beer_type: stout,
        aroma: 4,
        color: 1,
        taste: 0,
        negatives: 3,
        fermentation: closed_vat,
        filling: can
    }
    set players[2].submitted = new Beer {
        beer_type: lager,
        aroma: 2,
        color: 0,
        taste: 2,
        negatives: 0,
        fermentation: open_vat,
        filling: keg
    }
    if player_count >= 3 {
        set players[3].submitted = new Beer {
            beer_type: none,
            aroma: 1,
            color: 1,
            taste: 1,
            negatives: 0,
            fermentation: closed_vat,
            filling: can
        }
    }
}
play {
    rounds 2 {
        do beerfest()
        do planning_phase()
    }
}
scenario "work schedule: crates summed along a row" {
    players 2
    # The schedules are filled at the same time, one worker each per round.
    choose players[1] "place:1:2"
    choose players[2] "place:1:1"
    refuse players[1] "place:2:2"
    refuse players[1] "place:1:1"
    choose players[1] "place:1:2"
    choose players[2] "place:3:3"
    choose players[1] "place:2:1"
    choose players[2] "done"
    choose players[1] "marketplace"
    refuse players[1] "place:3:3"
    choose players[1] "done"
    expect malt_crates(players[1]) == 4
    expect hops_crates(players[1]) == 4
    expect share_moves(players[1]) == 1
    expect fermentation_crates(players[1]) == 2
    expect filling_crates(players[1]) == 2
    expect tile_plays(players[1]) == 0
    expect malt_crates(players[2]) == 3
    expect tile_plays(players[2]) == 1
}
scenario "beerfest: points, ties and awards" {
    players 3
    expect fest_points(players[1].submitted) == 13
    expect fest_points(players[2].submitted) == 12
    expect fest_points(players[3].submitted) == 6
    choose players[1] "done"
    choose players[2] "done"
    choose players[3] "done"
    expect pending_player == players[1]
    choose players[1] "take:passion"
    expect no option players[2] "take:passion"
    choose players[2] "take:two_cp"
    expect players[1].craft_points == 2
    expect players[2].craft_points == 2
    expect players[1].passion_tiles == 1
    expect trend_track == [stout, pilsner, ale, ipa]
}
scenario "beerfest with two players: the winner chooses twice" {
    players 2
    choose players[1] "done"
    choose players[2] "done"
    choose players[1] "take:passion"
    choose players[2] "take:two_cp"
    choose players[1] "take:extra_worker"
    expect players[1].workers == 5
    expect grey_workers == 10
}
"""


# Harness for the Liqueur sketch: slide-down and refill of a column, paying a token.
HARNESS_LIQUEUR = """
game "Liqueur market harness" {
    players 3 to 5
}
table cards of Card {
    kind | name | maximum | count
    "base" | "Gin" | 5 | 8
    "base" | "Rum" | 6 | 8
    "trend" | "T" | none | 4
}
table order_cards of OrderCard {
    parameter | needed | sales | count
    "rich" | 4 | 6 | 16
}
global saved_middle: Card?
global saved_top: Card?
procedure blending_phase(p) {
    set p.just_taken = []
}
procedure shipping_phase(p) {
    log "ship"
}
setup {
    set market_deck = shuffled(cards)
    set order_deck = shuffled(order_cards)
    for r in 1..3 {
        for c in 1..5 {
            move top 1 from market_deck to market[r, c]
        }
    }
}
scenario "the column slides down and the top row is refilled" {
    players 3
    seed 2
    given {
        set saved_middle = market[2, 1]
        set saved_top = market[1, 1]
    }
    expect size(market_deck) == 5
    choose players[1] "take_bottom:1"
    expect market[3, 1] == saved_middle
    expect market[2, 1] == saved_top
    expect market[1, 1] != none
    expect size(market_deck) == 4
    expect players[1].tokens == 1
    refuse players[2] "take_higher:9:9"
    choose players[2] "take_higher:1:3"
    expect players[2].tokens == 0
    expect token_area == 1
    given {
        set players[3].tokens = 0
    }
    expect no option players[3] "take_higher:1:2"
    expect visible order_deck[1] to players[2] "the Order deck's top card is face up"
    expect hidden order_deck[2] to players[2]
    play to end with random
    expect game_over
}
"""


HARNESS = {
    "Beverage": HARNESS_BEVERAGE,
    "Smartphone Inc.": HARNESS_SMARTPHONE,
    "Beer Empire": HARNESS_BEER_EMPIRE,
    "Liqueur": HARNESS_LIQUEUR,
}


def _kinds(node) -> set[str]:
    found, stack = set(), [node]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Node):
            found.add(getattr(n, "kind", type(n).__name__))
            stack.extend(getattr(n, f) for f in type(n).model_fields)
        elif isinstance(n, list):
            stack.extend(n)
    return found


def hardest_parts(game: str) -> tuple[list[Section], list[Block]]:
    """The `Hardest rules` subsections about one game, and their ```rules sketches."""
    hardest = section("Hardest rules")
    parts = [s for s in sections(LANGUAGE) if s.level == hardest.level + 1
             and hardest.first < s.first <= hardest.last and s.title.startswith(game)]
    sketch = [b for b in CODE_BLOCKS if b.tag == "rules"
              and any(s.first < b.line <= s.last for s in parts)]
    return parts, sketch


@pytest.mark.parametrize("game", sorted(HARDEST))
def test_hardest_rules_sketch(game):
    words, kinds = HARDEST[game]
    parts, sketch = hardest_parts(game)
    assert parts, f"`Hardest rules` needs a subsection whose title starts with `{game}`"
    prose = "\n".join(s.text for s in parts).lower()
    for word in words:
        assert word.lower() in prose, f"the {game} sketch never mentions `{word}`"
    assert sketch, f"the {game} subsection has no ```rules sketch"
    used = set()
    for b in sketch:
        used |= _kinds(parse_block(b))
    assert kinds <= used, f"the {game} sketch does not use {sorted(kinds - used)}"


@pytest.mark.parametrize("game", sorted(HARDEST))
def test_hardest_rules_sketch_runs(game):
    """The sketches are rules, not pseudo-code: with a small harness (a header, stand-ins for the
    rest of the game, scenarios from the rulebook's examples) their scenarios pass."""
    _, sketch = hardest_parts(game)
    run_checked("".join(b.text for b in sketch) + HARNESS[game], f"hardest-{game}.rules")


def run_checked(text: str, name: str) -> None:
    """Parse, check (no errors allowed) and run every scenario of a program."""
    program = parse_text(text, name)
    errors = [d for d in check_program(program) if d.is_error]
    assert not errors, "\n".join(f"{d.located()}: [{d.code}] {d.message}" for d in errors)
    rules = compile_rules(program)
    results = run_scenarios(program, name, lambda ref, node=None, variants=(): rules)
    assert len(results) == len(program.scenarios) >= 1
    failures = [f"{r.name}: {d.message}" for r in results for d in r.failures]
    assert not failures, "\n".join(failures)


def test_the_tour_is_a_whole_game_that_runs():
    tour = section("A short tour")
    blocks = [b for b in CODE_BLOCKS if b.tag == "rules" and tour.first < b.line <= tour.last]
    assert len(blocks) == 1, "the tour is one whole game in one ```rules block"
    assert parse_block(blocks[0]).header is not None
    run_checked(blocks[0].text, "tour.rules")


# ----------------------------------------------------------------------- requirements
def requirement_bullets() -> list[str]:
    """Every bullet of the requirements list, and the closing section that is prose."""
    assert REQUIREMENTS.exists(), f"the requirements list is expected at {REQUIREMENTS}"
    bullets: list[str] = []
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        if line.startswith("- "):
            bullets.append(line[2:].strip())
        elif bullets and line.startswith("  ") and line.strip():
            bullets[-1] += " " + line.strip()
        elif line.startswith("## Where the books disagree"):
            bullets.append(line[3:].strip())
    return bullets


def distinctive_phrase(bullet: str) -> str:
    """The bullet's opening words, up to the first bracket or colon."""
    head = re.split(r"[(:;]", bullet, maxsplit=1)[0]
    return _normal(head.strip().rstrip(",."))


def test_requirements_are_read():
    assert len(requirement_bullets()) >= 20


@pytest.mark.parametrize("bullet", requirement_bullets(), ids=distinctive_phrase)
def test_requirement_is_covered(bullet):
    coverage = section("Requirements coverage").text
    phrase = distinctive_phrase(bullet)
    rows = [line for line in coverage.splitlines() if line.startswith("|")
            and _normal(line.split("|")[1].replace("*", "")).lower().startswith(phrase.lower())]
    assert rows, f"no row of the coverage table starts with the requirement `{phrase}`"
    links = re.findall(r"\]\(#([^)]+)\)", " ".join(rows))
    assert links, f"the coverage row for `{phrase}` links to no section"


def _anchor(title: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return slug.replace(" ", "-")


def test_coverage_links_lead_to_sections():
    anchors = {_anchor(s.title) for s in sections(LANGUAGE)}
    coverage = section("Requirements coverage").text
    broken = sorted(set(re.findall(r"\]\(#([^)]+)\)", coverage)) - anchors)
    assert not broken, f"coverage links to sections that do not exist: {broken}"


# ------------------------------------------------------------------------ diagnostics
CODE_PATTERN = re.compile(r"""["']([EW]\d{4})["']""")


def codes_in_sources() -> dict[str, str]:
    found: dict[str, str] = {}
    for folder in CODE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for code in CODE_PATTERN.findall(path.read_text(encoding="utf-8")):
                found.setdefault(code, str(path.relative_to(ROOT)))
    return found


def documented_codes() -> set[str]:
    text = DIAGNOSTICS.read_text(encoding="utf-8")
    return set(re.findall(r"^#{2,4} `?([EW]\d{4})", text, flags=re.M))


def test_every_code_in_the_sources_is_documented():
    missing = {c: f for c, f in codes_in_sources().items() if c not in documented_codes()}
    assert not missing, "codes with no entry in docs/diagnostics.md: " + ", ".join(
        f"{c} ({f})" for c, f in sorted(missing.items()))


def test_no_documented_code_is_stale():
    stale = sorted(documented_codes() - set(codes_in_sources()))
    assert not stale, f"docs/diagnostics.md documents codes no source raises: {stale}"


def test_every_diagnostic_entry_has_a_fix():
    text = DIAGNOSTICS.read_text(encoding="utf-8")
    entries = re.split(r"^#{2,4} (?=`?[EW]\d{4})", text, flags=re.M)[1:]
    assert entries
    for entry in entries:
        assert "Fix:" in entry, f"the entry `{entry.splitlines()[0]}` has no `Fix:` line"


def test_codes_named_in_the_reference_are_documented():
    named = set(re.findall(r"\b([EW]0\d{3})\b", LANGUAGE.read_text(encoding="utf-8")))
    unknown = sorted(named - documented_codes())
    assert not unknown, f"docs/language.md names codes not in docs/diagnostics.md: {unknown}"


# ----------------------------------------------------------------------------- limits
def test_limits_table_matches_the_engine():
    from rulebook.grammar import parser
    from rulebook.interpreter.state import Limits

    table = {}
    for line in section("Limits").text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[2].startswith("`E"):
            table[cells[2].strip("`") + " " + cells[0]] = cells[1].replace(",", "")
    from rulebook.loader import MAX_CHAIN
    from rulebook.validator.semantic import MAX_PLAYERS, MAX_TABLE_ITEMS

    limits = Limits()
    expected = {
        "E0004": parser.MAX_FILE_BYTES,
        "E0007 brackets": parser.MAX_NESTING,
        "E0007 rules": parser.MAX_TREE_DEPTH,
        "E0007 words": parser.MAX_STATEMENT_TOKENS,
        "E0223": MAX_PLAYERS,
        "E0224": MAX_TABLE_ITEMS,
        "E0512": MAX_CHAIN,
        "E0301": limits.max_steps,
        "E0302": limits.max_depth,
        "E0303 elements": limits.max_collection,
        "E0303 characters in one": limits.max_text,
        "E0303 values nested": limits.max_nesting,
        "E0303 lines": limits.max_log_lines,
        "E0303 characters in a game": limits.max_log_chars,
        "E0303 legal": limits.max_options,
        "E0316": limits.max_memory // 2 ** 20,
    }
    for key, value in expected.items():
        rows = [v for k, v in table.items() if k.startswith(key)]
        assert rows, f"the Limits table has no row for {key}"
        assert str(value) in rows[0], f"the Limits table says {rows[0]} for {key}; the engine: {value}"
    assert limits.max_number == 2 ** 53
