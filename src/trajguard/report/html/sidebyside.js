// trajguard report: two runs side by side, aligned step by step as `trajguard diff` aligns them.
// Ported from trajguard.core (_alignment.py): each step's three keys (kind: source and tools;
// calls: with their arguments; content: with results and message, object-repr addresses masked
// as the normalisation masks them), then the alignment: the common start and end, the
// least-cost middle (costs and limit read from the page's data). The report's exemplar pairs
// come aligned by Python. Every string from a run is shown as text.
var trajguardPairs = (function () {
  "use strict";
  function cost(a, i, b, j, c) {
    if (a[3 * i + 2] === b[3 * j + 2]) return 0;
    if (a[3 * i + 1] === b[3 * j + 1]) return c.same_calls;
    if (a[3 * i] === b[3 * j]) return c.new_arguments;
    return -1;
  }
  // the n × m steps from position s of both runs (their common start is s long on each side)
  function middle(a, b, s, n, m, c) {
    var out = [], i, j;
    if (n * m > c.cells) {
      for (i = 0; i < n; i++) out.push(["a", s + i, null]);
      for (j = 0; j < m; j++) out.push(["b", null, s + j]);
      return out;
    }
    var w = m + 1, d = new Array((n + 1) * w), best, pair;
    for (j = 0; j <= m; j++) d[j] = j * c.gap;
    for (i = 1; i <= n; i++) {
      d[i * w] = i * c.gap;
      for (j = 1; j <= m; j++) {
        best = Math.min(d[(i - 1) * w + j], d[i * w + j - 1]) + c.gap;
        pair = cost(a, s + i - 1, b, s + j - 1, c);
        if (pair >= 0 && d[(i - 1) * w + j - 1] + pair <= best) best = d[(i - 1) * w + j - 1] + pair;
        d[i * w + j] = best;
      }
    }
    i = n; j = m;
    while (i > 0 || j > 0) {
      pair = i > 0 && j > 0 ? cost(a, s + i - 1, b, s + j - 1, c) : -1;
      if (pair >= 0 && d[(i - 1) * w + j - 1] + pair === d[i * w + j]) {
        out.push([pair === 0 ? "same" : "changed", s + i - 1, s + j - 1]); i--; j--;
      } else if (j > 0 && d[i * w + j - 1] + c.gap === d[i * w + j]) {
        out.push(["b", null, s + j - 1]); j--;
      } else {
        out.push(["a", s + i - 1, null]); i--;
      }
    }
    return out.reverse();
  }
  // a, b: flat step keys ([kind, calls, content, kind, ...]); the same result as align_codes
  function align(a, b, c) {
    var n = a.length / 3, m = b.length / 3, start = 0, end = 0, out = [], k;
    while (start < Math.min(n, m) && a[3 * start + 2] === b[3 * start + 2]) start++;
    while (end < Math.min(n, m) - start && a[3 * (n - 1 - end) + 2] === b[3 * (m - 1 - end) + 2]) end++;
    for (k = 0; k < start; k++) out.push(["same", k, k]);
    out = out.concat(middle(a, b, start, n - start - end, m - start - end, c));
    for (k = 0; k < end; k++) out.push(["same", n - end + k, m - end + k]);
    return out;
  }

  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function listOf(v) { return Array.isArray(v) ? v.filter(isObject) : []; }
  function get(o, k) { return o[k] === undefined ? null : o[k]; }
  function stepsOf(t) { return isObject(t) ? listOf(t.steps) : []; }
  // JSON with sorted keys (equal values, equal text; as Python's json.dumps(sort_keys=True))
  function canon(v) {
    if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
    if (isObject(v)) {
      return "{" + Object.keys(v).sort().map(function (k) { return JSON.stringify(k) + ":" + canon(v[k]); }).join(",") + "}";
    }
    return JSON.stringify(v === undefined ? null : v);
  }
  var SPAN = /<(?=[^\s<>])(?:[^<>\n]|<[\w.]*>)*>/g, ADDRESS = /(?<= at )0x[0-9a-fA-F]+\b/g;
  function masked(v) {
    if (typeof v === "string") {
      return v.indexOf(" at 0x") < 0 ? v : v.replace(SPAN, function (s) { return s.replace(ADDRESS, "0xADDR"); });
    }
    if (Array.isArray(v)) return v.map(masked);
    if (isObject(v)) { var o = {}; Object.keys(v).forEach(function (k) { o[k] = masked(v[k]); }); return o; }
    return v;
  }
  function resultKey(r) { return [get(r, "content"), isObject(r.extra) ? get(r.extra, "error") : null]; }
  // trajguard.core.step_code: [kind, calls, content] of one step
  function stepKey(step) {
    var calls = listOf(step.tool_calls), source = get(step, "source");
    var results = isObject(step.observation) ? listOf(step.observation.results) : [];
    var ids = calls.map(function (c) { return get(c, "tool_call_id"); });
    var withArguments = canon([source, calls.map(function (c) { return [get(c, "function_name"), get(c, "arguments")]; })]);
    var joined = ids.map(function (id) {
      return results.filter(function (r) { return get(r, "source_call_id") === id; }).map(resultKey);
    });
    var loose = results.filter(function (r) { return ids.indexOf(get(r, "source_call_id")) < 0; }).map(resultKey);
    return [canon([source, calls.map(function (c) { return get(c, "function_name"); })]), withArguments,
      withArguments + canon([get(step, "message"), joined, loose])];
  }
  function keysOf(steps) {
    var out = [];
    steps.forEach(function (s) { Array.prototype.push.apply(out, stepKey(masked(s))); });
    return out;
  }
  function alignTrajectories(ta, tb, c) { return align(keysOf(stepsOf(ta)), keysOf(stepsOf(tb)), c); }

  var api = null, picked = [null, null], ui = {};
  var MARK = { same: "=", changed: "~", a: "A only", b: "B only" };
  function textOf(v) { return v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v, null, 1); }
  // `text` as a block, its part that differs from `other` marked (their common start and end plain)
  function diffed(text, other, cls) {
    var box = api.el("pre", null, cls);
    if (other === null || text === other) { box.textContent = api.visible(text); return box; }
    var p = 0, s = 0;
    while (p < text.length && p < other.length && text[p] === other[p]) p++;
    while (s < text.length - p && s < other.length - p && text[text.length - 1 - s] === other[other.length - 1 - s]) s++;
    var head = text.slice(0, p);
    if (head.length > 240) head = "…" + head.slice(-200);
    box.appendChild(document.createTextNode(api.visible(head)));
    box.appendChild(api.el("mark", text.slice(p, text.length - s) || "∅"));
    box.appendChild(document.createTextNode(api.visible(text.slice(text.length - s))));
    box.classList.add("differs");
    return box;
  }
  function resultsOf(step) {
    var results = (step.observation && step.observation.results) || [];
    return Array.isArray(results) ? results : [];
  }
  function callsOf(step) { return Array.isArray(step.tool_calls) ? step.tool_calls : []; }
  function joined(step, call) {
    return resultsOf(step).filter(function (r) { return call && r.source_call_id === call.tool_call_id; })
      .map(function (r) { return textOf(r.content) + (r.extra && r.extra.error ? " (error " + r.extra.error + ")" : ""); }).join("\n");
  }
  function argumentsView(call, other) {
    var args = call.arguments, theirs = other ? other.arguments : null;
    if (!args || typeof args !== "object" || Array.isArray(args) || !theirs || typeof theirs !== "object") {
      return diffed(textOf(args), other ? textOf(theirs) : null, "arguments");
    }
    var box = api.el("div", null, "arguments");
    Object.keys(args).sort().forEach(function (k) {
      var differs = !(k in theirs) || canon(args[k]) !== canon(theirs[k]);
      var line = api.el("div", null, "arg" + (differs ? " differs" : ""));
      line.appendChild(api.el("span", k + ": ", "key"));
      line.appendChild(differs && typeof args[k] === "string" && typeof theirs[k] === "string"
        ? diffed(args[k], theirs[k], "value") : api.el("span", canon(args[k]), "value"));
      box.appendChild(line);
    });
    return box;
  }
  function cell(step, other, side, index) {
    var box = api.el("div", null, "sbs-cell sbs-" + side.toLowerCase());
    if (!step) { box.appendChild(api.el("p", "(" + side + " took no such step)", "sbs-none")); return box; }
    var title = side + " · step " + (step.step_id || index + 1) + " · " + (step.source || "?");
    box.appendChild(api.el("div", title, "sbs-title"));
    var message = textOf(step.message);
    if (message) box.appendChild(diffed(message, other ? textOf(other.message) : null, "message"));
    var theirs = other ? callsOf(other) : [];
    callsOf(step).forEach(function (call, k) {
      var match = other ? theirs[k] || null : null;
      var view = api.el("div", null, "toolcall");
      view.appendChild(api.el("strong", "tool call: " + call.function_name));
      view.appendChild(argumentsView(call, match));
      view.appendChild(api.el("strong", "result"));
      view.appendChild(diffed(joined(step, call), other ? joined(other, match) : null, "content"));
      box.appendChild(view);
    });
    return box;
  }
  function trajectoryOf(pair) {
    try { var t = pair && pair[1] ? JSON.parse(pair[1]) : null; return t && Array.isArray(t.steps) ? t : null; } catch (e) { return null; }
  }
  function label(r) { return r.id + " (" + api.sides[r.side] + ", batch " + r.batch + ")"; }
  function show(a, b, given) {
    var view = ui.view;
    view.textContent = "";
    view.hidden = false;
    view.appendChild(api.el("h3", "Side by side: A " + label(a) + " · B " + label(b)));
    if (a.scenario !== b.scenario) {
      view.appendChild(api.el("p", "Pick two runs of the same scenario: steps are compared within a scenario.", "bad"));
      return Promise.resolve();
    }
    return api.details(a.si).then(function (sides) {
      var pa = sides[a.side][a.position], pb = sides[b.side][b.position];
      var ta = trajectoryOf(pa), tb = trajectoryOf(pb);
      if (!ta || !tb) {
        view.appendChild(api.el("p", "One of the runs has no stored trajectory: there are no steps to align.", "bad"));
        return;
      }
      var steps = given || alignTrajectories(ta, tb, api.costs);
      var stepsA = stepsOf(ta), stepsB = stepsOf(tb);
      var first = -1;
      steps.forEach(function (s, k) { if (first < 0 && s[0] !== "same") first = k; });
      view.appendChild(api.el("p", "= both runs took the step · ~ both took it differently (what differs is marked) · " +
        "A only · B only. Aligned by tool, arguments, result and text, as trajguard diff aligns them" +
        (given ? " (this pair aligned when the report was written)." : "."), "sbs-legend"));
      view.appendChild(api.el("p", first < 0 ? "The runs took the same steps." :
        "First divergence: " + describe(steps[first]) + ".", "sbs-summary"));
      var grid = api.el("div", null, "sbs");
      grid.id = "x-sbs-steps";
      steps.forEach(function (s, k) {
        var row = api.el("div", null, "sbs-row op-" + s[0]);
        row.dataset.op = s[0];
        row.dataset.a = s[1] === null ? "" : String(s[1]);
        row.dataset.b = s[2] === null ? "" : String(s[2]);
        if (k === first) { row.classList.add("first"); row.id = "x-first"; row.appendChild(api.el("div", "◀ first divergence", "sbs-first")); }
        row.appendChild(api.el("div", MARK[s[0]], "sbs-mark"));
        var sa = s[1] === null ? null : stepsA[s[1]], sb = s[2] === null ? null : stepsB[s[2]];
        var changed = s[0] === "changed";
        row.appendChild(cell(sa, changed ? sb : null, "A", s[1]));
        row.appendChild(cell(sb, changed ? sa : null, "B", s[2]));
        grid.appendChild(row);
      });
      view.appendChild(grid);
      var mark = document.getElementById("x-first");
      (mark || view).scrollIntoView({ block: "start" });
    });
  }
  function describe(s) {
    if (s[0] === "a") return "step " + (s[1] + 1) + " of A, which B did not take";
    if (s[0] === "b") return "step " + (s[2] + 1) + " of B, which A did not take";
    return "step " + (s[1] + 1) + " of A and step " + (s[2] + 1) + " of B, taken differently";
  }
  function status() {
    ui.picked.textContent = picked.map(function (r, k) { return (k ? "B: " : "A: ") + (r ? label(r) : "—"); }).join(" · ");
    var ex = api.exemplars[api.scenario()];
    ui.exemplar.disabled = !ex;
  }
  function pick(r, side) {
    picked[side] = r;
    status();
    if (picked[0] && picked[1]) show(picked[0], picked[1], null);
  }
  function decorate(td, r) {
    ["A", "B"].forEach(function (name, side) {
      var button = api.el("button", name, "pick pick-" + name.toLowerCase());
      button.type = "button";
      button.title = "put this run on side " + name + " of the side-by-side view";
      button.addEventListener("click", function () { pick(r, side); });
      td.appendChild(button);
    });
  }
  function exemplar(scenario) {
    var ex = api.exemplars[scenario];
    if (!ex) return Promise.resolve();
    var find = function (side, position) {
      return api.runs.filter(function (r) { return r.scenario === scenario && r.side === side && r.position === position; })[0];
    };
    picked = [find(0, ex.a), find(1, ex.b)];
    status();
    return show(picked[0], picked[1], ex.steps);
  }
  function attach(given) {
    api = given;
    var box = api.el("div", null, "pair");
    box.id = "x-pair";
    var line = api.el("p");
    line.appendChild(api.el("strong", "Side by side: "));
    line.appendChild(api.el("span", "pick two runs with the A and B buttons of the table, or "));
    ui.exemplar = api.el("button", "the scenario's exemplar pair");
    ui.exemplar.type = "button";
    ui.exemplar.id = "x-exemplar";
    ui.exemplar.addEventListener("click", function () { exemplar(api.scenario()); });
    line.appendChild(ui.exemplar);
    box.appendChild(line);
    ui.picked = api.el("p", null, "sbs-picked");
    box.appendChild(ui.picked);
    ui.view = api.el("div", null, "sbs-view");
    ui.view.id = "x-sbs";
    ui.view.hidden = true;
    box.appendChild(ui.view);
    api.before.parentNode.insertBefore(box, api.before);
    document.getElementById("x-scenario").addEventListener("change", status);
    status();
  }
  return { align: align, alignTrajectories: alignTrajectories, attach: attach, decorate: decorate, exemplar: exemplar };
})();
