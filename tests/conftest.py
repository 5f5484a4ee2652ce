"""What every test shares: the process's address-space limit is given back after each test.

`--max-memory` (docs/language.md, "Limits") caps the process it runs in. Commands run in-process
by click's test runner cap pytest's own process, and programs a later test starts (node,
Chromium) would inherit that cap and fail to allocate."""
from __future__ import annotations

import pytest

try:
    import resource
except ImportError:  # not on every system; nothing is capped there
    resource = None


@pytest.fixture(autouse=True)
def _address_space_restored():
    if resource is None:
        yield
        return
    limits = resource.getrlimit(resource.RLIMIT_AS)
    yield
    if resource.getrlimit(resource.RLIMIT_AS) != limits:
        try:
            resource.setrlimit(resource.RLIMIT_AS, limits)
        except (ValueError, OSError):  # a platform that refuses it keeps the cap
            pass
