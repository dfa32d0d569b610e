"""The conventions every `knap` command follows: help that states each default, one spelling per option
(the old ones kept as hidden aliases that name the new one), and `--format` + `--output` wherever a
command writes something a program may read."""

from __future__ import annotations

import argparse
import io
import sys

from engine.safe_text import console


def _worth_stating(default) -> bool:
    """A default to show: not None, not a flag's False, not an empty list, not "omitted" (0 is shown)."""
    if default is None or default is False or default is argparse.SUPPRESS:
        return False
    return not (isinstance(default, (list, tuple, str)) and not default)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, with `(default: X)` added to each option that has a default worth stating and
    whose help does not state it already (never `default: None`)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if text == argparse.SUPPRESS or "default" in text or not _worth_stating(action.default):
            return text
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            return text
        return f"{text} (default: %(default)s)"


class DeprecatedAlias(argparse.Action):
    """An old spelling kept so that scripts do not break: hidden from help and completion, it sets the
    new option's value (or its own `dest`) and says the new spelling in one line on stderr."""

    def __init__(self, option_strings, dest, instead: str, spelt: str | None = None, **kwargs):
        kwargs["help"] = argparse.SUPPRESS
        kwargs.setdefault("default", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)
        self.instead, self.spelt = instead, spelt

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"knap: `{self.spelt or option_string}` is deprecated; use `{self.instead}`", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_output(parser, formats: list[str], default: str, what: str, json_note: str = ""):
    """`--format` and `--output FILE`, spelt and explained alike by every command."""
    parser.add_argument("--format", choices=formats, default=default, help=f"how to write {what}{json_note}")
    parser.add_argument(
        "--output", "-o", metavar="FILE", help=f"write {what} to FILE (whole or not at all) instead of standard output"
    )


def text_console(output: str | None, **kwargs):
    """A console for a text report, and the buffer it writes to when the report goes to `--output`.
    Standard output that is no terminal (a pipe, a file) gets a console wide enough never to cut a
    table cell or wrap a line: the reader's pager or editor decides how to show long lines."""
    if output:
        buffer = io.StringIO()
        return console(file=buffer, width=1000, **kwargs), buffer
    screen = console(**kwargs)
    if not screen.is_terminal:
        screen = console(width=1000, **kwargs)
    return screen, None
