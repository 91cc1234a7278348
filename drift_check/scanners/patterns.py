"""Regular expressions compiled on first use.

Compiling a pattern costs 0.1 to 1 ms, and a module's patterns were all compiled when it was
imported, although most runs use few of them (a tree without Python hooks needs none of the
Python lexer's, a tree that cites no code none of the citation patterns). A lazy pattern is
compiled the first time one of its methods is looked up; from then on its methods are the
compiled pattern's own, bound on the object.
"""

from __future__ import annotations

import base64
import re
import sys
from array import array
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _Lazy:
    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # only for what the object does not hold yet
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done when the pattern is first used."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


def preload() -> None:
    """Put the package's patterns, as `tools/regex_table.py` compiled them for this Python,
    into `re`'s own cache, where `re.compile` (and a lazy pattern's first use) finds them:
    building a pattern from its compiled code costs microseconds, compiling it from its text
    0.1 to 3 ms (14 to 36 ms of one process's run on the corpora; loading the table, 2 ms).
    Under any other Python, or one whose regular-expression engine differs, nothing is
    loaded and every pattern is compiled."""
    import _sre  # type: ignore[import-not-found]

    from drift_check.scanners import regex_table as table

    cache = getattr(re, "_cache", None)
    if (
        tuple(sys.version_info[:2]) != table.PYTHON
        or (_sre.MAGIC, _sre.CODESIZE, array("I").itemsize) != (table.MAGIC, table.CODESIZE, 4)
        or not isinstance(cache, dict)
    ):
        return
    for pattern, flags, final, written, groups, names in table.PATTERNS:
        key = (type(pattern), pattern, flags)
        if key not in cache:
            indexgroup = [None] * (groups + 1)
            for name, index in names.items():
                indexgroup[index] = name
            code = code_of(written)
            cache[key] = _sre.compile(pattern, final, code, groups, names, tuple(indexgroup))


def code_of(written: str) -> list[int]:
    """A pattern's compiled code as the table writes it (32-bit words, little-endian, in
    base 64)."""
    code = array("I", base64.b64decode(written))
    if sys.byteorder == "big":
        code.byteswap()
    return code.tolist()
