"""Regular expressions compiled on first use.

Compiling a pattern costs 0.1 to 1 ms, and a module's patterns were all compiled when it was
imported, although most runs use few of them (a tree without Python hooks needs none of the
Python lexer's, a tree that cites no code none of the citation patterns). A lazy pattern is
compiled the first time one of its methods is looked up; from then on its methods are the
compiled pattern's own, bound on the object.
"""

from __future__ import annotations

import re
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
