"""`@` imports of memory files (`scanners/memory.py`): an `@` counts only at the start of the
text or after a blank, found without a look-behind pattern."""

from __future__ import annotations

import re
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Source
from drift_check.scanners import memory
from drift_check.scanners.memory import find_imports

# the definition: `@path` where no character but a blank comes before the `@`
DEFINITION = re.compile(r"(?<!\S)@([^\s`]++)")

PIECES = st.sampled_from(["@", "a", " ", "\n", "`", "\u00a0", "\x1c", ".", "/", "x.md", "./y"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join))
@example("see @a.md and x@b.md, @@c.md, a@d.md @e.md")
@example("\u00a0@f.md")  # a blank beyond ASCII is a blank
def test_imports_are_the_definitions(text: str) -> None:
    source = Source("CLAUDE.md", text)
    with mock.patch.object(memory, "_IMPORT", DEFINITION):
        defined = find_imports(source)
    assert find_imports(source) == defined


def test_an_import_after_a_word_is_not_one() -> None:
    source = Source("CLAUDE.md", "Read @docs/a.md, not me@docs/b.md or x@@c.md.\n@d.md\n")
    assert [i.token for i in find_imports(source)] == ["docs/a.md", "d.md"]
