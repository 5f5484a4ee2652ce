// One seat's page: draws what the server sends and sends the option clicked.
// Everything is drawn with textContent: texts from a rules file are never read as HTML.
"use strict";
const token = location.pathname.split("/").pop();
let socket = null, page = null, retry = 500;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

function grid(rows, hidden) {
  const t = el("table", {class: "grid" + (hidden ? " hidden" : "")});
  const width = Math.max(...rows.map(r => r.length));
  const head = el("tr", {}, el("th"));
  for (let c = 1; c <= width; c++) head.append(el("th", {text: String(c)}));
  t.append(head);
  rows.forEach((row, i) => {
    const tr = el("tr", {}, el("th", {text: String(i + 1)}));
    for (const cell of row) tr.append(el("td", {text: cell}));
    t.append(tr);
  });
  return t;
}

// A value as present.py lays it out: hidden, grid, list, map or text.
function value(v) {
  if (v.error) return el("span", {class: "hidden", text: "(cannot be shown: " + v.error + ")"});
  if (v.hidden !== undefined) {
    const span = el("span", {class: "hidden", text: v.hidden});
    return v.grid ? el("div", {}, span, grid(v.grid, true)) : span;
  }
  if (v.grid) return grid(v.grid, false);
  if (v.list) {
    if (!v.list.length) return el("span", {class: "hidden", text: "none"});
    return el("ul", {class: "items"}, ...v.list.map(x => el("li", {text: x})));
  }
  if (v.map) {
    const t = el("table", {class: "map"});
    for (const [k, x] of v.map) t.append(el("tr", {}, el("td", {text: k}), el("td", {text: x})));
    return t;
  }
  return el("span", {text: v.text});
}

function fields(list) {
  const dl = el("dl");
  for (const f of list) dl.append(el("dt", {text: f.name}), el("dd", {}, value(f.value)));
  return dl;
}

function decide(id) {
  document.querySelectorAll("button.option").forEach(b => b.disabled = true);
  socket.send(JSON.stringify({type: "decide", option: id, version: page.version}));
}

function drawDecision(p) {
  const box = document.getElementById("decision");
  box.replaceChildren();
  box.className = "panel";
  if (p.error) {  // a broken rule stopped the game: where, never why (it may name hidden values)
    box.append(el("div", {class: "over", text: "The rules stopped the game: " + p.error}));
    return;
  }
  if (p.over) {
    const who = p.winners.length ? p.winners.join(", ") : "nobody";
    box.append(el("div", {class: "over", text: "Game over. Winner(s): " + who}));
    return;
  }
  const d = p.decision;
  if (!d) return;
  if (!d.mine) {
    const what = d.prompt ? ": " + d.prompt : "";
    box.append(el("div", {class: "waiting", text: "Waiting for player " + d.player + what}));
    return;
  }
  box.classList.add("mine");
  box.append(el("div", {class: "prompt", text: "Your decision: " + (d.prompt || "Choose")}));
  for (const v of d.showing) box.append(el("div", {class: "showing"}, value(v)));
  const opts = el("div", {class: "options"});
  for (const o of d.options) {
    const b = el("button", {class: "option", "data-id": o.id, text: o.label},
                 o.count > 1 ? el("span", {class: "count", text: " ×" + o.count}) : null);
    b.addEventListener("click", () => decide(o.id));
    opts.append(b);
  }
  box.append(opts);
}

function draw(p) {
  page = p;
  document.body.dataset.version = p.version;
  document.body.dataset.over = p.over ? "yes" : "no";
  document.title = p.title + (p.viewer ? " — player " + p.viewer : " — watching");
  document.getElementById("heading").textContent = p.heading;
  drawDecision(p);
  const table = document.getElementById("table");
  table.hidden = !p.table.length;
  document.getElementById("table-fields").replaceChildren(fields(p.table));
  document.getElementById("seats").replaceChildren(...p.seats.map(s => {
    const cls = "seat" + (s.you ? " you" : "") + (s.deciding ? " deciding" : "");
    const title = el("h3", {text: s.name + (s.you ? " (you)" : "")},
                     ...s.tags.map(t => el("span", {class: "tag", text: t})));
    return el("div", {class: cls, "data-seat": String(s.seat)}, title, fields(s.fields));
  }));
  const log = document.getElementById("log-lines");
  log.start = p.log_total - p.log.length + 1;
  log.replaceChildren(...p.log.map(line => el("li", {text: line})));
  log.scrollTop = log.scrollHeight;
}

// At a hot seat, the screen changes hands between people: as at the terminal, the next
// person's view waits behind a cover until they say only they are looking.
function handOver(p) {
  const next = p.viewer, shown = page ? page.viewer : undefined;
  if (!p.hot_seat || next === null || next === shown) { draw(p); return; }
  page = Object.assign({}, p, {viewer: shown});  // stays behind until the cover is lifted
  const cover = el("div", {id: "cover"},
    el("p", {text: "Pass the screen to player " + next + "."}),
    el("button", {id: "uncover", text: "I am player " + next + ": show my view"}));
  cover.querySelector("button").addEventListener("click", () => { cover.remove(); draw(p); });
  document.getElementById("cover")?.remove();
  document.body.append(cover);
}

function say(text) {
  const m = document.getElementById("message");
  m.textContent = text;
  m.hidden = !text;
}

function connect() {
  const status = document.getElementById("status");
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + location.host + "/ws/" + token);
  socket.onopen = () => { retry = 500; status.textContent = "connected"; status.className = "status"; };
  socket.onmessage = event => {
    const msg = JSON.parse(event.data);
    if (msg.type === "error") say(msg.message); else say("");
    // two decisions close together may be told out of order: a page never goes back
    if (msg.page && !(page && msg.page.version < page.version)) handOver(msg.page);
  };
  socket.onclose = event => {
    if (event.code === 4404) { status.textContent = "no table has this link"; return; }
    status.textContent = "reconnecting…"; status.className = "status offline";
    setTimeout(connect, retry);          // a server restarted from its save takes us back
    retry = Math.min(retry * 2, 8000);
  };
}

connect();
