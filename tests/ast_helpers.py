"""Comparing syntax trees in tests: the same rules, wherever they were written."""


def without_spans(data):
    """A model dump with every `span` key removed, at any depth."""
    if isinstance(data, dict):
        return {k: without_spans(v) for k, v in data.items() if k != "span"}
    if isinstance(data, list):
        return [without_spans(v) for v in data]
    return data
