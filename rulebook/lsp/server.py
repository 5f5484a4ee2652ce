"""The protocol side of `rulebook lsp`: pygls handlers that turn `features` answers into LSP types.

Diagnostics are published after every change. A check of one file may find errors in another
file of its ruleset (the game a variant extends): those are published under that file's URI, as
the union of what every open file's check found there.
"""
from __future__ import annotations

import asyncio
import os

from lsprotocol import types as T
from pygls import uris
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..validator.diagnostics import Diagnostic
from . import features as F
from .documents import Checked, Documents, check_document, ruleset_files
from .index import Index

SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
            "note": T.DiagnosticSeverity.Information}
SYMBOL_KIND = {
    "game": T.SymbolKind.Module, "variant": T.SymbolKind.Module, "enum": T.SymbolKind.Enum,
    "enum_member": T.SymbolKind.EnumMember, "record": T.SymbolKind.Struct,
    "field_decl": T.SymbolKind.Field, "table": T.SymbolKind.Array,
    "const": T.SymbolKind.Constant, "state": T.SymbolKind.Variable,
    "component_state": T.SymbolKind.Property, "define": T.SymbolKind.Function,
    "procedure": T.SymbolKind.Function, "event": T.SymbolKind.Event,
    "reaction": T.SymbolKind.Event, "modifier": T.SymbolKind.Operator,
    "scenario": T.SymbolKind.Class, "phase": T.SymbolKind.Namespace,
    "step": T.SymbolKind.Method, "option": T.SymbolKind.EnumMember,
}
COMPLETION_KIND = {
    "keyword": T.CompletionItemKind.Keyword, "function": T.CompletionItemKind.Function,
    "value": T.CompletionItemKind.Constant, "field": T.CompletionItemKind.Field,
    "row": T.CompletionItemKind.Value, "option": T.CompletionItemKind.EnumMember,
    "record": T.CompletionItemKind.Struct, "enum": T.CompletionItemKind.Enum,
    "enum_member": T.CompletionItemKind.EnumMember, "define": T.CompletionItemKind.Function,
    "procedure": T.CompletionItemKind.Function, "state": T.CompletionItemKind.Variable,
    "const": T.CompletionItemKind.Constant, "table": T.CompletionItemKind.Module,
    "parameter": T.CompletionItemKind.Variable, "let": T.CompletionItemKind.Variable,
    "binding": T.CompletionItemKind.Variable, "sc_let": T.CompletionItemKind.Variable,
    "event": T.CompletionItemKind.Event, "reaction": T.CompletionItemKind.Event,
}


class RulesServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rulebook", __version__)
        self.docs = Documents()
        self.checked: dict[str, Checked] = {}     # open path -> what its last check found
        self.versions: dict[str, int] = {}        # open path -> edits seen (to skip stale checks)
        self._indexes: dict[str, tuple[tuple, Index]] = {}
        self._lines: dict[str, tuple[str, list[str]]] = {}

    # ------------------------------------------------------------------------- diagnostics
    def recheck(self, path: str) -> None:
        """Check an open file, then the open files whose ruleset reads it, and publish."""
        touched = set(self._check(path))
        for other in list(self.checked):
            if other != path and path in self.checked[other].files:
                touched.update(self._check(other))
        for target in touched:
            self._publish(target)

    def _check(self, path: str) -> set[str]:
        before = set(self.checked[path].diagnostics) if path in self.checked else set()
        try:
            result = check_document(self.docs, path)
        except Exception as exc:  # noqa: BLE001 - one bad check must not stop the server
            result = Checked(path, {path: [Diagnostic(
                "E0999", f"internal error while checking: {type(exc).__name__}: {exc}",
                file=path, line=1, column=1, hint="this is a bug in rulebook, not in your rules")]})
        self.checked[path] = result
        return before | set(result.diagnostics)

    def forget(self, path: str) -> None:
        gone = self.checked.pop(path, None)
        self.docs.close(path)
        self._indexes.pop(path, None)
        for target in set(gone.diagnostics if gone else ()) | {path}:
            self._publish(target)

    def _publish(self, target: str) -> None:
        seen, found = set(), []
        for result in self.checked.values():
            for d in result.diagnostics.get(target, ()):
                key = (d.line, d.column, d.code, d.message)
                if key not in seen:
                    seen.add(key)
                    found.append(self.client_units(target, to_lsp(d)))
        self.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uris.from_fs_path(target), diagnostics=found))

    # --------------------------------------------------------------------- columns, units
    # The index and the checker count columns in characters; the client may count UTF-16 units
    # (it says which in `initialize`; pygls's codec converts, given the line).
    def lines_of(self, path: str) -> list[str]:
        text = self.docs.open.get(os.path.normpath(path))
        if text is None:
            from ..loader import parse_cached
            try:
                text = parse_cached(path)[0]  # the same text object while the file is unchanged
            except Exception:  # noqa: BLE001 - a file that does not read or parse
                try:
                    text = self.docs.text(path)
                except Exception:  # noqa: BLE001 - gone from disk: columns pass unchanged
                    return []
        kept = self._lines.get(path)
        if kept is None or kept[0] is not text:
            kept = self._lines[path] = (text, text.split("\n"))
        return kept[1]

    def from_client(self, path: str, position: T.Position) -> tuple[int, int]:
        lines = self.lines_of(path)
        if not lines:
            return position.line, position.character
        at = self.workspace.position_codec.position_from_client_units(lines, position)
        return at.line, at.character

    def to_client(self, path: str, line: int, column: int) -> T.Position:
        lines = self.lines_of(path)
        if not lines or line >= len(lines):
            return T.Position(line=line, character=column)
        at = self.workspace.position_codec.position_to_client_units(
            lines, T.Position(line=line, character=column))
        return T.Position(line=at.line, character=at.character)

    def client_units(self, path: str, d: T.Diagnostic) -> T.Diagnostic:
        r = d.range
        d.range = T.Range(start=self.to_client(path, r.start.line, r.start.character),
                          end=self.to_client(path, r.end.line, r.end.character))
        return d

    def place_range(self, p: F.Place) -> T.Range:
        return T.Range(start=self.to_client(p.file, p.line, p.column),
                       end=self.to_client(p.file, p.end_line, p.end_column))

    def location(self, p: F.Place) -> T.Location:
        return T.Location(uri=uris.from_fs_path(p.file), range=self.place_range(p))

    # ------------------------------------------------------------------------------- index
    def index_for(self, path: str) -> Index:
        """The index of the ruleset an open file belongs to, rebuilt when a file of it changed."""
        files = self.ruleset_of(path)
        parsed = []
        for f in files:
            try:
                text, program = self.docs.parse_partial(f)
            except Exception:  # noqa: BLE001 - a file that does not read has no names to offer
                continue
            parsed.append((f, text, program))
        key = tuple((f, id(p)) for f, _, p in parsed)
        kept = self._indexes.get(path)
        if kept is not None and kept[0] == key:
            return kept[1]
        index = Index()
        for f, text, program in parsed:
            index.add_file(f, text, program)
        index.build()
        self._indexes[path] = (key, index)
        return index

    def ruleset_of(self, path: str) -> list[str]:
        """The file, the files it builds on, and the variants beside its game."""
        checked = self.checked.get(path)
        files = list(checked.files) if checked is not None else ruleset_files(self.docs, path)
        if path not in files:
            files.append(path)
        game = files[0]
        from ..loader import first_word, rules_files_in
        from pathlib import Path

        for sibling in rules_files_in(Path(os.path.dirname(game) or ".")):
            s = os.path.normpath(str(sibling))
            if s not in files and first_word(sibling) == "variant" \
                    and game in ruleset_files(self.docs, s):
                files.append(s)
        return files


def to_lsp(d: Diagnostic) -> T.Diagnostic:
    line = max(0, (d.line or 1) - 1)
    column = max(0, (d.column or 1) - 1)
    end_line = d.end_line - 1 if d.end_line else line
    end_column = d.end_column - 1 if d.end_column else column + 1
    if (end_line, end_column) <= (line, column):
        end_line, end_column = line, column + 1
    message = d.message + (f"\nhelp: {d.hint}" if d.hint else "")
    related = [T.DiagnosticRelatedInformation(
        location=T.Location(uri=uris.from_fs_path(r.file or d.file),
                            range=_range(max(0, (r.line or 1) - 1), max(0, (r.column or 1) - 1))),
        message=r.message) for r in d.related if (r.file or d.file)]
    return T.Diagnostic(range=T.Range(start=T.Position(line=line, character=column),
                                      end=T.Position(line=end_line, character=end_column)),
                        message=message, severity=SEVERITY.get(d.severity), code=d.code,
                        source="rulebook", related_information=related or None)


def _range(line: int, column: int, end_line: int | None = None,
           end_column: int | None = None) -> T.Range:
    return T.Range(start=T.Position(line=line, character=column),
                   end=T.Position(line=line if end_line is None else end_line,
                                  character=column if end_column is None else end_column))


def path_of(uri: str) -> str:
    return os.path.normpath(uris.to_fs_path(uri) or uri)


server = RulesServer()


# ----------------------------------------------------------------------------- documents
@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulesServer, params: T.DidOpenTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    ls.docs.set(path, params.text_document.text)
    ls.recheck(path)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: RulesServer, params: T.DidChangeTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    version = ls.versions[path] = ls.versions.get(path, 0) + 1
    await asyncio.sleep(0)  # let edits that already arrived come first: check only the last
    if ls.versions.get(path) != version:
        return
    ls.docs.set(path, ls.workspace.get_text_document(params.text_document.uri).source)
    ls.recheck(path)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RulesServer, params: T.DidSaveTextDocumentParams) -> None:
    ls.recheck(path_of(params.text_document.uri))


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulesServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.forget(path_of(params.text_document.uri))


# ------------------------------------------------------------------------------ questions
def _where(ls: RulesServer, params) -> tuple[str, int, int]:
    path = path_of(params.text_document.uri)
    return (path, *ls.from_client(path, params.position))


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls: RulesServer, params: T.HoverParams) -> T.Hover | None:
    path, line, column = _where(ls, params)
    found = F.hover(ls.index_for(path), path, line, column)
    if found is None:
        return None
    text, place = found
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                   range=ls.place_range(place))


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RulesServer, params: T.DefinitionParams) -> list[T.Location]:
    path, line, column = _where(ls, params)
    return [ls.location(p) for p in F.definition(ls.index_for(path), path, line, column)]


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
def references(ls: RulesServer, params: T.ReferenceParams) -> list[T.Location]:
    path, line, column = _where(ls, params)
    return [ls.location(p) for p in F.references(ls.index_for(path), path, line, column,
                                               params.context.include_declaration)]


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: RulesServer, params: T.PrepareRenameParams):
    path, line, column = _where(ls, params)
    index = ls.index_for(path)
    try:
        F.renamable(index, path, line, column)
    except F.RenameRefused:
        return None
    word = index.symbol_at(path, line, column)[0]
    return ls.place_range(F.word_place(word))


@server.feature(T.TEXT_DOCUMENT_RENAME)
def rename(ls: RulesServer, params: T.RenameParams) -> T.WorkspaceEdit:
    path, line, column = _where(ls, params)
    try:
        edits = F.rename(ls.index_for(path), path, line, column, params.new_name)
    except F.RenameRefused as e:
        from pygls.exceptions import JsonRpcInvalidParams
        raise JsonRpcInvalidParams(str(e))
    return T.WorkspaceEdit(changes={
        uris.from_fs_path(file): [T.TextEdit(range=ls.place_range(p), new_text=new)
                                  for p, new in places]
        for file, places in edits.items()})


@server.feature(T.TEXT_DOCUMENT_COMPLETION,
                T.CompletionOptions(trigger_characters=[".", '"']))
def completion(ls: RulesServer, params: T.CompletionParams) -> T.CompletionList:
    path, line, column = _where(ls, params)
    items = [T.CompletionItem(label=c.label, kind=COMPLETION_KIND.get(c.kind,
                                                                      T.CompletionItemKind.Text),
                              detail=c.detail or None)
             for c in F.completions(ls.index_for(path), path, line, column)]
    return T.CompletionList(is_incomplete=False, items=items)


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: RulesServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
    path = path_of(params.text_document.uri)
    try:
        _, program = ls.docs.parse(path)
    except Exception:  # noqa: BLE001 - no outline while the file does not parse
        return []

    def convert(o: F.Outline) -> T.DocumentSymbol:
        return T.DocumentSymbol(name=o.name, kind=SYMBOL_KIND.get(o.kind, T.SymbolKind.Object),
                                range=ls.place_range(o.place),
                                selection_range=ls.place_range(o.selection),
                                children=[convert(c) for c in o.children] or None)
    return [convert(o) for o in F.outline(program, path)]


@server.feature(T.TEXT_DOCUMENT_FOLDING_RANGE)
def folding_range(ls: RulesServer, params: T.FoldingRangeParams) -> list[T.FoldingRange]:
    path = path_of(params.text_document.uri)
    try:
        text, program = ls.docs.parse(path)
    except Exception:  # noqa: BLE001
        return []
    return [T.FoldingRange(start_line=a, end_line=b,
                           kind=T.FoldingRangeKind.Comment if kind == "comment" else None)
            for a, b, kind in F.folding_ranges(program, text)]


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: RulesServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
    path = path_of(params.text_document.uri)
    text = ls.workspace.get_text_document(params.text_document.uri).source
    new = F.formatted(text, path)
    if new is None or new == text:
        return None if new is None else []
    lines = text.split("\n")
    return [T.TextEdit(range=T.Range(start=T.Position(line=0, character=0),
                                     end=ls.to_client(path, len(lines) - 1, len(lines[-1]))),
                       new_text=new)]


def main() -> None:
    server.start_io()
