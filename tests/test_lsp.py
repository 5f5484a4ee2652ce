"""`rulebook lsp` end to end: a real language client (pytest-lsp) talks to the server over stdio."""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as T
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ROOT = Path(__file__).resolve().parents[1]
TICTACTOE = ROOT / "rulesets" / "examples" / "tictactoe.rules"

GAME = """\
game "Pairs" {
    players 2
}

# How many points a player has.
player score: int = 0

define doubled(n) = n * 2

play {
    rounds {
        for p in players {
            increase p.score by doubled(1)
        }
        if round == 3 {
            end game
        }
    }
}

winner p in players by p.score descending
"""

VARIANT = """\
variant "Quick" extends "game.rules" {
}

const bonus = doubled(2)
"""

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A small ruleset on disk: a game and a variant that extends it."""
    path = tmp_path_factory.mktemp("pairs")
    (path / "game.rules").write_text(GAME)
    (path / "quick.rules").write_text(VARIANT)
    return path


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "rulebook", "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


def uri(path: Path) -> str:
    return uris.from_fs_path(str(path))


async def opened(client: LanguageClient, path: Path, text: str | None = None) -> str:
    """Open a file (with `text` instead of what is on disk) and wait for its diagnostics."""
    u = uri(path)
    client.diagnostics.pop(u, None)
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri=u, language_id="rules", version=1,
        text=path.read_text() if text is None else text)))
    await diagnostics_of(client, u)
    return u


async def diagnostics_of(client: LanguageClient, u: str) -> list[T.Diagnostic]:
    for _ in range(200):
        if u in client.diagnostics:
            return list(client.diagnostics[u])
        await client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    raise AssertionError(f"no diagnostics for {u}")


def position_of(text: str, needle: str, nth: int = 0) -> T.Position:
    """Where the `nth` occurrence of `needle` starts (inside it by one character)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    return T.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1) + 1)


async def test_a_broken_file_gets_located_diagnostics_that_clear_when_fixed(client, folder):
    path = folder / "broken.rules"
    broken = GAME.replace("player score: int = 0", "player score: int = ")
    u = await opened(client, path, broken)
    found = client.diagnostics[u]
    assert len(found) == 1
    assert found[0].severity == T.DiagnosticSeverity.Error
    assert found[0].source == "rulebook" and str(found[0].code).startswith("E")
    assert found[0].range.start.line in (5, 6)  # the unfinished line, or where it shows

    client.diagnostics.pop(u)
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=u, version=2),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=GAME)]))
    assert await diagnostics_of(client, u) == []
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri=u)))


async def test_a_semantic_error_is_reported_on_the_name(client, folder):
    text = GAME.replace("doubled(1)", "tripled(1)")
    u = await opened(client, folder / "typo.rules", text)
    found = client.diagnostics[u]
    d = next(d for d in found if "tripled" in d.message)
    assert d.severity == T.DiagnosticSeverity.Error
    start = position_of(text, "tripled")
    assert (d.range.start.line, d.range.start.character) == (start.line, start.character - 1)
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri=u)))


async def test_an_unsaved_game_is_what_its_open_variant_is_checked_against(client, folder):
    game_uri = await opened(client, folder / "game.rules")
    variant_uri = await opened(client, folder / "quick.rules")
    assert not client.diagnostics[variant_uri]
    # The game, edited but not saved, loses the define the variant uses.
    client.diagnostics.pop(variant_uri, None)
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=game_uri, version=2),
        content_changes=[T.TextDocumentContentChangeWholeDocument(
            text=GAME.replace("define doubled(n) = n * 2\n", "").replace("doubled(1)", "1"))]))
    found = await diagnostics_of(client, variant_uri)
    assert any("doubled" in d.message for d in found)
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=game_uri, version=3),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=GAME)]))
    for _ in range(50):
        await asyncio.sleep(0.05)
        if not client.diagnostics.get(variant_uri, [1]):
            break
    assert not client.diagnostics[variant_uri]


async def test_hover_shows_a_declaration_its_type_and_its_documentation(client, folder):
    u = await opened(client, folder / "game.rules")
    result = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u),
        position=position_of(GAME, "score", 1)))
    assert "player score: int = 0" in result.contents.value
    assert "How many points a player has." in result.contents.value


async def test_hover_shows_a_built_ins_signature(client):
    text = TICTACTOE.read_text()
    u = await opened(client, TICTACTOE)
    result = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=position_of(text, "any(")))
    assert result is None  # `any` is a keyword of the language, not a function
    result = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=position_of(text, "players {")))
    assert "built-in value" in result.contents.value


async def test_definition_crosses_into_the_file_a_variant_extends(client, folder):
    u = await opened(client, folder / "quick.rules")
    found = await client.text_document_definition_async(T.DefinitionParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=position_of(VARIANT, "doubled")))
    assert len(found) == 1
    assert found[0].uri == uri(folder / "game.rules")
    assert found[0].range.start == T.Position(line=7, character=7)


async def test_references_and_rename_reach_every_file_of_the_ruleset(client, folder):
    u = await opened(client, folder / "game.rules")
    where = position_of(GAME, "doubled")
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=where,
        context=T.ReferenceContext(include_declaration=True)))
    assert sorted((r.uri.rsplit("/", 1)[1], r.range.start.line) for r in refs) == [
        ("game.rules", 7), ("game.rules", 12), ("quick.rules", 3)]
    edit = await client.text_document_rename_async(T.RenameParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=where, new_name="twice"))
    assert {k.rsplit("/", 1)[1]: len(v) for k, v in edit.changes.items()} == {
        "game.rules": 2, "quick.rules": 1}
    assert all(e.new_text == "twice" for v in edit.changes.values() for e in v)


async def test_completion_offers_names_in_scope_keywords_and_fields(client, folder):
    text = GAME.replace("by doubled(1)", "by dou")
    u = await opened(client, folder / "complete.rules", text)
    at = position_of(text, "by dou")
    result = await client.text_document_completion_async(T.CompletionParams(
        text_document=T.TextDocumentIdentifier(uri=u),
        position=T.Position(line=at.line, character=at.character + 5)))
    labels = {item.label for item in result.items}
    assert {"doubled", "players", "size", "turns"} <= labels
    assert "score" not in labels  # a player variable is read as `p.score`
    dotted = text.replace("p.score by", "p.sc by")
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=u, version=2),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=dotted)]))
    at = position_of(dotted, ".sc")
    result = await client.text_document_completion_async(T.CompletionParams(
        text_document=T.TextDocumentIdentifier(uri=u),
        position=T.Position(line=at.line, character=at.character + 2)))
    assert [item.label for item in result.items] == ["score"]
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri=u)))


async def test_completion_offers_option_ids_in_a_scenario(client):
    text = TICTACTOE.read_text()
    u = await opened(client, TICTACTOE)
    at = position_of(text, '"place:1:1"')
    result = await client.text_document_completion_async(T.CompletionParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=at))
    assert [item.label for item in result.items] == ["place"]


async def test_formatting_gives_the_canonical_form(client, folder):
    messy = GAME.replace("player score: int = 0", "player   score :int=0")
    u = await opened(client, folder / "messy.rules", messy)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
        text_document=T.TextDocumentIdentifier(uri=u),
        options=T.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert len(edits) == 1 and edits[0].new_text == GAME
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri=u)))


async def test_outline_and_folding(client):
    u = await opened(client, TICTACTOE)
    symbols = await client.text_document_document_symbol_async(T.DocumentSymbolParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    names = [s.name for s in symbols]
    assert names[:3] == ['game "Tic-tac-toe"', "enum Mark", "const size"]
    assert 'scenario "a row of three wins"' in names
    play = next(s for s in symbols if s.name == "play")
    assert [c.name for c in play.children] == ["place"]  # the option inside the flow
    folds = await client.text_document_folding_range_async(T.FoldingRangeParams(
        text_document=T.TextDocumentIdentifier(uri=u)))
    assert (26, 49) in {(f.start_line, f.end_line) for f in folds}  # `play { ... }`


async def test_an_error_in_the_game_found_by_its_variants_check_is_shown_in_the_game(
        client, tmp_path):
    (tmp_path / "game.rules").write_text(GAME.replace("by doubled(1)", "by tripled(1)"))
    (tmp_path / "quick.rules").write_text(VARIANT.replace("doubled(2)", "2"))
    game_uri = uri(tmp_path / "game.rules")
    await opened(client, tmp_path / "quick.rules")
    found = await diagnostics_of(client, game_uri)  # the game itself is not open
    assert [d.severity for d in found] == [T.DiagnosticSeverity.Error]
    assert "tripled" in found[0].message
    assert found[0].range.start.line == GAME.split("\n").index(
        "            increase p.score by doubled(1)")


def utf16_column(line: str, needle: str) -> int:
    return len(line[:line.index(needle)].encode("utf-16-le")) // 2


async def test_columns_are_counted_as_the_client_counts_them(client, folder):
    """VS Code counts UTF-16 units: an emoji is two of them, one character to the checker."""
    text = GAME.replace("by doubled(1)", 'by size("🎲") + doubled(1) + tripled')
    u = await opened(client, folder / "emoji.rules", text)
    (d,) = [d for d in client.diagnostics[u] if "tripled" in d.message]
    line = text.split("\n")[d.range.start.line]
    assert d.range.start.character == utf16_column(line, "tripled")
    hover = await client.text_document_hover_async(T.HoverParams(
        text_document=T.TextDocumentIdentifier(uri=u), position=T.Position(
            line=d.range.start.line, character=utf16_column(line, "doubled") + 2)))
    assert "define doubled(n)" in hover.contents.value
    assert (hover.range.start.character, hover.range.end.character) == (
        utf16_column(line, "doubled"), utf16_column(line, "doubled") + len("doubled"))
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri=u)))
