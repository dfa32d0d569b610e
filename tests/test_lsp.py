"""`knap lsp` (issue 18), driven over stdio as an editor drives it: a copy of the Cro-Magnon pack is opened,
edited, completed, hovered, navigated, renamed and fixed; malformed requests get errors, never a crash."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_client import Client, LspError, position_of

CONTENT = Path(__file__).resolve().parents[1] / "content"
INVALID_PARAMS = -32602


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(CONTENT / "cro-magnon", tmp_path / "cro-magnon")
    return tmp_path


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = _copy(tmp_path_factory.mktemp("lsp"))
    client = Client(root)
    client.open(root / "cro-magnon" / "rules" / "actions.yaml")
    client.wait_for("knap/checked")
    yield root, client
    client.close()


def _edit(client: Client, path: Path, text: str) -> list:
    """Send the whole new text and wait until the pack's full check has published."""
    client.drain()
    client.change(path, text)
    client.wait_for("knap/checked")
    return client.diagnostics.get(path.as_uri(), [])


def test_an_error_typed_in_an_effect_text_is_published_at_its_range(workspace):
    root, client = workspace
    path = root / "cro-magnon" / "rules" / "actions.yaml"
    text = path.read_text(encoding="utf-8")
    bad = text.replace("  draw 1 from explored as found", "  draww 1 from explored as found", 1)
    client.drain()
    client.change(path, bad)
    _, quick = client.wait_for("textDocument/publishDiagnostics", uri=path.as_uri())
    line, character = position_of(bad, "draww")
    expected = {"start": {"line": line, "character": character}, "end": {"line": line, "character": character + 5}}
    found = [(d["code"], d["range"]) for d in quick["diagnostics"]]
    assert found[0] == ("D002", expected)  # then the name `as found` no longer binds: its uses are unknown too
    client.wait_for("knap/checked")
    assert [(d["code"], d["range"]) for d in client.diagnostics[path.as_uri()]] == found
    assert _edit(client, path, text) == []  # fixed again: the finding is withdrawn


def test_the_findings_are_those_of_knap_lint(workspace, tmp_path):
    """Same codes and positions as `knap lint --format json` on the same files (a schema error, an unknown
    verb, an unknown card in a cost, in three files)."""
    root, client = workspace
    pack = root / "cro-magnon"
    edits = {
        pack / "rules" / "actions.yaml": ("  draw 1 from explored as found", "  drawz 1 from explored as found"),
        pack / "cards" / "weapons.yaml": ("cost: [wood, flint]", "cost: [wod, flint]"),
        pack / "zones.yaml": ("shuffled: true", "shuffled: maybe"),
    }
    originals = {path: path.read_text(encoding="utf-8") for path in edits}
    copy = _copy(tmp_path) / "cro-magnon"
    client.drain()
    for path, (old, new) in edits.items():
        text = originals[path].replace(old, new, 1)
        (copy / path.relative_to(pack)).write_text(text, encoding="utf-8")
        client.open(path, text) if path.name != "actions.yaml" else client.change(path, text)
    client.wait_for("knap/checked")
    expected = _linted(copy, tmp_path)
    assert {code for *_, code in expected} >= {"D002", "R001", "S003"}
    assert _served(client, root) == expected
    for path, text in originals.items():
        client.change(path, text, version=9)
    client.wait_for("knap/checked")


def _served(client: Client, under: Path) -> set:
    return {
        (
            Path(uri.removeprefix("file://")).relative_to(under).as_posix(),
            d["range"]["start"]["line"] + 1,
            d["range"]["start"]["character"] + 1,
            d["code"],
        )
        for uri, diags in client.diagnostics.items()
        for d in diags
    }


def _linted(pack: Path, under: Path) -> set:
    done = subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", "lint", "--format", "json", "--no-cache", str(pack)],
        capture_output=True,
        text=True,
        cwd=under,
        check=False,
    )
    return {
        ((under / d["file"]).resolve().relative_to(under.resolve()).as_posix(), d["line"], d["col"], d["code"])
        for d in json.loads(done.stdout)["diagnostics"]
    }


def test_a_variant_is_checked_on_top_of_its_base_as_knap_lint_does(tmp_path):
    """A pack that extends another: its findings (here a zone it does not know, in its multi-document events
    file) are lint's, and the base's clean files stay clean."""
    root = _copy(tmp_path)
    shutil.copytree(CONTENT / "cro-magnon-solo", root / "cro-magnon-solo")
    events = root / "cro-magnon-solo" / "cards" / "events.yaml"
    text = events.read_text(encoding="utf-8").replace("[forest, mountains]", "[forest, mountainz]", 1)
    events.write_text(text, encoding="utf-8")
    client = Client(root)
    try:
        client.open(events)
        client.wait_for("knap/checked")
        served = _served(client, root)
    finally:
        client.close()
    expected = _linted(root / "cro-magnon-solo", root)
    assert {code for *_, code in expected} == {"D002"}
    assert served == expected


def test_completion_offers_verbs_and_card_ids(workspace):
    root, client = workspace
    path = root / "cro-magnon" / "rules" / "actions.yaml"
    text = path.read_text(encoding="utf-8")
    typed = text.replace("  draw 1 from explored as found", "  dra 1 from explored as found", 1)
    client.change(path, typed)
    line, character = position_of(typed, "  dra 1")
    items = client.request("textDocument/completion", client.at(path, line, character + 5))["items"]
    assert "draw" in {item["label"] for item in items}
    assert all(item["label"].startswith("dra") for item in items)
    draw = next(item for item in items if item["label"] == "draw")
    assert draw["detail"].startswith("verb: draw")
    # a card id inside a text, and in a cost list (a field of card references)
    typed = text.replace("with [spoils, spoils_joker]", "with [spo, spoils_joker]", 1)
    client.change(path, typed)
    line, character = position_of(typed, "[spo,")
    labels = {
        i["label"] for i in client.request("textDocument/completion", client.at(path, line, character + 4))["items"]
    }
    assert "spoils" in labels
    weapons = root / "cro-magnon" / "cards" / "weapons.yaml"
    cards = weapons.read_text(encoding="utf-8").replace("cost: [wood, flint]", "cost: [wo, flint]", 1)
    client.open(weapons, cards)
    line, character = position_of(cards, "[wo,")
    items = client.request("textDocument/completion", client.at(weapons, line, character + 3))["items"]
    assert {"wood", "wolf"} <= {i["label"] for i in items}
    assert "draw" not in {i["label"] for i in items}  # not a text: ids only
    _edit(client, path, text)
    _edit(client, weapons, weapons.read_text(encoding="utf-8"))


def test_hover_shows_a_functions_signature_and_a_cards_summary(workspace):
    root, client = workspace
    path = root / "cro-magnon" / "rules" / "actions.yaml"
    text = path.read_text(encoding="utf-8")
    line, character = position_of(text, "count(")
    hover = client.request("textDocument/hover", client.at(path, line, character + 2))
    assert "count(" in hover["contents"]["value"] and "-> number" in hover["contents"]["value"]
    line, character = position_of(text, "spoils, spoils_joker")
    hover = client.request("textDocument/hover", client.at(path, line, character + 1))["contents"]["value"]
    assert "**spoils** (card" in hover and "spoils.yaml" in hover and "provenance" in hover


def test_go_to_a_cards_definition_from_an_effect_in_another_file(workspace):
    root, client = workspace
    path = root / "cro-magnon" / "rules" / "actions.yaml"
    text = path.read_text(encoding="utf-8")
    line, character = position_of(text, "spoils, spoils_joker")
    [location] = client.request("textDocument/definition", client.at(path, line, character + 2))
    cards = root / "cro-magnon" / "cards" / "spoils.yaml"
    assert location["uri"] == cards.as_uri()
    at_line, at_char = position_of(cards.read_text(encoding="utf-8"), "id: spoils")
    assert location["range"]["start"] == {"line": at_line, "character": at_char + 4}


def test_rename_a_zone_across_files_keeps_comments_and_lints_clean(tmp_path):
    root = _copy(tmp_path)
    pack = root / "cro-magnon"
    client = Client(root)
    try:
        zones = pack / "zones.yaml"
        client.open(zones)
        client.wait_for("knap/checked")
        text = zones.read_text(encoding="utf-8")
        line, character = position_of(text, "id: forest\n")
        references = client.request(
            "textDocument/references",
            {**client.at(zones, line, character + 5), "context": {"includeDeclaration": True}},
        )
        files = {Path(r["uri"].removeprefix("file://")).name for r in references}
        assert {"zones.yaml", "pack.yaml", "terrain.yaml", "components.yaml"} <= files
        edit = client.request("textDocument/rename", {**client.at(zones, line, character + 5), "newName": "woods"})
        with pytest.raises(LspError):
            client.request("textDocument/rename", {**client.at(zones, line, character + 5), "newName": "river"})
    finally:
        client.close()
    before = {p: p.read_text(encoding="utf-8") for p in pack.rglob("*.yaml")}
    for uri, edits in edit["changes"].items():
        path = Path(uri.removeprefix("file://"))
        lines = path.read_text(encoding="utf-8").split("\n")
        for e in sorted(
            edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True
        ):
            start, end = e["range"]["start"], e["range"]["end"]
            assert start["line"] == end["line"]
            row = lines[start["line"]]
            assert row[start["character"] : end["character"]] == "forest"
            lines[start["line"]] = row[: start["character"]] + e["newText"] + row[end["character"] :]
        path.write_text("\n".join(lines), encoding="utf-8")
    for path, old in before.items():
        new = path.read_text(encoding="utf-8")
        assert new.count("\n") == old.count("\n")
        assert [x for x in new.split("\n") if x.lstrip().startswith("#")] == [
            x for x in old.split("\n") if x.lstrip().startswith("#")
        ]  # comments untouched, even those naming the forest
    assert "id: woods" in (pack / "zones.yaml").read_text(encoding="utf-8")
    assert "forest_discard" in (pack / "zones.yaml").read_text(encoding="utf-8")  # a longer id is another id
    linted = subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", "lint", "--no-cache", str(pack)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert linted.returncode == 0, linted.stdout


def test_a_lint_fix_is_offered_as_a_quick_fix(workspace):
    root, client = workspace
    weapons = root / "cro-magnon" / "cards" / "weapons.yaml"
    text = weapons.read_text(encoding="utf-8")
    bad = text.replace("cost: [wood, flint]", "cost: [wod, flint]", 1)
    client.open(weapons, bad)
    diags = _edit(client, weapons, bad)
    [finding] = [d for d in diags if d["code"] == "R001"]
    actions = client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": weapons.as_uri()}, "range": finding["range"], "context": {"diagnostics": [finding]}},
    )
    [action] = actions
    assert action["kind"] == "quickfix"
    [change] = action["edit"]["changes"][weapons.as_uri()]
    assert change["newText"] == "wood" and change["range"] == finding["range"]
    _edit(client, weapons, text)


def test_malformed_requests_get_errors_and_the_server_lives_on(workspace, tmp_path):
    root, client = workspace
    path = root / "cro-magnon" / "rules" / "actions.yaml"
    outside = tmp_path / "secret.yaml"
    outside.write_text("kind: card\nid: secret\n", encoding="utf-8")
    cases = [
        client.at(path, 10_000, 0),  # a line past the end
        client.at(path, 0, 10_000),  # a character past the end of the line
        client.at(path, -1, 0),
        client.at(root / "cro-magnon" / "nowhere.yaml", 0, 0),  # unknown
        client.at(outside, 0, 0),  # outside the workspace
        {"textDocument": {"uri": "http://example.invalid/x.yaml"}, "position": {"line": 0, "character": 0}},
    ]
    for params in cases:
        with pytest.raises(LspError) as error:
            client.request("textDocument/hover", params)
        assert error.value.code in (INVALID_PARAMS, -32603)
    client.open(outside)  # a notification about a file outside: ignored, nothing read
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": path.as_uri(), "version": 50},
            "contentChanges": [
                {"range": {"start": {"line": 99999, "character": 0}, "end": {"line": 4, "character": 3}}, "text": "x"}
            ],
        },
    )
    client.send_raw(b"Content-Length: 12\r\n\r\n{not json!!}")
    with pytest.raises(LspError):
        client.request("textDocument/definition", client.at(outside, 0, 0))
    _, logged = client.wait_for("window/logMessage")  # the file outside, then the change off the document
    assert "outside the workspace" in logged["message"]
    _, logged = client.wait_for("window/logMessage")
    assert "outside the document" in logged["message"]
    text = path.read_text(encoding="utf-8")  # the change was refused whole: the text is as it was
    line, character = position_of(text, "count(")
    assert client.request("textDocument/hover", client.at(path, line, character + 1)) is not None
    assert client.process.poll() is None


def test_knap_lsp_starts_the_server_and_says_what_it_serves(tmp_path):
    root = _copy(tmp_path)
    client = Client(root, command=[sys.executable, "-m", "engine.commands.cli", "lsp"])
    try:
        capabilities = client.initialized["capabilities"]
        for provider in ("completionProvider", "hoverProvider", "definitionProvider", "referencesProvider"):
            assert capabilities.get(provider), provider
        assert capabilities["renameProvider"] and capabilities["codeActionProvider"]
    finally:
        client.close()
    assert client.process.returncode == 0


def test_yaml_completion_offers_the_schemas_properties_and_values_and_card_fields(workspace):
    root, client = workspace
    zones = root / "cro-magnon" / "zones.yaml"
    text = zones.read_text(encoding="utf-8")
    typed = text.replace("shuffled: true\n", "shuffled: true\nvisibility: \n", 1).replace("visibility: hidden\n", "", 1)
    client.open(zones, typed)
    line, character = position_of(typed, "visibility: \n")
    labels = {i["label"] for i in client.request("textDocument/completion", client.at(zones, line, 12))["items"]}
    assert {"hidden", "public"} <= labels
    typed = text.replace("shuffled: true\n", "shuffled: true\nre\n", 1)
    client.change(zones, typed)
    line, _ = position_of(typed, "\nre\n")
    labels = {i["label"] for i in client.request("textDocument/completion", client.at(zones, line + 1, 2))["items"]}
    assert "refill_from" in labels and "hidden" not in labels
    actions = root / "cro-magnon" / "rules" / "actions.yaml"
    source = actions.read_text(encoding="utf-8")
    typed = source.replace("  draw 1 from explored as found", "  gain card. vp", 1)
    client.change(actions, typed)
    line, character = position_of(typed, "card. vp")
    labels = {
        i["label"] for i in client.request("textDocument/completion", client.at(actions, line, character + 5))["items"]
    }
    assert {"vp", "cost", "requires"} <= labels and "draw" not in labels
    _edit(client, zones, text)
    _edit(client, actions, source)


def test_ids_are_found_across_a_pack_and_the_pack_it_extends(tmp_path):
    """A variant names its base's zone: its definition is in the base, and its uses are in both packs."""
    root = _copy(tmp_path)
    shutil.copytree(CONTENT / "cro-magnon-solo", root / "cro-magnon-solo")
    events = root / "cro-magnon-solo" / "cards" / "events.yaml"
    client = Client(root)
    try:
        client.open(events)
        client.wait_for("knap/checked")
        text = events.read_text(encoding="utf-8")
        line, character = position_of(text, "[forest, mountains]")
        [location] = client.request("textDocument/definition", client.at(events, line, character + 2))
        assert location["uri"] == (root / "cro-magnon" / "zones.yaml").as_uri()
        references = client.request(
            "textDocument/references",
            {**client.at(events, line, character + 2), "context": {"includeDeclaration": True}},
        )
        uris = {r["uri"] for r in references}
        assert events.as_uri() in uris and (root / "cro-magnon" / "cards" / "terrain.yaml").as_uri() in uris
        manifest = root / "cro-magnon-solo" / "pack.yaml"
        line, character = position_of(manifest.read_text(encoding="utf-8"), "extends: [cro_magnon]")
        items = client.request("textDocument/completion", client.at(manifest, line, character + 13))["items"]
        assert [i["label"] for i in items] == ["cro_magnon"]  # the packs beside it, by id
        line, character = position_of(manifest.read_text(encoding="utf-8"), "  attack:")
        edit = client.request("textDocument/rename", {**client.at(manifest, line, character + 3), "newName": "assault"})
        assert manifest.as_uri() in edit["changes"]  # what the variant removes follows the rename
        assert (root / "cro-magnon" / "rules" / "actions.yaml").as_uri() in edit["changes"]
    finally:
        client.close()


def test_nothing_outside_the_workspace_is_read_even_through_a_link(tmp_path):
    """A card file linked from outside the workspace root is neither read nor offered; requests about it fail."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.yaml"
    secret.write_text("kind: card\nid: secret_card\nname: Secret\ntype: resource\n", encoding="utf-8")
    root = _copy(tmp_path / "root")
    link = root / "cro-magnon" / "cards" / "linked.yaml"
    link.symlink_to(secret)
    client = Client(root)
    try:
        actions = root / "cro-magnon" / "rules" / "actions.yaml"
        text = actions.read_text(encoding="utf-8")
        typed = text.replace("  draw 1 from explored as found", "  gain secr", 1)
        client.open(actions, typed)
        client.wait_for("knap/checked")
        line, character = position_of(typed, "gain secr")
        labels = {
            i["label"]
            for i in client.request("textDocument/completion", client.at(actions, line, character + 9))["items"]
        }
        assert "secret_card" not in labels
        for method, extra in [
            ("textDocument/hover", {}),
            ("textDocument/definition", {}),
            ("textDocument/completion", {}),
            ("textDocument/references", {"context": {"includeDeclaration": True}}),
            ("textDocument/rename", {"newName": "other"}),
        ]:
            with pytest.raises(LspError) as error:
                client.request(method, {**client.at(link, 1, 5), **extra})
            assert error.value.code == INVALID_PARAMS
        with pytest.raises(LspError):
            client.request(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": link.as_uri()},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                    "context": {"diagnostics": []},
                },
            )
        assert client.process.poll() is None
    finally:
        client.close()


# ---------------------------------------------------------------------------- what editors expect of a server
TUSK = "\U0001f9a3"  # outside the Basic Multilingual Plane: two UTF-16 code units, one code point


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_positions_after_an_emoji_are_counted_in_utf16_code_units(workspace):
    """A client that names no encoding counts UTF-16 code units (the protocol's default): a finding and a
    completion after an emoji on the same line are where the client's own count puts them."""
    root, client = workspace
    assert client.initialized["capabilities"]["positionEncoding"] == "utf-16"
    weapons = root / "cro-magnon" / "cards" / "weapons.yaml"
    text = weapons.read_text(encoding="utf-8")
    bad = text.replace("stats: {vp: 1}", f'stats: {{vp: 1}}\neffect: "log \\"{TUSK}\\"\\ngainn 1 vp"', 1)
    client.open(weapons, text)
    diags = _edit(client, weapons, bad)
    line, character = position_of(bad, "gainn")
    row = bad.split("\n")[line]
    assert _units(row[:character]) == character + 1  # the emoji counts twice
    start = {"line": line, "character": _units(row[:character])}
    end = {"line": line, "character": _units(row[:character]) + 5}
    assert {"start": start, "end": end} in [d["range"] for d in diags if d["code"] == "D002"]
    typed = bad.replace('\\ngainn 1 vp"', ' gai count"', 1)
    client.change(weapons, typed, version=3)
    line, character = position_of(typed, " gai count")
    row = typed.split("\n")[line]
    items = client.request("textDocument/completion", client.at(weapons, line, _units(row[: character + 4])))["items"]
    assert "gain" in {i["label"] for i in items} and all(i["label"].startswith("gai") for i in items)
    hover = client.request("textDocument/hover", client.at(weapons, line, _units(row[: character + 6])))
    assert "count(" in hover["contents"]["value"]
    assert hover["range"]["start"]["character"] == _units(row[: character + 5])
    _edit(client, weapons, text)


def test_files_changed_on_disk_are_read_again_and_their_packs_checked(tmp_path):
    """A client that can register watchers is asked to watch the YAML files; a closed file changed on disk
    (a checkout) is read again and its pack checked, a new file is checked, a deleted one's findings are
    withdrawn, and an open file stays as the editor holds it. This client offers UTF-32: positions are then
    code points."""
    root = _copy(tmp_path)
    pack = root / "cro-magnon"
    capabilities = {
        "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
        "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]},
    }
    client = Client(root, capabilities=capabilities)
    try:
        assert client.initialized["capabilities"]["positionEncoding"] == "utf-32"
        _, registration = client.wait_for("client/registerCapability")
        [watcher] = registration["registrations"]
        assert watcher["method"] == "workspace/didChangeWatchedFiles"
        assert watcher["registerOptions"]["watchers"][0]["globPattern"] == "**/*.{yaml,yml}"
        zones = pack / "zones.yaml"
        client.open(zones)
        client.wait_for("knap/checked")
        weapons, extra = pack / "cards" / "weapons.yaml", pack / "cards" / "extra.yaml"
        text = weapons.read_text(encoding="utf-8")
        broken = text.replace("stats: {vp: 1}", f'stats: {{vp: 1}}\neffect: "log \\"{TUSK}\\"\\ngainn 1 vp"', 1)
        weapons.write_text(broken, encoding="utf-8")
        extra.write_text("kind: card\nid: extra\nname: Extra\ntype: resource\neffect: gainn 1 wood\n", encoding="utf-8")
        zones.write_text(zones.read_text(encoding="utf-8").replace("shuffled: true", "shuffled: maybe", 1))
        client.drain()
        client.notify(
            "workspace/didChangeWatchedFiles",
            {
                "changes": [
                    {"uri": weapons.as_uri(), "type": 2},
                    {"uri": extra.as_uri(), "type": 1},
                    {"uri": zones.as_uri(), "type": 2},
                ]
            },
        )
        client.wait_for("knap/checked")
        line, character = position_of(broken, "gainn")
        assert ("D002", line, character) in {
            (d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
            for d in client.diagnostics[weapons.as_uri()]
        }  # in code points: the emoji before it counts once
        assert "D002" in {d["code"] for d in client.diagnostics[extra.as_uri()]}
        assert client.diagnostics.get(zones.as_uri(), []) == []  # open: the editor's text, not the disk's
        extra.unlink()
        weapons.write_text(text, encoding="utf-8")
        client.drain()
        client.notify(
            "workspace/didChangeWatchedFiles",
            {"changes": [{"uri": extra.as_uri(), "type": 3}, {"uri": weapons.as_uri(), "type": 2}]},
        )
        client.wait_for("knap/checked")
        assert client.diagnostics[extra.as_uri()] == [] and client.diagnostics[weapons.as_uri()] == []
    finally:
        client.close()


def test_a_body_that_is_not_json_gets_a_parse_error_and_the_server_reads_on(workspace):
    """JSON-RPC 2.0: a body that does not parse gets a Parse error (-32700) with a null id; JSON that is no
    JSON-RPC message gets an Invalid Request (-32600)."""
    root, client = workspace
    client.unnamed.clear()  # what earlier tests' bodies were answered
    for body in (b"{not json!!}", b'{"jsonrpc": "2.0", "id": 1, "method": ', b"\xff\xfe{}"):
        client.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        answer = client.response(None)
        assert answer["id"] is None and answer["error"]["code"] == -32700
    client.send_raw(b"Content-Length: 6\r\n\r\n[1, 2]")
    assert client.response(None)["error"]["code"] == -32600
    path = root / "cro-magnon" / "rules" / "actions.yaml"
    line, character = position_of(path.read_text(encoding="utf-8"), "count(")
    assert client.request("textDocument/hover", client.at(path, line, character + 1)) is not None
    assert client.process.poll() is None


def test_hover_on_an_ids_letters_in_prose_or_a_comment_shows_nothing(workspace):
    """`wood` is a card: hovered in a cost it is summarised, and it can be followed and renamed there; in a
    card's text, its name or a comment it is only a word: no hover, no definition, no rename."""
    root, client = workspace
    weapons = root / "cro-magnon" / "cards" / "weapons.yaml"
    text = weapons.read_text(encoding="utf-8")
    typed = text.replace("cost: [wood, flint]", "cost: [wood, flint]  # wood from the forest", 1)
    typed = typed.replace("name: Spear", "name: Spear of wood", 1)
    typed = typed.replace('text: "Weapons: counts', 'text: "Weapons: wood counts', 1)
    client.open(weapons, typed)
    line, character = position_of(typed, "[wood,")
    hover = client.request("textDocument/hover", client.at(weapons, line, character + 2))
    assert "**wood** (card" in hover["contents"]["value"]
    for needle, nth in (("wood from", 0), ("forest", 0), ("wood counts", 0), ("of wood", 0)):
        line, character = position_of(typed, needle, nth)
        offset = 4 if needle == "of wood" else 1
        at = client.at(weapons, line, character + offset)
        assert client.request("textDocument/hover", at) is None, needle
        assert client.request("textDocument/definition", at) is None, needle
        assert client.request("textDocument/prepareRename", at) is None, needle
    line, character = position_of(typed, "[wood,")
    assert client.request("textDocument/definition", client.at(weapons, line, character + 2))
    assert client.request("textDocument/prepareRename", client.at(weapons, line, character + 2))
    client.change(weapons, text, version=5)
