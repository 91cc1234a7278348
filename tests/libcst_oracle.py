"""The libcst scanner drift-check used before it read Python with the standard `ast` (as of
commit b3d4850), kept as an oracle for tests/scanners/test_python_literals_property.py.

libcst is a test dependency only; drift-check itself never imports it.
"""

from __future__ import annotations

import ast

from drift_check.facts import InputProblem, Position, Source, StringLiteral


def libcst_literals(source: Source, problems: list[InputProblem]) -> tuple[StringLiteral, ...]:
    """Every string literal of a Python file, at its own line and column (libcst)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source.text)
    except cst.ParserSyntaxError as exc:
        line, column = exc.raw_line, exc.raw_column + 1
        try:  # libcst's position can be a line late; the compiler's parser is exact
            compile(source.text, source.path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except SyntaxError as precise:
            line, column = precise.lineno or line, precise.offset or column
        except (ValueError, RecursionError, MemoryError):
            pass
        problems.append(
            InputProblem(
                Position(source.path, line, column),
                "unreadable",
                "Python file does not parse; its string literals are not checked",
            )
        )
        return ()
    except RecursionError:
        problems.append(
            InputProblem(Position(source.path, 1, 1), "unreadable", "Python file nests too deeply")
        )
        return ()
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    found: list[StringLiteral] = []

    class Collector(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            try:
                value = node.evaluated_value
            except (ValueError, SyntaxError):
                return
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            start = positions[node].start
            found.append(StringLiteral(value, Position(source.path, start.line, start.column + 1)))

        def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
            start = positions[node].start
            found.append(
                StringLiteral(node.value, Position(source.path, start.line, start.column + 1))
            )

    wrapper.module.visit(Collector())
    return tuple(found)
