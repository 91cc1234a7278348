"""Reporters format findings; they never decide anything."""

from __future__ import annotations

from drift_check.engine import Report


def render(
    report: Report,
    fmt: str,
    color: bool = False,
    cwd: str | None = None,
    unsafe_fixes: bool = False,
    base: str | None = None,
) -> str:
    """`report` in `fmt`. `base`: the folder an HTML page is written to (its links to files
    are relative to it); the working folder when None."""
    if fmt == "json":
        from drift_check.reporters import json_format

        return json_format.render(report)
    if fmt == "sarif":
        from drift_check.reporters import sarif

        return sarif.render(report, cwd=cwd)
    if fmt == "html":
        from drift_check.reporters import html

        return html.render(report, base)
    if fmt == "markdown":
        from drift_check.reporters import markdown

        return markdown.render(report)
    if fmt == "github":
        from drift_check.reporters import github

        return github.render(report, cwd=cwd)
    from drift_check.reporters import text

    return text.render(report, color=color, cwd=cwd, unsafe_fixes=unsafe_fixes)


__all__ = ["render"]
