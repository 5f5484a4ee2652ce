"""The JSON Schema (Draft 2020-12) of the AST, generated from the pydantic models and committed.

``python -m rulebook.validator.schema --write`` regenerates ``ast.schema.json``; ``--check`` exits 1
when the committed file no longer matches the models (CI runs it through the tests).

Every parsed program is validated against the committed schema before anything else uses it.
Three choices keep that fast enough for ``rulebook check``:
- pydantic writes each tagged union as ``oneOf`` (plus an OpenAPI ``discriminator`` that JSON
  Schema validators ignore), so a validator fully tries every alternative at every node. The
  generator rewrites each union as one named definition that dispatches on ``kind`` with a tree
  of ``if``/``then``/``else``, so only the matching alternative is validated.
- The validated document leaves out spans and default values; spans stay in the schema as
  optional, so ``rulebook parse`` output (which has them) validates too.
- A subtree that passed once (rules repeat small expressions a lot) is not walked again.
"""
from __future__ import annotations

import argparse
import heapq
import json
import sys
import typing
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from .diagnostics import Diagnostic, span_fields

SCHEMA_FILE = Path(__file__).with_name("ast.schema.json")
DRAFT = "https://json-schema.org/draft/2020-12/schema"

CODES = {
    "E0601": "the syntax tree does not match the committed JSON Schema of the AST",
}


# ------------------------------------------------------------------------------ generation
def _union_names() -> dict[frozenset[str], str]:
    """Tag set -> alias name, for every tagged union the AST module names (Expr, Stmt, ...)."""
    from ..grammar import ast as A

    names = {}
    for alias, value in vars(A).items():
        if typing.get_origin(value) is not typing.Annotated:
            continue
        members = typing.get_args(typing.get_args(value)[0])
        tags = frozenset(typing.get_args(m.model_fields["kind"].annotation)[0] for m in members)
        names[tags] = alias
    return names


# How often each kind tends to occur in rules files; the dispatch tests frequent kinds first.
# Only a speed hint: any weights give a correct schema.
TYPICAL_WEIGHT = {
    "name": 30, "binary": 12, "int": 9, "field": 6, "index": 5, "call": 4, "quantifier": 4,
    "str": 3, "template": 3, "text_part": 3, "expr_part": 2, "set": 3, "if": 2, "change": 2,
    "let": 2, "log": 2, "named_type": 2, "state": 2, "sort_key": 2,
}


def _decide(cases: list[tuple[str, str]], leaf, unknown: dict) -> dict:
    """A tree of ``if``/``then``/``else`` on ``kind`` whose leaves are the alternatives.

    Built like a Huffman code over TYPICAL_WEIGHT, so a node costs a few cheap tests (fewest for
    the most common kinds) instead of one full attempt per alternative. ``leaf(ref)`` gives the
    schema of one alternative. Every kind is reached by a test that it is that kind; a missing or
    unknown kind fails them all and lands on ``unknown``, which reports it in one error.
    """
    heap = [(TYPICAL_WEIGHT.get(tag, 1), i, [tag], leaf(ref), False)
            for i, (tag, ref) in enumerate(cases)]
    heap.append((0, len(heap), [], unknown, True))
    heapq.heapify(heap)
    counter = len(heap)
    while len(heap) > 1:
        light = heapq.heappop(heap)
        heavy = heapq.heappop(heap)
        # Test the heavier side (its kinds then need one test fewer), unless it holds the
        # fallback: whatever fails every test must end there.
        tested, other = (light, heavy) if heavy[4] else (heavy, light)
        node = {"if": {"required": ["kind"], "properties": {"kind": {"enum": sorted(tested[2])}}},
                "then": tested[3], "else": other[3]}
        heapq.heappush(heap, (light[0] + heavy[0], counter, light[2] + heavy[2], node,
                              light[4] or heavy[4]))
        counter += 1
    return heap[0][3]


class _UnionRewriter:
    """Replaces each pydantic ``oneOf`` + ``discriminator`` by a ``$ref`` to a kind dispatcher."""

    def __init__(self):
        self.name_of = _union_names()
        self.unions: dict[str, dict[str, str]] = {}  # dispatcher name -> {tag: model $ref}

    def rewrite(self, node):
        if isinstance(node, list):
            return [self.rewrite(x) for x in node]
        if not isinstance(node, dict):
            return node
        if "discriminator" in node and "oneOf" in node:
            mapping = node["discriminator"]["mapping"]
            name = self.name_of.get(frozenset(mapping)) or "Or".join(
                ref.rsplit("/", 1)[-1] for ref in mapping.values())
            self.unions[name] = mapping
            return {"$ref": f"#/$defs/{name}"}
        return {k: self.rewrite(v) for k, v in node.items()}

    def dispatchers(self, models: dict[str, dict]) -> dict[str, dict]:
        """One definition per union; its leaves hold the model itself (saves a ``$ref`` hop)."""
        out = {}
        for name, mapping in self.unions.items():
            known_kind = {"required": ["kind"], "properties": {"kind": {"enum": sorted(mapping)}}}
            out[name] = {
                "type": "object",
                **_decide(sorted(mapping.items()), lambda ref: models[ref.rsplit("/", 1)[-1]],
                          known_kind),
            }
        return out


def generate_schema() -> dict:
    """The schema of ``Program`` as pydantic describes it, with fast tagged-union dispatch."""
    from ..grammar import ast as A

    raw = A.Program.model_json_schema()
    rewriter = _UnionRewriter()
    models = {k: rewriter.rewrite(v) for k, v in raw.pop("$defs").items()}
    top = rewriter.rewrite(raw)
    schema = {
        "$schema": DRAFT,
        "$id": "https://rulebook.invalid/ast.schema.json",
        "title": "rulebook AST",
        **{k: v for k, v in top.items() if k != "title"},
    }
    schema["$defs"] = dict(sorted({**models, **rewriter.dispatchers(models)}.items()))
    return schema


def schema_text(schema: dict) -> str:
    return json.dumps(schema, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


# ----------------------------------------------------------------------------- validation
def ast_schema() -> dict:
    """The committed schema (what ``rulebook schema`` prints and every AST is checked against)."""
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


# Subtrees up to this size (as JSON text) that passed are remembered, up to this many.
MEMO_MAX_CHARS = 1024
MEMO_MAX_ENTRIES = 50_000


@lru_cache(maxsize=1)
def _validator():
    """Draft 2020-12 validation of the committed schema, remembering subtrees that passed.

    Rules repeat small expressions (`p`, `players[1]`, `p.coins + 1`) hundreds of times, and a
    union is entered through a ``$ref``: the standard ``$ref`` keyword runs once per distinct
    (reference, subtree), and later copies of a subtree that passed are not walked again. The
    outcome is the standard one (validation depends only on the subtree); it takes about half
    the time on the shipped rulesets.
    """
    import json

    from jsonschema import Draft202012Validator, validators

    standard_ref = Draft202012Validator.VALIDATORS["$ref"]
    passed: set[tuple[str, str]] = set()

    def remembered_ref(validator, ref, instance, schema):
        key = None
        if isinstance(instance, dict):
            text = json.dumps(instance, ensure_ascii=False)
            if len(text) <= MEMO_MAX_CHARS:
                key = (ref, text)
                if key in passed:
                    return
        errors = list(standard_ref(validator, ref, instance, schema))
        if key is not None and not errors:
            if len(passed) >= MEMO_MAX_ENTRIES:
                passed.clear()
            passed.add(key)
        yield from errors

    remembering = validators.extend(Draft202012Validator, {"$ref": remembered_ref})
    return remembering(ast_schema())


def instance_of(program) -> dict:
    """The document that is validated: the AST without spans and without default values.

    Written out field by field rather than with pydantic's serializer, which assumes the values
    already fit their types: a node holding a value of the wrong type must reach the schema and
    be reported there, not break the dump.
    """
    return plain_tree(program)


def plain_tree(value, leave_out: tuple[str, ...] = ("span",)):
    """A node as plain data, without the fields named in `leave_out` nor default values."""
    return _Plain(leave_out).tree(value, 1)


_LEAF_TYPES = (str, int, bool, float, type(None))
_LISTS = (list, tuple)


class _Plain:
    """`plain_tree` of one `leave_out`; `depth` is the deepest nesting of dicts and lists made."""

    _plans: dict[tuple, dict[type, tuple]] = {}

    def __init__(self, leave_out: tuple[str, ...]):
        self.leave_out = leave_out
        self.plans = self._plans.setdefault(tuple(leave_out), {})
        self.depth = 0

    def tree(self, value, depth: int):
        cls = value.__class__
        if cls in _LEAF_TYPES:
            return value
        plan = self.plans.get(cls)
        if plan is None:
            plan = self._plan(cls)
        if depth > self.depth:
            self.depth = depth
        if plan is _LISTS:
            return [self.tree(item, depth + 1) for item in value]
        if plan is not _LEAF_TYPES:
            out = {}
            fields = value.__dict__
            for name, required, default in plan:
                item = fields.get(name)
                if not required and (item is None if default is None
                                     else _is_default(item, default)):
                    continue
                out[name] = self.tree(item, depth + 1)
            return out
        return value

    def _plan(self, cls):
        from pydantic import BaseModel

        if issubclass(cls, BaseModel):
            plan = tuple(f for f in _fields_of(cls) if f[0] not in self.leave_out)
        elif issubclass(cls, _LISTS):
            plan = _LISTS
        else:
            plan = _LEAF_TYPES
        self.plans[cls] = plan
        return plan


@lru_cache(maxsize=None)
def _fields_of(cls) -> tuple:
    """(name, required?, default) of each field of a model class, in order."""
    return tuple((name, field.is_required(), field.default)
                 for name, field in cls.model_fields.items())


def _is_default(value, default) -> bool:
    try:
        return type(value) is type(default) and bool(value == default)
    except Exception:  # a value of a foreign type that cannot even be compared is not a default
        return False


def _node_at(program, path) -> object:
    """The deepest AST node with a span along a JSON path into the dumped program."""
    node, best = program, program
    for step in path:
        try:
            node = node[step] if isinstance(step, int) else getattr(node, step)
        except (AttributeError, IndexError, KeyError, TypeError):
            break
        if getattr(node, "span", None) is not None:
            best = node
    return best


MAX_REPORTED = 10
# jsonschema recurses about ten Python frames per level of the tree; the deepest trees the parser
# accepts (its nesting limits) need about 2,000 (measured: a chain of 117 `not`s).
VALIDATION_RECURSION_LIMIT = 4000


@contextmanager
def _recursion_limit(at_least: int):
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, at_least))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


@lru_cache(maxsize=1)
def _fast_validator():
    """The same committed schema, compiled by jsonschema-rs: it only says whether a document
    conforms, a hundred times faster than walking it in Python. A document that does not conform
    (a bug in rulebook, or a hand-written tree) is then walked by ``jsonschema`` for errors that
    name the failing part."""
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(ast_schema())


# jsonschema-rs recurses on the machine stack: a document nested deeper than this (none that
# the parser builds; only hand-made ones) is walked by jsonschema alone, which stops cleanly.
FAST_MAX_DEPTH = 1000


def _nested_deeper_than(document, limit: int) -> bool:
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return False


def validate_instance(instance) -> list:
    """jsonschema errors for a plain JSON document (such as ``rulebook parse`` output)."""
    return _errors(instance, _nested_deeper_than(instance, FAST_MAX_DEPTH))


def _errors(instance, too_deep: bool) -> list:
    try:
        if not too_deep and _fast_validator().is_valid(instance):
            return []
    except (ValueError, RecursionError):  # a document the fast path cannot read: walk it
        pass
    return sorted(_validator().iter_errors(instance), key=lambda e: list(map(str, e.path)))


def validate_program(program, file: str) -> list[Diagnostic]:
    """Check a parsed program against the committed schema; an empty list means it conforms."""
    try:
        with _recursion_limit(VALIDATION_RECURSION_LIMIT):
            plain = _Plain(("span",))
            instance = plain.tree(program, 1)
            errors = _errors(instance, plain.depth > FAST_MAX_DEPTH)
    except RecursionError:
        return [Diagnostic("E0601", "the syntax tree is nested too deeply to validate", file=file,
                           line=1, column=1, hint="split deep expressions with `let` or `define`")]
    out = []
    for err in errors[:MAX_REPORTED]:
        while err.context:  # "not valid under any of the given schemas": say which part failed
            err = max(err.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
        where = "/".join(str(p) for p in err.absolute_path) or "the root"
        node = _node_at(program, err.absolute_path)
        out.append(Diagnostic(
            "E0601", f"the syntax tree does not match the AST schema at {where}: {err.message}",
            file=file, hint="the parser and validator/ast.schema.json disagree; regenerate it with "
            "`python -m rulebook.validator.schema --write` and report this as a bug",
            **span_fields(getattr(node, "span", None))))
    return out


# ------------------------------------------------------------------------------------- CLI
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rulebook.validator.schema",
                                     description="Generate or check validator/ast.schema.json.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true", help="exit 1 if the committed file is stale")
    group.add_argument("--write", action="store_true", help="regenerate the committed file")
    args = parser.parse_args(argv)
    fresh = schema_text(generate_schema())
    if args.write:
        SCHEMA_FILE.write_text(fresh, encoding="utf-8")
        print(f"wrote {SCHEMA_FILE}")
        return 0
    current = SCHEMA_FILE.read_text(encoding="utf-8") if SCHEMA_FILE.exists() else ""
    if current != fresh:
        print(f"{SCHEMA_FILE} is stale: run `python -m rulebook.validator.schema --write`",
              file=sys.stderr)
        return 1
    print(f"{SCHEMA_FILE} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
