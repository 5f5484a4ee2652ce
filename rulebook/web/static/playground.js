// The playground: the file's text in a CodeMirror editor (static/codemirror.js, built from
// editor/), saved and checked a moment after each edit; diagnostics are drawn in place.
// Everything from the server is drawn with textContent, never as HTML.
"use strict";
const base = location.pathname.replace(/\/$/, "");
const status = document.getElementById("status");
let timer = null, editor = null;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

function goTo(line, column) { editor.goTo(line, column); }

function where(d) {
  const place = (d.file ? d.file + ":" : "") + (d.line ? d.line + ":" + (d.column || 1) : "");
  const span = el("span", {class: "where", text: place || "file"});
  if (d.line && !d.file) span.addEventListener("click", () => goTo(d.line, d.column));
  return span;
}

function diagnosticItem(d) {
  return el("li", {class: d.severity},
    where(d), " ", el("span", {class: "code", text: d.severity + "[" + d.code + "]"}),
    " " + d.message, d.hint ? el("div", {class: "hint", text: "help: " + d.hint}) : null);
}

function drawChecked(result) {
  editor.show(result.diagnostics);
  const list = document.getElementById("diagnostics");
  list.replaceChildren(...(result.diagnostics.length ? result.diagnostics.map(diagnosticItem)
                           : [el("li", {class: "clean", text: "no problems found"})]));
  document.getElementById("assumptions").replaceChildren(...(result.assumptions.length
    ? result.assumptions.map(a => el("li", {}, where(a), " " + a.name + ": " + a.reason))
    : [el("li", {text: "no assumed declarations"})]));
}

async function post(path, body) {
  const r = await fetch(base + path, {method: "POST", body: body, headers: {"content-type": "application/json"}});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

async function save() {
  status.textContent = "checking…";
  try {
    drawChecked(await post("/save", editor.text()));
    status.textContent = "saved and checked";
  } catch (e) { status.textContent = "not saved: " + e.message; }
}

function edited() {
  status.textContent = "editing…";
  clearTimeout(timer);
  timer = setTimeout(save, 400);
}

document.getElementById("run-scenarios").addEventListener("click", async () => {
  clearTimeout(timer);
  await save();
  const list = document.getElementById("scenarios");
  list.replaceChildren(el("li", {text: "running…"}));
  try {
    const r = await post("/scenarios", "{}");
    const items = r.diagnostics.map(diagnosticItem);
    for (const s of r.results) {
      items.push(el("li", {class: s.passed ? "pass" : "fail"},
        where({line: s.line}), " " + (s.passed ? "PASS " : "FAIL ") + s.name));
      for (const f of s.failures) items.push(diagnosticItem(f));
    }
    if (!items.length) items.push(el("li", {text: "this file holds no scenarios"}));
    const passed = r.results.filter(s => s.passed).length;
    if (r.results.length) items.push(el("li", {class: "summary",
      text: passed + " passed, " + (r.results.length - passed) + " failed"}));
    list.replaceChildren(...items);
  } catch (e) { list.replaceChildren(el("li", {class: "fail", text: e.message})); }
});

document.getElementById("play").addEventListener("click", async () => {
  clearTimeout(timer);
  await save();
  const out = document.getElementById("play-result");
  const players = parseInt(document.getElementById("players").value, 10);
  try {
    const r = await post("/play", JSON.stringify({players: isNaN(players) ? null : players}));
    const link = el("a", {id: "play-link", href: r.link, target: "_blank", rel: "noopener noreferrer",
                          text: "open the table (pass the screen to whoever decides)"});
    out.replaceChildren(link);
    window.open(r.link, "_blank", "noopener,noreferrer");
  } catch (e) { out.replaceChildren(el("span", {class: "fail", text: e.message})); }
});

const pct = v => v === null || v === undefined ? "–" : (100 * v).toFixed(1) + "%";
const num = v => v === null || v === undefined ? "–" : v.toFixed(2);

// The balance test's verdict, as the report words it.
function balance(r) {
  const b = r.balance;
  if (!b) return el("div", {class: "verdict", text: "no test of seat balance: fewer than two players' seats, or no wins"});
  return el("div", {class: "verdict " + (b.balanced_at_5_percent ? "ok" : "bad"),
    text: `seat balance: χ² = ${b.statistic.toFixed(2)}, p = ${b.p_value.toPrecision(3)}: ` +
          (b.balanced_at_5_percent ? "no evidence that a seat is favoured (5% level)"
                                   : "the seats do not win equally often (5% level)")});
}

// Win rates with their 95% (Wilson) intervals and mean scores: the report's figures.
function seatTable(r) {
  const row = (cells, tag) => el("tr", {}, ...cells.map(c => el(tag, {text: String(c)})));
  return el("table", {class: "figures"},
    el("thead", {}, row(["seat", "wins", "win rate", "95% interval", "mean score"], "th")),
    el("tbody", {}, ...r.seats.map(s => row([s.seat + (s.automaton ? " (automaton)" : ""),
      s.wins, pct(s.rate), pct(s.low) + " – " + pct(s.high), num(s.mean_score)], "td"))));
}

// The report's own plots (PNG from matplotlib), sent as data URIs: nothing else is an image.
function plot(p) {
  if (!p.src.startsWith("data:image/png;base64,")) return null;
  return el("figure", {}, el("figcaption", {text: p.alt}), el("img", {class: "plot", src: p.src, alt: p.alt}));
}

document.getElementById("simulate").addEventListener("click", async () => {
  clearTimeout(timer);
  await save();
  const out = document.getElementById("simulation");
  out.replaceChildren(el("div", {text: "running…"}));
  const games = parseInt(document.getElementById("sim-games").value, 10);
  const players = parseInt(document.getElementById("players").value, 10);
  try {
    const r = await post("/simulate", JSON.stringify({games: games, players: isNaN(players) ? null : players}));
    out.replaceChildren(...[
      el("div", {class: "summary", text: `${r.games} games (seed ${r.seed}) in ${r.seconds} s: completed ${r.completed}, errors ${r.errors}, shared victories ${r.shared_victories}`}),
      balance(r), seatTable(r), ...r.plots.map(plot),
    ].filter(Boolean));
  } catch (e) { out.replaceChildren(el("span", {class: "fail", text: e.message})); }
});

(async () => {
  const r = await fetch(base + "/file");
  const data = await r.json();
  document.getElementById("name").textContent = data.name;
  editor = RulebookEditor.create(document.getElementById("editor"), data.text, edited);
  drawChecked(data);
  status.textContent = "saved and checked";
})();
