"""GitHub Actions workflow commands: one `::error file=...,line=...,col=...,title=...::message`
line per finding, escaped as the runner expects."""

from drift_check.engine import Report
from drift_check.reporters.text import display_path

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, cwd: str | None = None) -> str:
    """Paths are relative to the working directory (the checkout, in a workflow)."""
    lines = []
    for f in report.findings:
        props = [f"title={_property(f'{f.code} {f.name}')}"]
        if f.path:  # a finding about the whole tree has no file: the run's annotation
            path = display_path(report.config.root, f.path, cwd)
            props[:0] = [f"file={_property(path)}", f"line={f.line}", f"col={f.column}"]
        lines.append(f"::{_LEVEL.get(f.severity, 'error')} {','.join(props)}::{_data(f.message)}")
    return "".join(line + "\n" for line in lines)
