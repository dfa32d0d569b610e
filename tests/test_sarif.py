"""`knap lint --format sarif` writes valid SARIF 2.1.0 whose artifact URIs are RFC 3986 URIs: relative ones
percent-encoded against `%SRCROOT%` (the working folder, a `file://` URI ending in `/`), files outside the
working folder as absolute `file://` URIs (sarif-multitool's SARIF1002 and SARIF1004)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import jsonschema
import pytest
from conftest import REPO, write_tree

SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

# RFC 3986, appendix A, without IP literals (knap writes none)
_UNRESERVED, _PCT, _SUB = r"[A-Za-z0-9\-._~]", r"%[0-9A-Fa-f]{2}", r"[!$&'()*+,;=]"
_PCHAR = f"(?:{_UNRESERVED}|{_PCT}|{_SUB}|[:@])"
_SEGMENT, _SEGMENT_NZ = f"{_PCHAR}*", f"{_PCHAR}+"
_SEGMENT_NZ_NC = f"(?:{_UNRESERVED}|{_PCT}|{_SUB}|@)+"
_PATH_ABEMPTY = f"(?:/{_SEGMENT})*"
_PATH_ABSOLUTE = f"/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"
_AUTHORITY = f"(?:(?:{_UNRESERVED}|{_PCT}|{_SUB}|:)*@)?(?:{_UNRESERVED}|{_PCT}|{_SUB})*(?::[0-9]*)?"
_QUERY_OR_FRAGMENT = f"(?:\\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?"
_URI = re.compile(
    f"[A-Za-z][A-Za-z0-9+\\-.]*:(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|"
    f"{_SEGMENT_NZ}(?:/{_SEGMENT})*)?{_QUERY_OR_FRAGMENT}"
)
_RELATIVE_REF = re.compile(
    f"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*)?{_QUERY_OR_FRAGMENT}"
)

FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("uri")
def _is_uri(value) -> bool:
    return not isinstance(value, str) or bool(_URI.fullmatch(value))


@FORMATS.checks("uri-reference")
def _is_uri_reference(value) -> bool:
    return not isinstance(value, str) or bool(_URI.fullmatch(value) or _RELATIVE_REF.fullmatch(value))


def test_the_uri_checks_refuse_what_sarif_multitool_refuses():
    """The checks above are the strict ones the schema's `format` asks for (jsonschema alone does not check
    them without optional packages)."""
    assert _is_uri("file:///tmp/a%20b/%C3%A9.yaml") and _is_uri_reference("pack/with%20space.yaml")
    for bad in ("pack/with space.yaml", "pack/é.yaml", "pack/100%.yaml", "a\\b", "x\x1b.yaml"):
        assert not _is_uri_reference(bad), bad
    assert not _is_uri("/tmp/pack.yaml") and not _is_uri("pack.yaml")


NAMES = ["with space.yaml", "hash#1.yaml", "pct%41.yaml", "é.yaml"]


@pytest.fixture
def odd_names(tmp_path):
    """A pack whose files have names a URI must escape, each with one finding."""
    files = {"pack.yaml": "kind: pack\nid: odd\nname: Odd\nversion: 1.0.0\nplayers: {min: 1, max: 2}\n"}
    for n, name in enumerate(NAMES):
        files[name] = f"kind: zone\nid: z{n}\nname: Z\ntype: deck\ncolour: red\n"
    return write_tree(tmp_path / "work" / "odd", files)


def _sarif(knap, target):
    """Lint `target` as SARIF, validate the log strictly, return its run and artifact locations."""
    code, out, err = knap("lint", target, "--no-cache", "--format", "sarif")
    assert code == 1, err
    log = json.loads(out)
    errors = [
        f"{list(e.path)}: {e.message}"
        for e in jsonschema.Draft4Validator(SCHEMA, format_checker=FORMATS).iter_errors(log)
    ]
    assert not errors, "\n".join(errors[:10])
    return _locations(log)


def _locations(log):
    (run,) = log["runs"]
    return run, [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]


def _file_of(uri: str) -> Path:
    parts = urlsplit(uri)
    assert parts.scheme == "file" and not parts.query and not parts.fragment, uri
    return Path(unquote(parts.path))


def test_relative_uris_are_percent_encoded_against_srcroot(odd_names, knap, monkeypatch):
    monkeypatch.chdir(odd_names.parent)
    run, locations = _sarif(knap, "odd")
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert _is_uri(base) and base.startswith("file:///") and base.endswith("/")
    assert _file_of(base) == Path.cwd()
    found = set()
    for location in locations:
        assert location["uriBaseId"] == "%SRCROOT%"  # SARIF1004: a relative URI has a base
        assert _RELATIVE_REF.fullmatch(location["uri"]) and not location["uri"].startswith("/"), location
        found.add(_file_of(urljoin(base, location["uri"])))  # SARIF1002: it resolves to the file
    assert found == {odd_names / name for name in NAMES}


def test_files_outside_the_working_folder_are_absolute_file_uris(odd_names, knap, monkeypatch):
    inside = odd_names.parent / "sub"
    inside.mkdir()
    monkeypatch.chdir(inside)
    _, locations = _sarif(knap, "../odd")
    for location in locations:
        assert "uriBaseId" not in location, location  # SARIF1004: absolute, so no base
        assert _URI.fullmatch(location["uri"]) and location["uri"].startswith("file:///"), location
    assert {_file_of(loc["uri"]) for loc in locations} == {odd_names / name for name in NAMES}
