"""Which code files are a build's output, left out of the state and field-read scans."""

from __future__ import annotations

import pytest

from drift_check.scanners.files import build_output


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
    ],
)
def test_build_output(path: str, text: str | None, expected: bool) -> None:
    assert build_output(path, text) is expected
