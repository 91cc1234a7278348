"""Write `drift_check/scanners/regex_table.py`: the package's regular expressions compiled for
the Python that runs this, so that a run of that Python loads them instead of compiling
them (`drift_check.scanners.patterns.preload`: the small corpora's runs take 3 to 7% less).

    python tools/regex_table.py [TREE ...]

It checks the bundled examples, the trees `tests/fixtures/trees` holds, generated skills,
marketplace and structured trees, and any TREE given (the table of the repository was made
with the corpora of `../shared/corpora` too), in this process, in every output format and
with `--diff`, and records each pattern drift-check's own code compiled meanwhile (from a
string; see `from_the_package`) with the code Python's own compiler makes of it, running
itself again under `PYTHONHASHSEED=0` so that two runs write the same file. A pattern
missing from the table is compiled as before; one the table holds gives the same compiled
code (tests/scanners/test_regex_table.py). Run it again after changing a pattern.
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import re
import sys
import sysconfig
import tempfile
from array import array
from collections.abc import Iterator
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TABLE = ROOT / "drift_check" / "scanners" / "regex_table.py"
FORMATS = ("text", "json", "github", "sarif", "markdown", "html")


def entry(pattern: str | bytes, flags: int) -> tuple[object, ...]:
    """What `re._compiler.compile` hands `_sre.compile` for the pattern: (the pattern, the
    flags asked for, the flags it has, its code (32-bit words, little-endian, in base 64),
    its groups less one, its group names)."""
    parsed = _parser.parse(pattern, flags)
    code = array("I", _compiler._code(parsed, flags))
    if sys.byteorder == "big":
        code.byteswap()  # written little-endian
    names = dict(parsed.state.groupdict)
    written = base64.b64encode(code.tobytes()).decode("ascii")  # cheaper to load than ints
    return (pattern, flags, flags | parsed.state.flags, written, parsed.state.groups - 1, names)


def _trees(work: Path, given: list[str]) -> list[str]:
    sys.path.insert(0, str(ROOT / "bench"))  # the generators import each other by name
    from contracts import generate_contracts  # type: ignore[import-not-found]
    from marketplace import generate_marketplace  # type: ignore[import-not-found]
    from synth import generate_skills  # type: ignore[import-not-found]

    from tests.conftest import tree_files, write_tree

    trees = [str(ROOT / "examples")]
    for base in sorted(p.stem for p in (ROOT / "tests" / "fixtures" / "trees").glob("*.yaml")):
        trees.append(str(write_tree(work / "fixture" / base, tree_files(base, None))))
    for name, make in (
        ("skills", lambda root: generate_skills(root, 30, 20, 1)),
        ("marketplace", lambda root: generate_marketplace(root, 3, 1)),
        ("contracts", lambda root: generate_contracts(root, 5, 1)),
    ):
        root = work / name
        make(root)
        trees.append(str(root))
    return trees + given


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
        contextlib.suppress(SystemExit),
    ):
        yield


def from_the_package() -> bool:
    """Whether drift-check's own code asked for the pattern being compiled (asked from a
    wrapper of `re._compiler.compile`): the first caller outside the standard library is
    in the package. Other libraries' patterns are not the table's: whether a run compiles
    them depends on what the process did before (their own caches)."""
    import drift_check

    package = str(Path(drift_check.__file__).parent)
    paths = sysconfig.get_paths()
    installed = (paths["purelib"], paths["platlib"])
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        standard = name.startswith("<") or (
            name.startswith(paths["stdlib"]) and not name.startswith(installed)
        )
        if not standard:
            return name.startswith(package)
        frame = frame.f_back
    return False


def main(given: list[str]) -> int:
    from drift_check.cli import main as drift_check

    seen: dict[tuple[type, str | bytes, int], None] = {}
    real = _compiler.compile

    def recorded(pattern, flags=0):  # type: ignore[no-untyped-def]
        if isinstance(pattern, (str, bytes)) and from_the_package():
            seen.setdefault((type(pattern), pattern, flags), None)
        return real(pattern, flags)

    _compiler.compile = recorded
    re.purge()
    os.environ["DRIFT_CHECK_JOBS"] = "1"  # every pattern compiled in this process
    with tempfile.TemporaryDirectory() as work:
        for tree in _trees(Path(work), given):
            for args in (*([f"--format={f}"] for f in FORMATS), ["--diff", "--unsafe-fixes"]):
                with _quiet():
                    drift_check([tree, *args])
    _compiler.compile = real
    import _sre  # type: ignore[import-not-found]

    entries = sorted(
        (entry(p, f) for _, p, f in seen), key=lambda e: (type(e[0]).__name__, e[0], e[1])
    )
    lines = [
        '"""Generated by tools/regex_table.py: do not edit. The regular expressions a run',
        "compiles, as Python's compiler compiles them for the version below (see",
        '`drift_check.scanners.patterns.preload`)."""',
        "",
        f"PYTHON = {tuple(sys.version_info[:2])!r}",
        f"MAGIC = {_sre.MAGIC!r}",
        f"CODESIZE = {_sre.CODESIZE!r}",
        "# (pattern, flags asked for, flags it has, code, groups less one, group names)",
        "# code: its 32-bit words, little-endian, in base 64",
        "PATTERNS = (",
        *(f"    {e!r}," for e in entries),
        ")",
        "",
    ]
    TABLE.write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(entries)} patterns written to {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":  # sets in one order: the same table each time
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    sys.exit(main(sys.argv[1:]))
