/* trajguard trend page: point at a chart to read that night's figures. Text is set as text. */
(function () {
  "use strict";
  var blob = document.getElementById("trend-data");
  if (!blob) { document.body.dataset.ready = "1"; return; }
  var data = JSON.parse(blob.textContent);
  function pct(x) { return Math.round(100 * x) + "%"; }
  function usd(x) {  /* as the report writes dollars: three significant digits, no exponent */
    if (x === 0) { return "$0"; }
    return "$" + x.toFixed(Math.max(2, 2 - Math.floor(Math.log10(Math.abs(x)))));
  }
  function wilson(k, n) {
    if (!n) { return [0, 1]; }
    var z = 1.959964, p = k / n, d = 1 + z * z / n;
    var c = (p + z * z / (2 * n)) / d;
    var h = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
    return [Math.max(0, c - h), Math.min(1, c + h)];
  }
  function night(rows, index) {
    var lo = 0, hi = rows.length - 1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (rows[mid][0] === index) { return rows[mid]; }
      if (rows[mid][0] < index) { lo = mid + 1; } else { hi = mid - 1; }
    }
    return null;
  }
  function describe(k, index) {
    var head = data.dates[index] + " (" + data.ids[index] + ")";
    var row = night(data.scenarios[k], index);
    if (!row) { return head + ": not run that night"; }
    var passes = row[1], runs = row[2], ci = wilson(passes, runs);
    var parts = [head + ": pass " + passes + "/" + runs + " = " + pct(runs ? passes / runs : 0) +
      " (" + pct(ci[0]) + "–" + pct(ci[1]) + ")", "crash " + pct(runs ? row[3] / runs : 0)];
    parts.push(row[4] === null ? "tool mix: no baseline" : "tool mix TVD " + row[4].toFixed(2));
    parts.push(row[5] === null ? "tokens –" : "tokens " + row[5]);
    if (row[6] !== null && row[6] !== undefined) { parts.push("cost " + usd(row[6]) + " per run"); }
    return parts.join(" · ");
  }
  var SVG = "http://www.w3.org/2000/svg";
  function point(event) {
    var svg = event.target.closest ? event.target.closest("svg.chart") : null;
    if (!svg) { return; }
    var section = svg.closest("section.scenario");
    var k = +section.dataset.k, n = +svg.dataset.nights;
    var box = svg.getBoundingClientRect(), scale = box.width / svg.viewBox.baseVal.width;
    var left = +svg.dataset.left, inner = svg.viewBox.baseVal.width - left - +svg.dataset.right;
    var x = (event.clientX - box.left) / scale;
    var index = n > 1 ? Math.round((x - left) / inner * (n - 1)) : 0;
    index = Math.max(0, Math.min(n - 1, index));
    section.querySelector(".readout").textContent = describe(k, index);
    var at = n > 1 ? left + inner * index / (n - 1) : left + inner / 2;
    section.querySelectorAll("svg.chart").forEach(function (chart) {
      var line = chart.querySelector("line.cursor");
      if (!line) {
        line = document.createElementNS(SVG, "line");
        line.setAttribute("class", "cursor");
        line.setAttribute("y1", "8");
        line.setAttribute("y2", String(chart.viewBox.baseVal.height - 18));
        chart.appendChild(line);
      }
      line.setAttribute("x1", at.toFixed(1));
      line.setAttribute("x2", at.toFixed(1));
    });
  }
  document.addEventListener("mousemove", point);
  document.addEventListener("click", point);
  document.body.dataset.ready = "1";
}());
