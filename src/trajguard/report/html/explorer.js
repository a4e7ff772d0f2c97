// trajguard report: the run explorer. Reads the runs embedded in the page (gzip + base64 JSON),
// filters and sorts them in a paginated table, and shows one run's trajectory on demand.
// Every string from a run set is shown with textContent, never parsed as markup.
(function () {
  "use strict";
  var PAGE = 50;
  var CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\ufff9-\ufffb]/g;
  function visible(value) {
    if (value === null || value === undefined) return "";
    return String(value).replace(CONTROL, function (c) {
      var code = c.charCodeAt(0);
      return code < 256 ? "\\x" + ("0" + code.toString(16)).slice(-2) : "\\u" + ("000" + code.toString(16)).slice(-4);
    });
  }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = visible(text);
    if (cls) node.className = cls;
    return node;
  }
  function decode(id) {
    var node = document.getElementById(id);
    var bytes = Uint8Array.from(atob(node.textContent.trim()), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  var state = { runs: [], shown: [], page: 0, sort: null, desc: false, details: {} };
  var PAIRS = typeof trajguardPairs === "undefined" ? null : trajguardPairs; // sidebyside.js
  var ui = {};
  var SIDES = [];
  function passedText(v) { return v === true ? "passed" : v === false ? "failed" : "not judged"; }
  function seqText(seq) { return seq.length ? seq.join(" → ") : "(no tools)"; }

  function load(data) {
    var f = {};
    data.fields.forEach(function (name, i) { f[name] = i; });
    Object.keys(data.scenarios).forEach(function (scenario, si) {
      data.scenarios[scenario].forEach(function (rows, side) {
        rows.forEach(function (r, position) {
          state.runs.push({
            scenario: scenario, si: si, side: side, position: position, id: r[f.run_id],
            batch: r[f.batch_id], index: r[f.run_index], status: r[f.status], passed: r[f.passed],
            criteria: r[f.criteria_failed], seq: seqText(r[f.tool_sequence]), tools: r[f.tool_sequence],
            steps: r[f.step_count], prompt: r[f.prompt_tokens], completion: r[f.completion_tokens],
            duration: r[f.duration_s], error: r[f.error]
          });
        });
      });
    });
    return Object.keys(data.scenarios);
  }
  function options(select, values, any) {
    select.textContent = "";
    var first = el("option", any);
    first.value = "";
    select.appendChild(first);
    values.forEach(function (v) {
      var o = el("option", v[1]);
      o.value = v[0];
      select.appendChild(o);
    });
  }
  function counted(runs, key) {
    var counts = {};
    runs.forEach(function (r) {
      (Array.isArray(r[key]) ? r[key] : [r[key]]).forEach(function (v) { counts[v] = (counts[v] || 0) + 1; });
    });
    return Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : 1); })
      .map(function (k) { return [k, visible(k) + " (" + counts[k] + ")"]; });
  }
  function inScenario() {
    var s = ui.scenario.value;
    return s === "" ? state.runs : state.runs.filter(function (r) { return r.scenario === s; });
  }
  function refreshChoices() {
    var runs = inScenario();
    options(ui.status, counted(runs, "status"), "any status");
    options(ui.criterion, counted(runs, "criteria"), "any criterion");
    options(ui.sequence, counted(runs, "seq").slice(0, 200), "any tool sequence");
  }
  function apply() {
    var side = ui.side.value, status = ui.status.value, passed = ui.passed.value;
    var criterion = ui.criterion.value, sequence = ui.sequence.value;
    state.shown = inScenario().filter(function (r) {
      return (side === "" || String(r.side) === side) && (status === "" || r.status === status) &&
        (passed === "" || String(r.passed) === passed) &&
        (criterion === "" || r.criteria.indexOf(criterion) >= 0) &&
        (sequence === "" || r.seq === sequence);
    });
    if (state.sort) {
      var key = state.sort, sign = state.desc ? -1 : 1;
      state.shown.sort(function (a, b) {
        var x = a[key], y = b[key];
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * sign;
      });
    }
    state.page = 0;
    render();
  }
  function cell(row, value, cls) { row.appendChild(el("td", value, cls)); }
  function render() {
    var body = ui.body;
    body.textContent = "";
    var pages = Math.max(1, Math.ceil(state.shown.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    state.shown.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (r) {
      var tr = document.createElement("tr");
      tr.className = "run " + (r.passed === false ? "failed" : r.passed === true ? "passed" : "unjudged");
      tr.dataset.runId = r.id;
      tr.dataset.batch = r.batch;
      tr.dataset.side = SIDES[r.side];
      var open = el("button", "open", "open");
      open.type = "button";
      open.addEventListener("click", function () { show(r); });
      var first = document.createElement("td");
      first.appendChild(open);
      if (PAIRS) PAIRS.decorate(first, r);
      tr.appendChild(first);
      cell(tr, r.scenario); cell(tr, SIDES[r.side]); cell(tr, r.id); cell(tr, r.status);
      cell(tr, passedText(r.passed)); cell(tr, r.criteria.join("; ")); cell(tr, r.seq);
      cell(tr, r.steps, "num"); cell(tr, r.prompt, "num"); cell(tr, r.completion, "num");
      cell(tr, r.duration === null ? "" : r.duration.toFixed(2), "num");
      body.appendChild(tr);
    });
    ui.count.textContent = state.shown.length + " of " + state.runs.length + " runs";
    ui.page.textContent = "page " + (state.page + 1) + " of " + pages;
    ui.prev.disabled = state.page === 0;
    ui.next.disabled = state.page >= pages - 1;
  }
  function pre(text, cls) { return el("pre", text, cls); }
  function stepView(step, number) {
    var box = el("details", null, "step");
    var calls = step.tool_calls || [];
    var label = "step " + (step.step_id || number) + " · " + (step.source || "?");
    if (calls.length) label += " · " + calls.map(function (c) { return c.function_name; }).join(", ");
    if (step.metrics) label += " · " + (step.metrics.prompt_tokens || 0) + " + " + (step.metrics.completion_tokens || 0) + " tokens";
    box.appendChild(el("summary", label));
    if (calls.length || step.source === "agent") box.open = true;
    if (step.message) box.appendChild(pre(typeof step.message === "string" ? step.message : JSON.stringify(step.message, null, 1), "message"));
    calls.forEach(function (c) {
      var call = el("div", null, "toolcall");
      call.appendChild(el("strong", "tool call: " + c.function_name));
      call.appendChild(pre(JSON.stringify(c.arguments, null, 1), "arguments"));
      box.appendChild(call);
    });
    ((step.observation && step.observation.results) || []).forEach(function (res) {
      var out = el("div", null, "toolresult" + (res.extra && res.extra.error ? " error" : ""));
      out.appendChild(el("strong", "result" + (res.extra && res.extra.error ? " (" + res.extra.error + ")" : "")));
      out.appendChild(pre(typeof res.content === "string" ? res.content : JSON.stringify(res.content, null, 1), "content"));
      box.appendChild(out);
    });
    return box;
  }
  // A conversation (two or more user messages): the user's and the agent's turns as a chat,
  // before the steps; a simulated user's messages say so, the agent's tool calls are named.
  function conversationView(steps) {
    var users = steps.filter(function (s) { return s.source === "user"; });
    if (users.length < 2) return null;
    var chat = el("div", null, "conversation");
    chat.id = "conversation";
    var turn = 0;
    steps.forEach(function (s) {
      var text = typeof s.message === "string" ? s.message : (s.message ? JSON.stringify(s.message) : "");
      if (s.source === "user") {
        turn += 1;
        var who = "user · turn " + turn + (s.extra && s.extra.simulated_user ? " (simulated)" : "");
        var said = el("div", null, "turn user");
        said.appendChild(el("span", who, "who"));
        said.appendChild(el("p", text));
        chat.appendChild(said);
      } else if (s.source === "agent") {
        var calls = s.tool_calls || [];
        if (!calls.length && !text) return;
        var answer = el("div", null, "turn agent");
        answer.appendChild(el("span", "agent", "who"));
        calls.forEach(function (c) {
          answer.appendChild(el("code", "→ " + c.function_name + "(" + JSON.stringify(c.arguments) + ")", "call"));
        });
        if (text) answer.appendChild(el("p", text));
        chat.appendChild(answer);
      }
    });
    return chat;
  }
  function details(si) {
    var key = "t" + si;
    return state.details[key] || (state.details[key] = decode("traj-" + si));
  }
  function show(r) {
    var view = ui.viewer;
    view.hidden = false;
    view.textContent = "";
    view.appendChild(el("h3", "Run " + r.id + " (" + SIDES[r.side] + ", batch " + r.batch + ")"));
    var facts = el("p", r.status + " · " + passedText(r.passed) + " · " + r.steps + " steps · " +
      r.prompt + " prompt + " + r.completion + " completion tokens · " +
      (r.duration === null ? "?" : r.duration.toFixed(2)) + " s · tools: " + r.seq);
    view.appendChild(facts);
    if (r.criteria.length) view.appendChild(el("p", "failed criteria: " + r.criteria.join("; "), "bad"));
    if (r.error) view.appendChild(pre(r.error, "error"));
    details(r.si).then(function (sides) {
      var pair = sides[r.side][r.position];
      if (pair[0]) { view.appendChild(el("h4", "final output")); view.appendChild(pre(pair[0], "final")); }
      var trajectory = null;
      try { trajectory = pair[1] ? JSON.parse(pair[1]) : null; } catch (e) { trajectory = null; }
      var steps = el("div", null, "steps");
      steps.id = "steps";
      if (trajectory && Array.isArray(trajectory.steps)) {
        var chat = conversationView(trajectory.steps);
        if (chat) { view.appendChild(el("h4", "conversation")); view.appendChild(chat); }
        view.appendChild(el("h4", trajectory.steps.length + " steps"));
        trajectory.steps.forEach(function (s, i) { steps.appendChild(stepView(s, i + 1)); });
      } else {
        steps.appendChild(pre(pair[1] || "(no trajectory recorded)"));
      }
      view.appendChild(steps);
      view.scrollIntoView({ block: "start" });
    });
  }
  // A link into the page (report/html/_anchors.py): #run=ID&batch=B&side=S opens that run;
  // #explore=SCENARIO&passed=false&side=S shows a scenario's runs, filtered.
  function follow() {
    var want = new URLSearchParams(location.hash.slice(1));
    var side = ["baseline", "candidate"].indexOf(want.get("side"));
    if (want.has("run")) {
      var found = state.runs.filter(function (r) {
        return r.id === want.get("run") && (!want.has("batch") || r.batch === want.get("batch")) &&
          (side < 0 || r.side === side);
      })[0];
      if (!found) return;
      ui.scenario.value = found.scenario;
      refreshChoices();
      apply();
      show(found);
    } else if (want.has("explore")) {
      ui.scenario.value = want.get("explore");
      refreshChoices();
      ui.passed.value = want.get("passed") || "";
      ui.side.value = side < 0 ? "" : String(side);
      apply();
      document.getElementById("explorer").scrollIntoView({ block: "start" });
    }
  }
  function start() {
    var root = document.getElementById("explorer-ui");
    if (!root || !document.getElementById("run-rows")) { document.body.dataset.ready = "1"; return; }
    ["scenario", "side", "status", "passed", "criterion", "sequence", "count", "page", "prev", "next", "viewer"]
      .forEach(function (n) { ui[n] = document.getElementById("x-" + n); });
    ui.body = root.querySelector("tbody");
    SIDES = JSON.parse(root.dataset.sides);
    if (typeof DecompressionStream === "undefined") {
      root.hidden = false;
      root.textContent = "This browser cannot decompress the embedded runs (no DecompressionStream).";
      document.body.dataset.ready = "1";
      return;
    }
    decode("run-rows").then(function (data) {
      var names = load(data);
      options(ui.scenario, names.map(function (n) { return [n, n]; }), "all scenarios");
      ui.scenario.value = root.dataset.first || "";
      refreshChoices();
      ui.scenario.addEventListener("change", function () { refreshChoices(); apply(); });
      [ui.side, ui.status, ui.passed, ui.criterion, ui.sequence].forEach(function (s) { s.addEventListener("change", apply); });
      ui.prev.addEventListener("click", function () { state.page -= 1; render(); });
      ui.next.addEventListener("click", function () { state.page += 1; render(); });
      root.querySelectorAll("th[data-sort]").forEach(function (th) {
        th.addEventListener("click", function () {
          state.desc = state.sort === th.dataset.sort ? !state.desc : false;
          state.sort = th.dataset.sort;
          apply();
        });
      });
      document.querySelectorAll("a[data-explore]").forEach(function (a) {
        a.addEventListener("click", function () {
          ui.scenario.value = a.dataset.explore;
          refreshChoices();
          apply();
        });
      });
      if (PAIRS) PAIRS.attach({ runs: state.runs, sides: SIDES, details: details, el: el, visible: visible,
        exemplars: data.exemplars || {}, costs: data.alignment, before: ui.viewer,
        scenario: function () { return ui.scenario.value; } });
      root.hidden = false;
      apply();
      follow();
      window.addEventListener("hashchange", follow);
      document.body.dataset.ready = "1";
    }).catch(function (e) {
      root.hidden = false;
      root.textContent = "The embedded runs could not be read: " + e;
      document.body.dataset.ready = "1";
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
