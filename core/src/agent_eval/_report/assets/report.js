(function () {
  "use strict";

  // Everything from the report is put on the page with textContent, never parsed as HTML.
  var PAGE_SIZE = 200;
  var LABELS = { passed: "PASS", failed: "FAIL", error: "ERROR", skipped: "SKIP" };
  var report = JSON.parse(document.getElementById("report-data").textContent);
  var cases = report.cases || [];
  var texts = new Array(cases.length);
  var rows = document.getElementById("case-rows");
  var shown = document.getElementById("shown");
  var more = document.getElementById("more");
  var empty = document.getElementById("empty");
  var search = document.getElementById("search");
  var filters = Array.prototype.slice.call(document.querySelectorAll(".filters button"));
  var state = { status: "all", query: "", matching: [], rendered: 0 };

  function show(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "string") return value;
    return JSON.stringify(value, null, 2);
  }

  function node(tag, className, content) {
    var element = document.createElement(tag);
    if (className) element.className = className;
    if (content !== undefined && content !== null) element.textContent = String(content);
    return element;
  }

  // Where an error was raised, innermost frame last, as a traceback reads.
  function frames(list) {
    return list.map(function (frame) { return "at " + frame; }).join("\n");
  }

  function score(value) {
    return typeof value === "number" ? value.toFixed(2) : "";
  }

  function duration(ms) {
    if (typeof ms !== "number") return "";
    if (ms < 1) return ms.toFixed(2) + " ms";
    if (ms < 1000) return Math.round(ms) + " ms";
    return (ms / 1000).toFixed(2) + " s";
  }

  function pill(status) {
    return node("span", "pill " + status, LABELS[status] || status);
  }

  function textOf(index) {
    if (texts[index] === undefined) {
      var item = cases[index];
      var parts = [item.name, item.reason, item.error, show(item.output), show(item.input)];
      if (item.tool_calls && item.tool_calls.length) {
        parts.push(item.tool_calls.map(function (call) { return call.name; }).join(" "));
      }
      texts[index] = parts.join("\n").toLowerCase();
    }
    return texts[index];
  }

  function matches(index) {
    if (state.status === "flaky") {
      if (!cases[index].flaky) return false;
    } else if (state.status !== "all" && cases[index].status !== state.status) return false;
    return !state.query || textOf(index).indexOf(state.query) !== -1;
  }

  function plural(count, word) {
    return count + " " + word + (count === 1 ? "" : "s");
  }

  // One small square per attempt (its title says which, how it went and its score), the attempts that
  // passed out of those that ran (3/5), and a "flaky" tag when they did not all agree.
  function attemptStrip(item) {
    var strip = node("span", "strip");
    var squares = node("span", "squares");
    var ran = 0, passed = 0;
    item.attempts.forEach(function (attempt, index) {
      var number = typeof attempt.index === "number" ? attempt.index + 1 : index + 1;
      var title = "attempt " + number + ": " + attempt.status;
      if (typeof attempt.score === "number") title += ", score " + score(attempt.score);
      var square = node("i", "square " + attempt.status);
      square.title = title;
      squares.appendChild(square);
      if (attempt.status !== "skipped") ran++;
      if (attempt.status === "passed") passed++;
    });
    strip.appendChild(squares);
    strip.appendChild(node("span", "tally " + item.status, ran ? passed + "/" + ran : LABELS.skipped));
    if (item.flaky) strip.appendChild(node("span", "tag flaky", "flaky"));
    return strip;
  }

  function caseRow(index) {
    var item = cases[index];
    var row = node("tr", "case " + item.status);
    row.dataset.index = String(index);
    var name = node("td", "name");
    var toggle = node("button", "toggle", item.name);
    toggle.type = "button";
    toggle.setAttribute("aria-expanded", "false");
    name.appendChild(toggle);
    row.appendChild(name);
    var status = node("td", "status");
    if (item.attempts && item.attempts.length) {
      status.appendChild(attemptStrip(item));
    } else {
      status.appendChild(pill(item.status));
    }
    row.appendChild(status);
    row.appendChild(node("td", "num", score(item.score)));
    var reason = node("td", "reason");
    reason.appendChild(node("div", "clamp", item.error || item.reason || ""));
    row.appendChild(reason);
    row.appendChild(node("td", "num", duration(item.duration_ms)));
    return row;
  }

  function block(title, value, className) {
    var section = node("section", "block");
    section.appendChild(node("h3", null, title));
    section.appendChild(node("pre", className || null, show(value)));
    return section;
  }

  function evaluationRow(body, evaluation) {
    var row = body.insertRow();
    row.appendChild(node("td", "name", evaluation.name));
    var status = node("td");
    status.appendChild(pill(evaluation.status));
    row.appendChild(status);
    row.appendChild(node("td", "num", score(evaluation.score)));
    var reason = node("td", "reason", evaluation.error || evaluation.reason || "");
    if (evaluation.frames && evaluation.frames.length) reason.appendChild(node("pre", "frames", frames(evaluation.frames)));
    if (evaluation.metadata && Object.keys(evaluation.metadata).length) {
      var extra = node("details");
      extra.appendChild(node("summary", null, "metadata"));
      extra.appendChild(node("pre", null, show(evaluation.metadata)));
      reason.appendChild(extra);
    }
    row.appendChild(reason);
    row.appendChild(node("td", "num", duration(evaluation.duration_ms)));
  }

  function evaluationsTable(evaluations) {
    var section = node("section", "block");
    section.appendChild(node("h3", null, "Evaluations (" + evaluations.length + ")"));
    if (!evaluations.length) {
      section.appendChild(node("p", "muted", "No evaluation ran."));
      return section;
    }
    var table = node("table", "evaluations");
    var head = table.createTHead().insertRow();
    ["Evaluator", "Status", "Score", "Reason", "Time"].forEach(function (title) {
      head.appendChild(node("th", title === "Score" || title === "Time" ? "num" : null, title));
    });
    var body = table.createTBody();
    evaluations.forEach(function (evaluation) { evaluationRow(body, evaluation); });
    section.appendChild(table);
    return section;
  }

  function hasValue(value) {
    return value !== null && value !== undefined;
  }

  function labelled(title, value, className) {
    var part = node("div", "step-part");
    part.appendChild(node("span", "step-label", title));
    part.appendChild(node("pre", className || null, show(value)));
    return part;
  }

  // The tool calls in the order made: step number, tool, arguments, then the result or the error.
  function trajectory(calls) {
    var section = node("section", "block trajectory");
    var failed = calls.filter(function (call) { return hasValue(call.error); }).length;
    var title = "Trajectory (" + plural(calls.length, "step") + (failed ? ", " + failed + " failed" : "") + ")";
    section.appendChild(node("h3", null, title));
    var list = node("ol", "steps");
    calls.forEach(function (call, index) {
      var error = hasValue(call.error);
      var step = node("li", "step" + (error ? " failed" : ""));
      var head = node("div", "step-head");
      head.appendChild(node("span", "step-number", String(index + 1)));
      head.appendChild(node("span", "tool", call.name));
      if (error) head.appendChild(node("span", "pill error", "TOOL ERROR"));
      if (hasValue(call.id)) head.appendChild(node("span", "muted call-id", call.id));
      step.appendChild(head);
      step.appendChild(labelled(call.raw ? "Arguments (raw text: not valid JSON)" : "Arguments", call.arguments,
        call.raw ? "raw" : null));
      if (error) {
        step.appendChild(labelled("Error", call.error, "error-text"));
      } else if (hasValue(call.result)) {
        step.appendChild(labelled("Result", call.result));
      } else {
        step.appendChild(node("p", "muted", "No result."));
      }
      list.appendChild(step);
    });
    section.appendChild(list);
    return section;
  }

  function attemptBody(attempt) {
    var body = node("div", "attempt-body");
    var grid = node("div", "detail-grid");
    grid.appendChild(block("Output", attempt.output));
    if (attempt.error) grid.appendChild(block("Error", attempt.error, "error-text"));
    body.appendChild(grid);
    body.appendChild(evaluationsTable(attempt.evaluations || []));
    if (attempt.tool_calls && attempt.tool_calls.length) body.appendChild(trajectory(attempt.tool_calls));
    return body;
  }

  // Each attempt of a repeated case, collapsed; its output, evaluations and trajectory are built when opened.
  function attemptsSection(attempts) {
    var section = node("section", "block attempts");
    section.appendChild(node("h3", null, "Attempts (" + attempts.length + ")"));
    attempts.forEach(function (attempt, index) {
      var item = node("details", "attempt " + attempt.status);
      var summary = node("summary");
      var number = typeof attempt.index === "number" ? attempt.index + 1 : index + 1;
      summary.appendChild(node("span", "attempt-number", "Attempt " + number));
      summary.appendChild(pill(attempt.status));
      summary.appendChild(node("span", "attempt-score", score(attempt.score)));
      summary.appendChild(node("span", "attempt-reason", attempt.error || attempt.reason || ""));
      summary.appendChild(node("span", "attempt-time", duration(attempt.duration_ms)));
      item.appendChild(summary);
      item.addEventListener("toggle", function () {
        if (item.open && !item.dataset.built) {
          item.dataset.built = "true";
          item.appendChild(attemptBody(attempt));
        }
      });
      section.appendChild(item);
    });
    return section;
  }

  function detailsRow(item) {
    var row = node("tr", "details");
    var cell = node("td");
    cell.colSpan = 5;
    var grid = node("div", "detail-grid");
    grid.appendChild(block("Input", item.input));
    grid.appendChild(block("Output", item.output));
    if (item.expected !== null && item.expected !== undefined) grid.appendChild(block("Expected", item.expected));
    if (item.error) grid.appendChild(block("Error", item.error, "error-text"));
    if (item.frames && item.frames.length) grid.appendChild(block("Raised at", frames(item.frames), "frames"));
    cell.appendChild(grid);
    cell.appendChild(evaluationsTable(item.evaluations || []));
    var repeated = item.attempts && item.attempts.length;
    // a repeated case's tool calls are each attempt's, shown with it
    if (!repeated && item.tool_calls && item.tool_calls.length) cell.appendChild(trajectory(item.tool_calls));
    if (repeated) cell.appendChild(attemptsSection(item.attempts));
    if (item.metadata && Object.keys(item.metadata).length) cell.appendChild(block("Metadata", item.metadata));
    row.appendChild(cell);
    return row;
  }

  function toggleDetails(button) {
    var row = button.closest("tr");
    var next = row.nextElementSibling;
    if (next && next.classList.contains("details")) {
      next.remove();
      button.setAttribute("aria-expanded", "false");
      return;
    }
    row.after(detailsRow(cases[Number(row.dataset.index)]));
    button.setAttribute("aria-expanded", "true");
  }

  function renderMore() {
    var end = Math.min(state.rendered + PAGE_SIZE, state.matching.length);
    var fragment = document.createDocumentFragment();
    for (var i = state.rendered; i < end; i++) fragment.appendChild(caseRow(state.matching[i]));
    rows.appendChild(fragment);
    state.rendered = end;
    var left = state.matching.length - end;
    more.hidden = left <= 0;
    more.textContent = "Show " + Math.min(left, PAGE_SIZE) + " more (" + left + " not shown)";
    var total = cases.length + (cases.length === 1 ? " case" : " cases");
    shown.textContent = state.matching.length === cases.length ? total : state.matching.length + " of " + total;
    empty.hidden = state.matching.length > 0;
  }

  function apply() {
    state.matching = [];
    for (var i = 0; i < cases.length; i++) if (matches(i)) state.matching.push(i);
    rows.textContent = "";
    state.rendered = 0;
    renderMore();
  }

  rows.addEventListener("click", function (event) {
    var button = event.target.closest("button.toggle");
    if (button) toggleDetails(button);
  });

  filters.forEach(function (button) {
    button.addEventListener("click", function () {
      state.status = button.dataset.status;
      filters.forEach(function (other) { other.setAttribute("aria-pressed", String(other === button)); });
      apply();
    });
  });

  var pending = null;
  search.addEventListener("input", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      state.query = search.value.trim().toLowerCase();
      apply();
    }, 120);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "/" && document.activeElement !== search) {
      event.preventDefault();
      search.focus();
    }
  });

  more.addEventListener("click", renderMore);
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (entries) {
      if (entries[0].isIntersecting && !more.hidden) renderMore();
    }, { rootMargin: "400px" }).observe(more);
  }

  apply();
  document.body.dataset.ready = "true";
})();
