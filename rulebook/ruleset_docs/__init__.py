"""`rulebook docs`: a readable reference of a ruleset (HTML and Markdown), built from its AST."""
