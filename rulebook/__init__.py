"""rulebook: a declarative language and generic engine for tabletop games."""
__version__ = "0.1.0"
