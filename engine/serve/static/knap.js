// knap serve: the page asks the server whether anything changed (a number) and reloads when it did;
// the load form sends a saved game's file as it is. Nothing else runs in the page.
(function () {
  "use strict";
  var body = document.body;
  var poll = body.getAttribute("data-poll");
  var version = body.getAttribute("data-version");
  var leaving = false; // a form was sent: its answer brings the next page, no poll may reload over it
  window.addEventListener("submit", function () { leaving = true; }, true);
  if (poll) {
    var busy = false;
    setInterval(function () {
      if (busy || leaving || document.hidden) return;
      busy = true;
      fetch(poll, { cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          busy = false;
          if (data && !leaving && String(data.version) !== String(version)) {
            var url = new URL(location.href);
            url.searchParams.delete("notice");
            location.replace(url.toString());
          }
        })
        .catch(function () { busy = false; });
    }, 250);
  }
  // a form's buttons are pressed once: the answer is on its way
  document.querySelectorAll("form.options, form.undo").forEach(function (form) {
    form.addEventListener("submit", function () {
      setTimeout(function () {
        form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      }, 0);
    });
  });
  var log = document.querySelector("#log ol");
  if (log) log.scrollTop = log.scrollHeight; // the newest lines are at the bottom
  var load = document.getElementById("load-game");
  if (load) {
    load.addEventListener("submit", function (event) {
      event.preventDefault();
      var file = document.getElementById("load-file").files[0];
      if (!file) return;
      fetch("/load", { method: "POST", body: file, headers: { "Content-Type": "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (data) {
          if (data.table) { location.href = data.table; return; }
          var p = document.createElement("p");
          p.className = "error";
          p.id = "load-error";
          p.textContent = data.error || "the file could not be loaded";
          load.appendChild(p);
        });
    });
  }
  // the graph: a node lights up with what it needs and what it opens
  document.querySelectorAll("#graph .node").forEach(function (node) {
    node.addEventListener("click", function () {
      var id = node.getAttribute("data-node");
      document.querySelectorAll("#graph .lit").forEach(function (e) { e.classList.remove("lit"); });
      node.classList.add("lit");
      document.querySelectorAll("#graph line").forEach(function (line) {
        if (line.getAttribute("data-from") === id || line.getAttribute("data-to") === id) line.classList.add("lit");
      });
    });
  });
})();
