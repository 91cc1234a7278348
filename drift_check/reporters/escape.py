"""Control characters from file names and file text never reach a terminal raw."""

from __future__ import annotations

import re
from functools import lru_cache

_CONTROL = r"[\x00-\x1f\x7f-\x9f\u2028\u2029]"


def _escaped(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    if text.isprintable():
        return text  # none of `_CONTROL` is printable
    return _control().sub(_escaped, text)


@lru_cache(maxsize=1)
def _control() -> re.Pattern[str]:
    # compiled on first use: a millisecond, for a character class past U+00FF
    return re.compile(_CONTROL)
