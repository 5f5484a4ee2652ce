"""How much memory this process holds, so that a ruleset cannot fill the machine's memory.

The engine asks now and then while rules run (``Evaluator.tick``); the command line also sets a
hard ceiling on the address space, a little above the limit, so that even an allocation the
engine does not see coming ends with a ``MemoryError`` it turns into a diagnostic.
"""
from __future__ import annotations

import os
import sys

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
CHECK_EVERY = 1 << 14  # steps between two looks at the resident memory


def resident_bytes() -> int | None:
    """Resident memory of this process now (Linux), else its peak, else None."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        pass
    return _peak_bytes()


def _peak_bytes() -> int | None:
    """The most resident memory this process has had so far, or None where it cannot be read."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def within(limit: int) -> int | None:
    """The resident memory of this process when it may be over `limit` (None when it cannot
    be known). The peak so far is read first: a system call, where the current size reads a
    file; while the peak is under the limit, so is the current size, and that is returned."""
    peak = _peak_bytes()
    return peak if peak is not None and peak <= limit else resident_bytes()


def cap_address_space(limit: int | None) -> None:
    """A hard ceiling for the whole process: `limit` plus room for the interpreter itself."""
    if limit is None:
        return
    try:
        import resource
    except ImportError:
        return
    ceiling = limit + 1024 ** 3
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            ceiling = min(ceiling, hard)
        if soft == resource.RLIM_INFINITY or soft > ceiling:
            resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    except (ValueError, OSError):
        pass  # a platform that does not allow it keeps the engine's own checks
