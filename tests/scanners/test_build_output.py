"""Which code files are a build's output, left out of the state and field-read scans, and
minified scripts, not read at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from drift_check.scanners.files import Limits, Repo, build_output
from drift_check.settings import resolve
from tests.conftest import write_tree


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("dist/index.js", None, True),
        ("packages/x/dist/cli.js", None, True),
        ("build/lib/states.py", None, True),
        ("vendor/app.min.js", None, True),
        ("web/app.bundle.mjs", None, True),
        ("src/dist.ts", None, False),  # a file named like the folder is a source
        ("scripts/build.py", None, False),
        ("src/route.ts", "export const A = 1;\n", False),
        ("src/route.js", "// @bun\nvar __create = Object.create;\n", True),
        ("bin/cli.mjs", "#!/usr/bin/env node\nvar __defProp = Object.defineProperty;\n", True),
        ("out/main.js", "/******/ (() => { // webpackBootstrap\n", True),
        ("src/route.js", "import x from 'y';\nvar __defProp = Object.defineProperty;\n", False),
        ("src/route.js", "\n// banner\r\n\n/******/ (() => {})();\n", True),
        # esbuild's helpers after a banner of code (its `banner` option)
        *(
            (
                "bridge/cli.cjs",
                'const url = require("url");\n"use strict";\n' + helpers,
                True,
            )
            for helpers in (
                "var __create = Object.create;\nvar __defProp = Object.defineProperty;\n",
                "var __defProp = Object.defineProperty;\r\nvar __getOwnPropDesc = Object.x;\n",
            )
        ),
        ("src/a.js", "x();\nvar __defProp = Object.defineProperty;\nvar x = 1;\n", False),
        (
            "src/a.js",
            "x;\n" * 6000 + "var __create = Object.create;\nvar __defProp = Object.a;\n",
            False,
        ),
    ],
)
def test_build_output(path: str, text: str | None, expected: bool) -> None:
    assert build_output(path, text) is expected


def test_a_script_with_a_line_past_the_limit_is_minified_and_skipped_silently(
    tmp_path: Path,
) -> None:
    long_line = "var a=" + "1+" * 50 + "1;\n"
    write_tree(
        tmp_path,
        {
            "plugin/scripts/worker.cjs": "#!/usr/bin/env node\n" + long_line,
            "plugin/scripts/notes.md": "# Notes\n\n" + long_line,
        },
    )
    limits = Limits.from_settings(resolve(({"max-line-length": 60},)))
    repo = Repo(str(tmp_path), limits)
    assert repo.read("plugin/scripts/worker.cjs") is None
    assert repo.read("plugin/scripts/notes.md") is None
    assert [(p.position.path, p.position.line) for p in repo.problems] == [
        ("plugin/scripts/notes.md", 3)
    ]


def test_a_script_over_the_size_limit_is_a_bundle_and_skipped_silently(tmp_path: Path) -> None:
    big = "var a = 1;\n" * 20
    write_tree(tmp_path, {"cli.js": big, "docs/big.md": big})
    limits = Limits.from_settings(resolve(({"max-file-bytes": 100},)))
    repo = Repo(str(tmp_path), limits)
    assert repo.read("cli.js") is None
    assert repo.read("docs/big.md") is None
    assert [p.position.path for p in repo.problems] == ["docs/big.md"]
