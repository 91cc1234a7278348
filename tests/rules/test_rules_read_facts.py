"""Rules read facts: no module under `drift_check/rules/` imports a reader of files or of raw
text, or searches the texts the scan keeps (an AST check of each module's source).

What counts as reading, precisely:
- importing (at the top or inside a function) the scanners, discovery, config loading, or a
  module that opens files or parses raw text (`READERS`);
- calling `open(...)`, a file method (`read_text`, `readlines`, ...), `Source.line_text`,
  `.splitlines()`, `.split("\\n")`, or a text search method (`.find`, `.rfind`,
  `Agent.mentions`);
- touching the texts the facts keep for the fixes: `facts.sources`, `Agent.texts`,
  `Consumer.source.text`.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "drift_check" / "rules"
PACKAGE = "drift_check.rules"

READERS = (
    "drift_check.scanners",
    "drift_check.discovery",
    "drift_check.config",
    "drift_check.yaml_loader",
    "drift_check.project",
    "drift_check.watch",
    "ahocorasick",
    "ast",
    "codecs",
    "fileinput",
    "glob",
    "io",
    "libcst",
    "markdown_it",
    "mmap",
    "os",
    "pathlib",
    "ruamel",
    "shutil",
    "subprocess",
    "tempfile",
    "tokenize",
)
CALLS = frozenset(
    {
        "find",
        "line_text",
        "mentions",
        "read",
        "read_bytes",
        "read_text",
        "readline",
        "readlines",
        "rfind",
        "splitlines",
    }
)
ATTRIBUTES = frozenset({"sources", "texts"})
NEWLINES = frozenset({"\n", "\r\n", "\r"})


def _reader(name: str) -> bool:
    return any(name == r or name.startswith(r + ".") for r in READERS)


def reads_text(source: str) -> list[str]:
    """Each place `source` (a rule module's code) reads files or raw text, as `line: what`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        where = f"{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            out += [f"{where}: import {a.name}" for a in node.names if _reader(a.name)]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), PACKAGE)
            out += [
                f"{where}: from {base} import {a.name}"
                for a in node.names
                if _reader(base) or _reader(f"{base}.{a.name}")
            ]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                out.append(f"{where}: open()")
            elif isinstance(func, ast.Attribute) and func.attr in CALLS:
                out.append(f"{where}: .{func.attr}()")
            elif isinstance(func, ast.Attribute) and func.attr == "split" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and first.value in NEWLINES:
                    out.append(f"{where}: .split({first.value!r})")
        elif isinstance(node, ast.Attribute):
            if node.attr in ATTRIBUTES:
                out.append(f"{where}: .{node.attr}")
            elif node.attr == "text" and getattr(node.value, "attr", None) == "source":
                out.append(f"{where}: .source.text")
    return sorted(out, key=lambda s: int(s.split(":", 1)[0]))


@pytest.mark.parametrize("path", sorted(RULES.glob("*.py")), ids=lambda p: p.name)
def test_rule_module_reads_facts_only(path: Path) -> None:
    importlib.import_module(PACKAGE if path.stem == "__init__" else f"{PACKAGE}.{path.stem}")
    assert reads_text(path.read_text(encoding="utf-8")) == [], path.name


@pytest.mark.parametrize(
    ("code", "found"),
    [
        ("import os", "1: import os"),
        ("from pathlib import Path", "1: from pathlib import Path"),
        ("def f():\n    import ahocorasick", "2: import ahocorasick"),
        (
            "from drift_check.scanners.markdown import scan",
            "1: from drift_check.scanners.markdown import scan",
        ),
        ("from ..scanners import build_facts", "1: from drift_check.scanners import build_facts"),
        ("from drift_check import scanners", "1: from drift_check import scanners"),
        ("open('x')", "1: open()"),
        ("s.text.splitlines()", "1: .splitlines()"),
        ("s.text.split('\\n')", "1: .split('\\n')"),
        ("source.line_text(3)", "1: .line_text()"),
        ("consumer.find('## DONE')", "1: .find()"),
        ("agent.mentions('<tag>')", "1: .mentions()"),
        ("facts.sources['a.md']", "1: .sources"),
        ("any('x' in t for t in agent.texts)", "1: .texts"),
        ("consumer.source.text", "1: .source.text"),
    ],
)
def test_each_kind_of_reading_is_caught(code: str, found: str) -> None:
    assert found in reads_text(code)


def test_facts_and_the_marker_grammar_are_not_reading() -> None:
    code = (
        "import re\nfrom drift_check.facts import Facts\n"
        "from drift_check.markers import index\nfrom . import base\n"
        "from drift_check.fixes.edits import replace_text\n"
        "x = row.line_text\ny = name.split(',')\nz = e.text\n"
    )
    assert reads_text(code) == []
