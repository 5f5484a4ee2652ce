"""`rulebook lsp`: a Language Server Protocol server for `.rules` files (docs/editors.md).

`documents` checks unsaved text, `index` resolves names, `features` answers the editor's
questions from the index, `server` speaks the protocol (pygls, the `lsp` extra).
"""
