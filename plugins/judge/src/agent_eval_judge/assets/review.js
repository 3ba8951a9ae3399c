// The review page of agent-eval-judge: a person labels each case pass or fail and downloads the labels.
// Everything from the run is shown with textContent; the list of cases draws only the rows in view.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("review-data").textContent);
  var cases = data.cases;
  var KEY = "agent-eval-review:" + data.key;
  var ROW = 30; // px: the height of a row of the list (.row in the stylesheet)
  var SHOWN = 20000; // characters of a text shown before "Show all"
  var INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

  var list = document.getElementById("list");
  var rows = document.getElementById("list-rows");
  var detail = document.getElementById("case");
  var help = document.getElementById("help");
  var blindBox = document.getElementById("blind");
  var storageWarning = document.getElementById("storage-warning");

  // name -> {label: "pass" | "fail" | null, note: string}; a Map, as a name may be "__proto__".
  var marks = new Map();
  var state = { at: 0, blind: false };
  restore();
  var current = Math.min(Math.max(state.at | 0, 0), Math.max(cases.length - 1, 0));

  function restore() {
    var raw = null;
    try {
      raw = window.localStorage.getItem(KEY);
    } catch (error) {
      storageFailed();
    }
    if (!raw) return;
    try {
      var saved = JSON.parse(raw);
      state.at = typeof saved.at === "number" ? saved.at : 0;
      state.blind = saved.blind === true;
      (Array.isArray(saved.labels) ? saved.labels : []).forEach(function (entry) {
        if (!Array.isArray(entry) || typeof entry[0] !== "string") return;
        var label = entry[1] === "pass" || entry[1] === "fail" ? entry[1] : null;
        marks.set(entry[0], { label: label, note: typeof entry[2] === "string" ? entry[2] : "" });
      });
    } catch (error) {
      // a damaged entry: start afresh rather than not at all
    }
  }

  function save() {
    var entries = [];
    marks.forEach(function (mark, name) {
      if (mark.label || mark.note) entries.push([name, mark.label, mark.note]);
    });
    try {
      window.localStorage.setItem(KEY, JSON.stringify({ v: 1, at: current, blind: state.blind, labels: entries }));
    } catch (error) {
      storageFailed();
    }
  }

  function storageFailed() {
    storageWarning.hidden = false;
  }

  // --- helpers -------------------------------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function visible(text) {
    return text.replace(INVISIBLE, function (found) {
      return "\\u" + ("000" + found.charCodeAt(0).toString(16)).slice(-4);
    });
  }

  function textOf(value) {
    if (typeof value === "string") return value;
    if (value === null || value === undefined) return "";
    return JSON.stringify(value, null, 2);
  }

  function markOf(name) {
    return marks.get(name) || { label: null, note: "" };
  }

  function counts() {
    var passed = 0;
    var failed = 0;
    cases.forEach(function (item) {
      var label = markOf(item.name).label;
      if (label === "pass") passed += 1;
      else if (label === "fail") failed += 1;
    });
    return { passed: passed, failed: failed };
  }

  // --- the list of cases, drawn only where it is in view ---------------------------------------------

  function drawList() {
    var top = list.scrollTop;
    var first = Math.max(0, Math.floor(top / ROW) - 10);
    var last = Math.min(cases.length, Math.ceil((top + list.clientHeight) / ROW) + 10);
    var fragment = document.createDocumentFragment();
    for (var index = first; index < last; index += 1) fragment.appendChild(listRow(index));
    rows.textContent = "";
    rows.appendChild(fragment);
  }

  function listRow(index) {
    var item = cases[index];
    var label = markOf(item.name).label;
    var row = el("button", "row" + (index === current ? " current" : ""));
    row.type = "button";
    row.style.top = index * ROW + "px";
    row.dataset.index = String(index);
    row.appendChild(el("span", "badge " + (label || "none"), label === "pass" ? "P" : label === "fail" ? "F" : "·"));
    row.appendChild(el("span", "name", visible(item.name)));
    if (!state.blind) row.appendChild(el("span", "status " + item.status, item.status));
    if (index === current) row.setAttribute("aria-current", "true");
    return row;
  }

  function scrollToCurrent() {
    var top = current * ROW;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + ROW > list.scrollTop + list.clientHeight) list.scrollTop = top + ROW - list.clientHeight;
  }

  // --- one case --------------------------------------------------------------------------------------

  function section(title, body) {
    var part = el("section", "part");
    part.appendChild(el("h3", null, title));
    part.appendChild(body);
    return part;
  }

  function textBlock(value, emptyText) {
    var text = textOf(value);
    var pre = el("pre", "value" + (text ? "" : " empty"));
    if (!text) {
      pre.textContent = emptyText;
      return pre;
    }
    pre.textContent = visible(text.length > SHOWN ? text.slice(0, SHOWN) : text);
    if (text.length <= SHOWN) return pre;
    var wrap = el("div");
    var more = el("button", "more", "Show all " + text.length.toLocaleString() + " characters");
    more.type = "button";
    more.addEventListener("click", function () {
      pre.textContent = visible(text);
      more.remove();
    });
    wrap.appendChild(pre);
    wrap.appendChild(more);
    return wrap;
  }

  function labelControls(item) {
    var mark = markOf(item.name);
    var box = el("div", "labelling");
    [
      ["pass", "Pass (p)"],
      ["fail", "Fail (f)"],
      [null, "Clear (x)"],
    ].forEach(function (choice) {
      var button = el("button", "choose " + (choice[0] || "clear"), choice[1]);
      button.type = "button";
      button.setAttribute("aria-pressed", String(mark.label === choice[0] && choice[0] !== null));
      button.addEventListener("click", function () {
        setLabel(choice[0]);
      });
      box.appendChild(button);
    });
    var note = el("textarea", "note");
    note.id = "note";
    note.rows = 2;
    note.placeholder = "Note (n): why, for whoever reads the labels";
    note.setAttribute("aria-label", "Note");
    note.value = mark.note;
    note.addEventListener("input", function () {
      var now = markOf(item.name);
      marks.set(item.name, { label: now.label, note: note.value });
      save();
    });
    box.appendChild(note);
    return box;
  }

  function evaluationsTable(item) {
    if (state.blind) return el("p", "muted", "Hidden while blind (b): label first, then compare.");
    if (!item.evaluations.length) return el("p", "muted", "No evaluation.");
    var table = el("table", "evaluations");
    item.evaluations.forEach(function (evaluation) {
      var row = el("tr");
      row.appendChild(el("td", "name", visible(evaluation.name)));
      row.appendChild(el("td", "status " + evaluation.status, evaluation.status));
      row.appendChild(el("td", "num", typeof evaluation.score === "number" ? evaluation.score.toFixed(2) : ""));
      row.appendChild(el("td", "reason", visible(textOf(evaluation.error || evaluation.reason))));
      table.appendChild(row);
    });
    return table;
  }

  function trajectory(item) {
    var steps = el("ol", "steps");
    item.tool_calls.forEach(function (call) {
      var step = el("li", call.error ? "step failed" : "step");
      step.appendChild(el("span", "tool", visible(textOf(call.name))));
      step.appendChild(el("span", "caption", "arguments"));
      step.appendChild(textBlock(call.arguments, "(none)"));
      if (call.error) {
        step.appendChild(el("span", "caption", "error"));
        step.appendChild(el("pre", "value error", visible(textOf(call.error))));
      } else if (call.result !== null && call.result !== undefined) {
        step.appendChild(el("span", "caption", "result"));
        step.appendChild(textBlock(call.result, ""));
      }
      steps.appendChild(step);
    });
    return steps;
  }

  function drawCase() {
    detail.textContent = "";
    if (!cases.length) {
      detail.appendChild(el("p", "muted", "This run has no cases."));
      return;
    }
    var item = cases[current];
    var head = el("div", "case-head");
    head.appendChild(el("h2", null, visible(item.name)));
    head.appendChild(el("span", "position", "case " + (current + 1) + " of " + cases.length));
    if (!state.blind) head.appendChild(el("span", "status " + item.status, item.status));
    detail.appendChild(head);
    detail.appendChild(labelControls(item));
    if (item.criteria.length) {
      var criteria = el("ul", "criteria");
      item.criteria.forEach(function (text) {
        criteria.appendChild(el("li", null, visible(text)));
      });
      detail.appendChild(section("Criteria of its judge", criteria));
    }
    detail.appendChild(section("Input", textBlock(item.input, "(no input)")));
    if (item.expected !== null && item.expected !== undefined) {
      detail.appendChild(section("Expected", textBlock(item.expected, "")));
    }
    detail.appendChild(section("Output", textBlock(item.output, item.error ? "(no output: the agent failed)" : "(empty)")));
    if (item.error) detail.appendChild(section("Agent error", textBlock(item.error, "")));
    var calls = item.tool_calls.length;
    if (calls) detail.appendChild(section("Trajectory (" + calls + (calls === 1 ? " tool call)" : " tool calls)"), trajectory(item)));
    detail.appendChild(section("Evaluations", evaluationsTable(item)));
  }

  function drawProgress() {
    var done = counts();
    var labelled = done.passed + done.failed;
    document.getElementById("progress-text").textContent =
      labelled + " of " + cases.length + " labelled · " + done.passed + " pass · " + done.failed + " fail";
    var whole = Math.max(cases.length, 1);
    document.getElementById("progress-pass").style.width = (100 * done.passed) / whole + "%";
    document.getElementById("progress-fail").style.width = (100 * done.failed) / whole + "%";
  }

  function draw() {
    document.body.classList.toggle("blind", state.blind);
    blindBox.checked = state.blind;
    drawProgress();
    drawCase();
    scrollToCurrent();
    drawList();
  }

  // --- actions ---------------------------------------------------------------------------------------

  function go(index) {
    if (!cases.length) return;
    current = Math.min(Math.max(index, 0), cases.length - 1);
    save();
    draw();
  }

  function setLabel(label) {
    if (!cases.length) return;
    var item = cases[current];
    marks.set(item.name, { label: label, note: markOf(item.name).note });
    if (label && current < cases.length - 1) current += 1;
    save();
    draw();
  }

  function nextUnlabelled() {
    for (var step = 1; step <= cases.length; step += 1) {
      var index = (current + step) % cases.length;
      if (!markOf(cases[index].name).label) return go(index);
    }
  }

  function setBlind(blind) {
    state.blind = blind;
    save();
    draw();
  }

  function labelsText() {
    var header = {
      format: data.format,
      version: data.version,
      suite_file: data.suite_file,
      run: data.run,
      suite: data.suite,
      report: data.source,
      exported_at: new Date().toISOString(),
    };
    var lines = [JSON.stringify(header)];
    cases.forEach(function (item) {
      var mark = markOf(item.name);
      if (!mark.label) return;
      var row = { name: item.name, output: item.output, label: mark.label, note: mark.note };
      if (item.tool_calls.length) row.tool_calls = item.tool_calls;
      lines.push(JSON.stringify(row));
    });
    return lines.join("\n") + "\n";
  }

  function download() {
    var url = URL.createObjectURL(new Blob([labelsText()], { type: "application/x-ndjson" }));
    var link = el("a");
    link.href = url;
    link.download = data.download_name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 10000);
  }

  function toggleHelp(show) {
    help.hidden = show === undefined ? !help.hidden : !show;
  }

  function typing(target) {
    if (!target || !target.tagName) return false;
    if (target.tagName === "TEXTAREA") return true;
    return target.tagName === "INPUT" && target.type !== "checkbox";
  }

  var KEYS = {
    p: function () { setLabel("pass"); },
    f: function () { setLabel("fail"); },
    x: function () { setLabel(null); },
    j: function () { go(current + 1); },
    ArrowDown: function () { go(current + 1); },
    k: function () { go(current - 1); },
    ArrowUp: function () { go(current - 1); },
    u: nextUnlabelled,
    n: function () { var note = document.getElementById("note"); if (note) note.focus(); },
    b: function () { setBlind(!state.blind); },
    d: download,
    "?": function () { toggleHelp(); },
    Escape: function () { toggleHelp(false); },
  };

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    if (!help.hidden) {
      // the help is open: a key closes it, and does nothing behind it
      event.preventDefault();
      toggleHelp(false);
      return;
    }
    var action = Object.prototype.hasOwnProperty.call(KEYS, event.key) ? KEYS[event.key] : null;
    if (!action) return;
    event.preventDefault();
    action();
  });

  rows.addEventListener("click", function (event) {
    var row = event.target.closest ? event.target.closest(".row") : null;
    if (row) go(Number(row.dataset.index));
  });
  var pending = false;
  list.addEventListener("scroll", function () {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      drawList();
    });
  });
  window.addEventListener("resize", drawList);
  blindBox.addEventListener("change", function () { setBlind(blindBox.checked); });
  document.getElementById("download").addEventListener("click", download);
  document.getElementById("help-button").addEventListener("click", function () { toggleHelp(); });
  document.getElementById("help-close").addEventListener("click", function () { toggleHelp(false); });

  document.getElementById("title").textContent = visible(data.suite || "agent-eval review");
  document.getElementById("subtitle").textContent = visible(data.run ? "run " + data.run : data.source);
  document.title = "Review " + visible(data.suite || "") + " · agent-eval";
  rows.style.height = cases.length * ROW + "px";
  draw();
  document.body.dataset.ready = "true";
})();
