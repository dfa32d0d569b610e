"""A small Language Server Protocol client for tests and the benchmark: starts `python -m engine.lsp` as a
subprocess and speaks JSON-RPC with Content-Length framing over its stdin and stdout, as an editor does."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path


class LspError(Exception):
    def __init__(self, error: dict):
        super().__init__(error.get("message", ""))
        self.code = error.get("code")


class Client:
    def __init__(
        self,
        root: Path,
        cwd: Path | None = None,
        command: list[str] | None = None,
        capabilities: dict | None = None,
        options: dict | None = None,
    ):
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "engine.lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd or root,
        )
        self.next_id = 0
        self.responses: dict[int, dict] = {}
        self.unnamed: list[dict] = []  # responses with a null id (to a body whose id could not be read), in order
        self.notifications: queue.Queue = queue.Queue()
        self.diagnostics: dict[str, list] = {}  # uri -> the last published diagnostics
        self.condition = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        params = {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities or {}}
        if options is not None:
            params["initializationOptions"] = options
        self.initialized = self.request("initialize", params)
        self.notify("initialized", {})

    def _drain_stderr(self):
        for _ in iter(self.process.stderr.readline, b""):
            pass

    def _read(self):
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                headers[name.lower()] = value.strip()
            body = json.loads(stream.read(int(headers["content-length"])))
            with self.condition:
                if "id" in body and "method" not in body and body["id"] is None:
                    self.unnamed.append(body)
                elif "id" in body and "method" not in body:
                    self.responses[body["id"]] = body
                elif "method" in body:
                    if body["method"] == "textDocument/publishDiagnostics":
                        self.diagnostics[body["params"]["uri"]] = body["params"]["diagnostics"]
                    if "id" in body:  # a request from the server (registrations...): answer it
                        self._send({"jsonrpc": "2.0", "id": body["id"], "result": None})
                    self.notifications.put((time.perf_counter(), body))
                self.condition.notify_all()

    def _send(self, message: dict):
        data = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.process.stdin.flush()

    def send_raw(self, data: bytes):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params, timeout: float = 30):
        self.next_id += 1
        number = self.next_id
        self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        answer = self.response(number, timeout, method)
        if "error" in answer:
            raise LspError(answer["error"])
        return answer.get("result")

    def response(self, number, timeout: float = 30, what: str = "a request") -> dict:
        """The whole response with this id (None: the next one to a body whose id could not be read)."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while not (self.unnamed if number is None else number in self.responses):
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise TimeoutError(f"no answer to {what}")
                self.condition.wait(left)
            return self.unnamed.pop(0) if number is None else self.responses.pop(number)

    def wait_for(self, method: str, timeout: float = 60, uri: str | None = None) -> tuple[float, dict]:
        """The next notification `method` (for `uri`, if given), and when it arrived."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {method}")
            at, body = self.notifications.get(timeout=left)
            if body["method"] == method and (uri is None or body["params"].get("uri") == uri):
                return at, body["params"]

    def drain(self):
        while not self.notifications.empty():
            self.notifications.get_nowait()

    # the documents
    def open(self, path: Path, text: str | None = None):
        text = path.read_text(encoding="utf-8") if text is None else text
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}},
        )

    def change(self, path: Path, text: str, version: int = 2):
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": path.as_uri(), "version": version}, "contentChanges": [{"text": text}]},
        )

    def at(self, path: Path, line: int, character: int) -> dict:
        return {"textDocument": {"uri": path.as_uri()}, "position": {"line": line, "character": character}}

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except Exception:  # noqa: BLE001 -- a test that broke the server still ends it
            self.process.kill()
            self.process.wait()


def position_of(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """(line, character) of the `nth` occurrence of `needle` in `text`, 0-based."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    before = text[:offset]
    return before.count("\n"), offset - (before.rfind("\n") + 1)
