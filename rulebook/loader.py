"""Find a ruleset and load it: a game file, or a variant merged onto the game it extends.

A variant (docs/semantics-contract.md, "Files") adds declarations, replaces them with
``override <declaration>``, and patches named steps with ``override/before/after step NAME``.
Parsed files are cached and shared between loads, so merging never changes a parsed program:
nodes that a patch touches are copied, everything else is shared.
"""
from __future__ import annotations

import difflib
import os
import re
import typing
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .grammar import ast as A
from .grammar.parser import parse_text, read_source
from .grammar.source import path_kind, read_regular
from .validator.diagnostics import Diagnostic, DiagnosticError, Related, span_fields

CODES = {
    "E0501": "no ruleset by that name, folder or path",
    "E0502": "a folder does not hold exactly one game file",
    "E0503": "a variant extends a file that does not exist",
    "E0504": "variants extend each other in a cycle",
    "E0505": "`override` names nothing in the game it extends",
    "E0506": "a declaration repeats one of the game it extends without `override`",
    "E0507": "a step patch names a step that does not exist",
    "E0508": "a variant extends a file that is neither a game nor a variant",
    "E0510": "`override` or a step patch in a file that is not a variant",
    "E0511": "a rules file names a file outside its ruleset's folder",
    "E0512": "a chain of variants too long",
    "E0513": "two chosen variants change the same part of the game",
    "E0514": "no variant by that name for this game",
}
MAX_CHAIN = 32  # files from a variant down to its game

RULES_SUFFIX = ".rules"
# Declarations the game has at most one of; an override replaces "the" one.
SINGLETON_KINDS = ("setup", "play", "scoring", "winner")


# ------------------------------------------------------------------------------ resolution
def bundled_roots() -> list[Path]:
    """Folders searched for bundled rulesets: the repository's (or, installed from a wheel, the
    package's copy) and the current directory's."""
    here = Path(__file__).resolve().parent
    roots = [here.parent / "rulesets", here / "rulesets", Path.cwd() / "rulesets"]
    out: list[Path] = []
    for r in roots:
        if path_kind(r) == "folder" and r.resolve() not in [o.resolve() for o in out]:
            out.append(r)
    return out


_FIRST_WORD = re.compile(r"\A(?:\s|#[^\n]*)*(\w+)")
# A bundled name: `game` or `game/variant`, never a path that could leave the bundled folders.
BUNDLED_NAME = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9_-]*(/[A-Za-z0-9_][A-Za-z0-9_-]*)?\Z")


def first_word(path: Path) -> str | None:
    """The word a file starts with (`game`, `variant`...), read cheaply, without parsing."""
    try:
        head = read_regular(path, 4096)[:4096].decode("utf-8", errors="replace")
    except DiagnosticError:
        return None
    match = _FIRST_WORD.match(head.removeprefix("\ufeff"))
    return match.group(1) if match else None


def is_game_file(path: Path) -> bool:
    """Whether a file starts with a `game` header."""
    return first_word(path) == "game"


def rules_files_in(folder: Path) -> list[Path]:
    """The regular `.rules` files directly in a folder, sorted (links and pipes are skipped)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for e in entries:
        try:
            if e.name.endswith(RULES_SUFFIX) and e.is_file(follow_symlinks=False):
                out.append(Path(folder) / e.name)
        except OSError:
            continue
    return out


def game_file_in(folder: Path) -> Path:
    """The single game file of a folder (its variants and scenario files sit beside it)."""
    games = [p for p in rules_files_in(folder) if is_game_file(p)]
    if len(games) == 1:
        return games[0]
    if not games:
        message = f"{folder} has no game file (a `.rules` file starting with `game`)"
    else:
        message = f"{folder} has {len(games)} game files: " + ", ".join(p.name for p in games)
    raise DiagnosticError([Diagnostic("E0502", message, file=str(folder),
                                      hint="name the `.rules` file to load")])


def bundled_names() -> list[str]:
    """Every name `resolve_ruleset` accepts for a bundled ruleset: `game` and `game/variant`."""
    names: set[str] = set()
    for root in bundled_roots():
        for folder in sorted(p for p in root.iterdir() if path_kind(p) == "folder"):
            files = rules_files_in(folder)
            if any(is_game_file(p) for p in files):
                names.add(folder.name)
            names.update(f"{folder.name}/{p.stem}" for p in files)
    return sorted(names)


def resolve_ruleset(ref: str) -> Path:
    """A `.rules` path, a folder (its game file), or a bundled name (`game`, `game/variant`).

    A path is what the user named, so it may be anywhere; a bundled name is looked up only inside
    the bundled folders."""
    kind = path_kind(ref)
    if kind == "file":
        return Path(ref)
    if kind == "folder":
        return game_file_in(Path(ref))
    bundled = bundled_file(ref)
    if bundled is not None:
        return bundled
    if kind == "other":
        raise DiagnosticError([Diagnostic("E0501", f"{_short(ref)} is not a rules file",
                                          file=ref, hint="name a `.rules` file or a folder")])
    known = bundled_names()
    close = difflib.get_close_matches(ref, known, n=1)
    if close:
        hint = f"did you mean `{close[0]}`?"
    elif known:
        hint = "bundled rulesets: " + ", ".join(known)
    else:
        hint = "give the path of a `.rules` file"
    raise DiagnosticError([Diagnostic("E0501", f"no ruleset named `{_short(ref)}`: not a file, a "
                                      "folder or a bundled name", file=ref, hint=hint)])


def bundled_file(name: str) -> Path | None:
    """The file of a bundled name (`game`, `game/variant`, with or without `.rules`), if any."""
    stem = name.removesuffix(RULES_SUFFIX)
    if not BUNDLED_NAME.match(stem):
        return None
    for root in bundled_roots():
        candidate = root / stem
        if path_kind(candidate) == "folder":
            return game_file_in(candidate)
        named = candidate.with_name(candidate.name + RULES_SUFFIX)
        if path_kind(named) == "file" and is_inside(named, root):
            return named
    return None


def _short(text: str) -> str:
    return text if len(text) <= 160 else text[:80] + "..." + text[-60:]


# --------------------------------------------------------------------------- the folder tree
def ruleset_root(file: str | Path) -> Path:
    """The folder tree a rules file may name files in: the nearest folder, from the file's own
    upwards, that holds a game file (scenario files live in a game's `tests/`), else its own."""
    own = Path(os.path.realpath(file)).parent
    folder = own
    while True:
        if any(is_game_file(p) for p in rules_files_in(folder)):
            return folder
        if folder.parent == folder:
            return own
        folder = folder.parent


def is_inside(path: str | Path, root: str | Path) -> bool:
    """Whether `path`, links followed, lies within the folder `root` (links followed)."""
    real = os.path.realpath(path)
    base = os.path.realpath(root)
    return os.path.commonpath([real, base]) == base


def named_in_tree(from_file: str, ref: str, node, what: str, root: str | None = None) -> str:
    """The `.rules` file that `ref` (written in `from_file`) names, inside its ruleset's tree.

    `extends` and a scenario's `ruleset` may name only regular `.rules` files of the same folder
    tree, by a relative path: never an absolute path, a way out with `..` or a link leading out.
    `root` narrows the tree (a save names only files in its own folder tree).
    """
    def refuse(message: str, hint: str):
        raise DiagnosticError([Diagnostic("E0511", message, file=from_file, hint=hint,
                                          **span_fields(getattr(node, "span", None)))])

    shown = _short(ref)
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in ref):
        refuse(f"{what} names a path with a control character in it",
               "name a file of this ruleset by a plain relative path")
    if os.path.isabs(ref) or ref.startswith("~"):
        refuse(f"{what} names an absolute path `{shown}`",
               "name a file of this ruleset by a path relative to this file")
    if not ref.endswith(RULES_SUFFIX):
        refuse(f"{what} names `{shown}`, which is not a `.rules` file",
               'name a rules file, like "game.rules"')
    target = os.path.normpath(os.path.join(os.path.dirname(from_file), ref))
    tree = "this ruleset's folder" if root is None else "its own folder"
    root = root if root is not None else ruleset_root(from_file)
    if not is_inside(target, root):
        refuse(f"{what} names `{shown}`, which is outside {tree}",
               "rules files may only name files in their own ruleset's folder")
    kind = path_kind(target)
    if kind is None:
        raise DiagnosticError([Diagnostic(
            "E0503" if what == "`extends`" else "E0501", f"`{shown}` does not exist",
            file=from_file,
            **span_fields(getattr(node, "span", None)),
            hint="the path is relative to this file, like \"game.rules\"")])
    if kind != "file":
        refuse(f"{what} names `{shown}`, which is not a regular file",
               'name a rules file, like "game.rules"')
    return target


def scenario_ruleset(file: str, ref: str, node=None) -> str:
    """A scenario's `ruleset "..."`: a file of this ruleset's tree (relative to the scenario's
    file), else a bundled name. The one place both `check` and `test` resolve it."""
    if BUNDLED_NAME.match(ref.removesuffix(RULES_SUFFIX)):
        beside = os.path.join(os.path.dirname(file), ref)
        if path_kind(beside) != "file":
            found = bundled_file(ref)
            if found is not None:
                return str(found)
    return named_in_tree(file, ref, node, "`ruleset`")


# ---------------------------------------------------------------------------------- parsing
_PARSED: dict[str, tuple[tuple[int, int], str, A.Program]] = {}


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def file_stamps(files) -> list:
    """What tells whether files changed (modification time and size); None for a missing one."""
    return [_stamp(f) for f in files]


def parse_cached(path: str) -> tuple[str, A.Program]:
    """(source text, program) of a file, parsed once per version of the file on disk."""
    key = os.path.normpath(path)
    stamp = _stamp(key)
    hit = _PARSED.get(key)
    if hit is not None and stamp is not None and hit[0] == stamp:
        return hit[1], hit[2]
    text = read_source(path)
    program = _parse_with_disk_cache(text, path)
    if stamp is not None:
        _PARSED[key] = (stamp, text, program)
    return text, program


_PARSED_ONCE = "parsed once"  # a cache entry's value: the text's tree is kept when parsed again


def _parse_with_disk_cache(text: str, path: str) -> A.Program:
    """Parse, or take the tree this exact text produced before (grammar/cache.py).

    A tree is kept from the second parse of its text on: writing it costs about a third of the
    parse, and the text of a file being edited changes between parses, so its trees would never
    be read back. Until then the entry only says that the text was parsed."""
    from .grammar import cache

    key = cache.key_of(text + "\0" + path, "parse")  # spans and messages name the file
    found = cache.load(key)
    if isinstance(found, A.Program):
        return found
    program = parse_text(text, path)
    cache.store(key, program if found == _PARSED_ONCE else _PARSED_ONCE)
    return program


walk = A.walk


# ---------------------------------------------------------------------------------- the result
@dataclass
class Ruleset:
    """A loaded ruleset: the merged program and where every part of it was written."""

    program: A.Program
    files: dict[str, str]                 # path -> source text, for rendering diagnostics
    chain: list[str]                      # the game file first, the loaded file last
    game_title: str = ""
    variant_titles: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)   # the variants chosen on top of the file


# ---------------------------------------------------------------------------------- loading
_LOADED: dict[tuple, tuple[list, Ruleset]] = {}


def load_ruleset(path: str | Path, variants: typing.Sequence[str] = ()) -> Ruleset:
    """Load a game or variant file, merged onto the chain of files it extends, with the chosen
    `variants` (names of variant files of the same game, or paths) merged on top in order.

    The result is shared by later loads while none of its files changes: treat it as read-only.
    """
    key = (str(path), tuple(variants))
    hit = _LOADED.get(key)
    if hit is not None and hit[0] == file_stamps(hit[1].chain):
        return hit[1]
    ruleset = _merge_chain(str(path), tuple(variants))
    stamps = file_stamps(ruleset.chain)
    if None not in stamps:
        _LOADED[key] = (stamps, ruleset)
    return ruleset


def variant_file(game_file: str, loaded: str, name: str) -> str:
    """The file of a chosen variant: a `.rules` path as given, or a name looked up beside the
    file loaded and beside the game file (`open_market` is `open_market.rules` there)."""
    if name.endswith(RULES_SUFFIX) and path_kind(name) == "file":
        return name
    stem = name.removesuffix(RULES_SUFFIX)
    if BUNDLED_NAME.match(stem) and "/" not in stem:
        for folder in dict.fromkeys([os.path.dirname(loaded), os.path.dirname(game_file)]):
            candidate = os.path.join(folder, stem + RULES_SUFFIX)
            if path_kind(candidate) == "file" and is_inside(candidate, folder):
                return candidate
    known = sorted(p.stem for p in rules_files_in(Path(os.path.dirname(game_file)))
                   if p.stem != Path(game_file).stem)
    close = difflib.get_close_matches(stem, known, n=1)
    raise DiagnosticError([Diagnostic(
        "E0514", f"no variant `{_short(name)}` beside {os.path.basename(game_file)}",
        file=game_file, hint=f"did you mean `{close[0]}`?" if close else
        ("variants of this game: " + ", ".join(known) if known else
         "give the path of a variant's `.rules` file"))])


def _merge_chain(path: str, variants: tuple[str, ...] = ()) -> Ruleset:
    chain, programs, texts = _read_chain(path)
    lineage = {f: chain[:i] for i, f in enumerate(chain)}
    names: list[str] = []
    for name in variants:
        vfile = variant_file(chain[0], path, name)
        vchain, vprograms, vtexts = _read_chain(vfile)
        if os.path.realpath(vchain[0]) != os.path.realpath(chain[0]):
            raise DiagnosticError([Diagnostic(
                "E0513", f"the variant {vfile} is for {vchain[0]}, not for {chain[0]}",
                file=vfile, hint="choose variants of the game being played")])
        known = {os.path.realpath(f) for f in chain}
        for i, (f, prog, text) in enumerate(zip(vchain, vprograms, vtexts)):
            if os.path.realpath(f) not in known:
                chain.append(f)
                programs.append(prog)
                texts.append(text)
                lineage[f] = vchain[:i]
        names.append(Path(vfile).stem)
    try:
        ruleset = _merge_programs(chain, programs, texts, lineage)
    except DiagnosticError as e:
        raise DiagnosticError(e.diagnostics, {**e.sources, **dict(zip(chain, texts))})
    ruleset.variants = names
    return ruleset


def _merge_programs(chain: list[str], programs: list[A.Program], texts: list[str],
                    lineage: dict[str, list[str]] | None = None) -> Ruleset:
    root = programs[0]
    if not isinstance(root.header, A.GameHeader):
        first = chain[0]
        raise DiagnosticError([Diagnostic(
            "E0508", f"{first} is not a game: it has no `game` header", file=first, line=1,
            column=1, hint='a ruleset starts with `game "Title" { players 2 to 4 }`')])
    misplaced = misplaced_overrides(root, chain[0])
    if misplaced:
        raise DiagnosticError(misplaced)
    lineage = lineage or {f: chain[:i] for i, f in enumerate(chain)}
    merger = _Merger(list(root.declarations), chain[0], lineage)
    header = root.header
    titles = []
    for file, program in zip(chain[1:], programs[1:]):
        merger.apply(program, file)
        vh = program.header
        titles.append(vh.title)
        # One chain: each variant's title replaces the last; chosen variants add theirs.
        title = vh.title if len(lineage[file]) == len(titles) else f"{header.title} + {vh.title}"
        updates = {"title": title}
        if vh.min_players is not None:
            merger.claim(("players", None), file, vh)
            updates.update(min_players=vh.min_players, max_players=vh.max_players)
        header = header.model_copy(update=updates)
    if merger.errors:
        raise DiagnosticError(merger.errors)
    merged = A.Program.model_construct(kind="program", span=programs[-1].span, header=header,
                       declarations=merger.declarations, overrides=[],
                       scenarios=list(programs[-1].scenarios))
    return Ruleset(program=merged, files=dict(zip(chain, texts)), chain=chain,
                   game_title=root.header.title, variant_titles=titles)


def _read_chain(path: str) -> tuple[list[str], list[A.Program], list[str]]:
    """The files from the game to ``path`` (following `extends`), parsed."""
    chain: list[str] = []
    programs: list[A.Program] = []
    texts: list[str] = []
    current = path
    seen: dict[str, str] = {}
    while True:
        key = os.path.realpath(current)
        if key in seen:
            cycle = " -> ".join([*chain, current])
            raise DiagnosticError([Diagnostic(
                "E0504", f"variants extend each other in a cycle: {cycle}", file=chain[-1],
                **span_fields(programs[-1].header.span),
                hint="one file of the chain must be the game itself (`game` header)")],
                dict(zip(chain, texts)))
        seen[key] = current
        if len(chain) >= MAX_CHAIN:
            raise DiagnosticError([Diagnostic(
                "E0512", f"variants extend each other more than {MAX_CHAIN} deep", file=chain[-1],
                **span_fields(programs[-1].header.span),
                hint="extend the game or one of its variants directly")],
                dict(zip(chain, texts)))
        text, program = parse_cached(current)
        chain.append(current)
        programs.append(program)
        texts.append(text)
        header = program.header
        if not isinstance(header, A.VariantHeader):
            break
        try:
            current = named_in_tree(current, header.extends, header, "`extends`")
        except DiagnosticError as e:
            raise DiagnosticError(e.diagnostics, dict(zip(chain, texts)))
    chain.reverse()
    programs.reverse()
    texts.reverse()
    return chain, programs, texts


def misplaced_overrides(program: A.Program, file: str) -> list[Diagnostic]:
    """`override` and step patches change a game, so only a variant file may hold them."""
    return [Diagnostic("E0510", "only a variant can override or patch: this file is not a "
                       "variant", file=file, **span_fields(patch.span),
                       hint='start the file with `variant "Title" extends "game.rules" { }`, or '
                       "write the declaration without `override`")
            for patch in program.overrides]


def _decl_key(decl) -> tuple[str, str | None]:
    """(kind, name) that identifies a declaration; singletons have no name."""
    if decl.kind in SINGLETON_KINDS:
        return decl.kind, None
    if decl.kind == "component_state":  # `on Tile marks` and `on Card marks` are two states
        return decl.kind, decl.key
    return decl.kind, getattr(decl, "name", None)


def _describe(key: tuple[str, str | None]) -> str:
    kind, name = key
    if kind == "players":
        return "the player count"
    if kind == "step":
        return f"`step {name}`"
    if name is None:
        return f"`{kind}`"
    return f"`when {name}`" if kind == "event" else f"{kind} `{name}`"


class _Merger:
    """Applies variants, one file at a time, to the game's list of declarations.

    `lineage` gives each file the files it extends. A file may change what those files declared
    or changed; two variants chosen side by side (neither extends the other) may not change the
    same declaration, step or player count (E0513)."""

    def __init__(self, declarations: list, game_file: str, lineage: dict[str, list[str]]):
        self.declarations = declarations
        self.lineage = lineage
        self.errors: list[Diagnostic] = []
        self.defined_in: dict[tuple, str] = {_decl_key(d): game_file for d in declarations}
        self.changed_by: dict[tuple, tuple[str, object]] = {}

    def claim(self, key: tuple, file: str, node) -> bool:
        """Record that `file` changes `key`; False (and E0513) if a side-by-side variant did."""
        earlier = self.changed_by.get(key)
        ancestors = {os.path.realpath(f) for f in self.lineage.get(file, ())}
        if earlier is not None and os.path.realpath(earlier[0]) not in ancestors \
                and os.path.realpath(earlier[0]) != os.path.realpath(file):
            other, where = earlier
            span = getattr(where, "span", None)
            self._error("E0513", f"{_describe(key)} is changed by two chosen variants: {other} "
                        f"and {file}", file, node,
                        hint="choose one of them, or write a variant that extends one and "
                             "settles the other's change",
                        related=[Related("also changed here", file=other,
                                         line=span.line if span else None,
                                         column=span.column if span else None)])
            return False
        self.changed_by[key] = (file, node)
        return True

    def _error(self, code, message, file, node, hint=None, related=()):
        self.errors.append(Diagnostic(code, message, file=file, hint=hint, related=tuple(related),
                                      **span_fields(getattr(node, "span", None))))

    def apply(self, program: A.Program, file: str) -> None:
        for decl in program.declarations:
            self._add(decl, file)
        for patch in program.overrides:
            if isinstance(patch, A.Override):
                self._override(patch.declaration, file)
        for patch in program.overrides:
            if isinstance(patch, A.StepPatch):
                self._patch_step(patch, file)

    def _add(self, decl, file: str) -> None:
        key = _decl_key(decl)
        # Several `when` handlers of one event are allowed: each runs in turn.
        if decl.kind != "event" and not self.claim(key, file, decl):
            return
        if decl.kind != "event" and key in self.defined_in:
            first = self.defined_in[key]
            self._error("E0506", f"{_describe(key)} is already declared in {first}", file, decl,
                        hint=f"write `override` before it to replace the one in {first}",
                        related=[Related("first declared here", file=first)])
            return
        self.defined_in.setdefault(key, file)
        self.declarations.append(decl)

    def _override(self, decl, file: str) -> None:
        key = _decl_key(decl)
        if not self.claim(key, file, decl):
            return
        hits = [i for i, d in enumerate(self.declarations) if _decl_key(d) == key]
        if not hits:
            same_kind = sorted({d.name for d in self.declarations
                                if d.kind == decl.kind and getattr(d, "name", None)})
            name = key[1] or key[0]
            close = difflib.get_close_matches(name, same_kind, n=1)
            hint = (f"did you mean `{close[0]}`?" if close else
                    "remove `override` to add a new declaration")
            self._error("E0505", f"nothing to override: the game has no {_describe(key)}",
                        file, decl, hint=hint)
            return
        # An override of an event replaces all of its handlers with this one.
        self.declarations[hits[0]] = decl
        for i in reversed(hits[1:]):
            del self.declarations[i]

    def _patch_step(self, patch: A.StepPatch, file: str) -> None:
        if patch.mode == "override" and not self.claim(("step", patch.step), file, patch):
            return
        patcher = _StepPatcher(patch)
        self.declarations = [patcher.node(d) if patch.step in _steps_in(d) else d
                             for d in self.declarations]
        if patcher.hits == 0:
            names = sorted({n.name for d in self.declarations for n in walk(d)
                            if isinstance(n, A.Step)})
            close = difflib.get_close_matches(patch.step, names, n=1)
            hint = (f"did you mean `{close[0]}`?" if close else
                    "steps of the game: " + ", ".join(names) if names else
                    "the game has no `step NAME { ... }` to patch")
            self._error("E0507", f"no `step {patch.step}` in the game for "
                        f"`{patch.mode} step {patch.step}`",
                        file, patch, hint=hint)


# id(declaration) -> (a weak reference to it, the names of the steps written in it). Parsed trees
# are never changed, and a game's declarations are shared by the merges of its variants: each
# is looked through once, not once for each step patch of each merge.
_STEPS_IN: dict[int, tuple[weakref.ref, frozenset[str]]] = {}


def _steps_in(decl) -> frozenset[str]:
    """The names of the steps anywhere in `decl` (a patch passes over a declaration without its
    step: it would come back unchanged)."""
    known = _STEPS_IN.get(id(decl))
    if known is None or known[0]() is not decl:
        key = id(decl)
        names = frozenset(n.name for n in walk(decl) if isinstance(n, A.Step))
        known = _STEPS_IN[key] = (weakref.ref(decl, lambda _, key=key: _STEPS_IN.pop(key, None)),
                                  names)
    return known[1]


@lru_cache(maxsize=None)
def statement_fields(cls) -> tuple[str, ...]:
    """The fields of a node class through which a `step` can be reached (never expressions)."""
    hints = _field_types(cls)
    reaching = _classes_reaching_step()
    return tuple(name for name in cls.model_fields if _classes_in(hints[name]) & reaching)


@lru_cache(maxsize=None)
def _field_types(cls) -> dict:
    # Evaluated from the class annotations, so it does not depend on pydantic having resolved
    # the forward references yet.
    return typing.get_type_hints(cls, vars(A), include_extras=True)


def _classes_in(tp) -> set:
    """The node classes a type annotation names (in its arguments too, not in their fields)."""
    if isinstance(tp, type) and issubclass(tp, A.Node):
        return {tp}
    out: set = set()
    for arg in typing.get_args(tp):
        out |= _classes_in(arg)
    return out


@lru_cache(maxsize=1)
def _classes_reaching_step() -> frozenset:
    """`Step` and every node class whose fields lead to it, found once for all classes."""
    fields_lead_to: dict[type, set] = {}
    todo = [c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Node)]
    while todo:
        cls = todo.pop()
        if cls in fields_lead_to:
            continue
        hints = _field_types(cls)
        fields_lead_to[cls] = set().union(*(_classes_in(hints[n]) for n in cls.model_fields))
        todo.extend(fields_lead_to[cls])
    reaching = {A.Step}
    grew = True
    while grew:
        grew = False
        for cls, leads in fields_lead_to.items():
            if cls not in reaching and leads & reaching:
                reaching.add(cls)
                grew = True
    return frozenset(reaching)


class _StepPatcher:
    """Rewrites every statement list holding `step NAME`; copies the nodes on the way there."""

    def __init__(self, patch: A.StepPatch):
        self.patch = patch
        self.hits = 0

    def node(self, node):
        updates = {}
        for name in statement_fields(type(node)):
            value = getattr(node, name)
            new = self._value(value)
            if new is not value:
                updates[name] = new
        if not updates:
            return node
        return node.model_copy(update=updates)  # the copy keeps the span: its file

    def _value(self, value):
        if isinstance(value, A.Node):
            return self.node(value)
        if not isinstance(value, list) or not any(isinstance(x, A.Node) for x in value):
            return value
        out = []
        changed = False
        for item in value:
            if isinstance(item, A.Step) and item.name == self.patch.step:
                out.extend(self._patched(item))
                changed = True
                continue
            new = self._value(item)
            changed |= new is not item
            out.append(new)
        return out if changed else value

    def _patched(self, step: A.Step) -> list:
        """The statements that replace one matching step."""
        self.hits += 1
        patch = self.patch
        body = list(patch.body)
        if patch.mode == "override":
            if patch.when is not None:  # where the condition fails, the step as it was
                body = [self._guarded(body, list(self.node(step).body))]
            # The step keeps its name, so a later variant can patch it again.
            return [step.model_copy(update={"body": body})]
        if patch.when is not None:
            body = [self._guarded(body, None)]
        inner = self.node(step)  # a nested step of the same name is patched too
        return [*body, inner] if patch.mode == "before" else [inner, *body]

    def _guarded(self, body: list, otherwise: list | None) -> A.If:
        """`if when { body } else { otherwise }`, written where the patch was (its span)."""
        when = self.patch.when
        return A.If.model_construct(
            kind="if", branches=[A.Branch.model_construct(kind="branch", test=when, body=body,
                                                          span=when.span)],
            otherwise=otherwise, meta=A.Meta(), span=self.patch.span)
