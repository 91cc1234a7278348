"use strict";
// The graph page: pan and zoom, the filter box, a click shows a node's findings and
// neighbours, Focus keeps one node and its neighbours. Text from the tree is only ever set
// with textContent; links are the relative hrefs the page was written with.
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const svg = document.getElementById("graph");
  const view = document.getElementById("viewport");
  const canvas = document.getElementById("canvas");
  const panel = document.getElementById("panel");
  const filter = document.getElementById("filter");
  const onlyFindings = document.getElementById("only-findings");
  const focusButton = document.getElementById("focus");
  const nodes = data.nodes.map((_, i) => document.getElementById("n" + i));
  const edges = data.edges.map((_, i) => document.getElementById("e" + i));
  const routes = edges.map((el) => el.getAttribute("d"));
  const around = data.nodes.map(() => []);
  data.edges.forEach((e, i) => {
    around[e.s].push(i);
    if (e.t !== e.s) around[e.t].push(i);
  });
  const members = data.nodes.map(() => []);
  data.nodes.forEach((n, i) => {
    if (n.plugin !== undefined) members[n.plugin].push(i);
  });

  const FAR = 0.45;  // below this scale labels are unreadable, and are not drawn
  let scale = 1, tx = 0, ty = 0, selected = -1;
  // in focus, the node and its neighbours are drawn apart, in three columns: what points at
  // it, the node, what it points at; `moved` holds their boxes there
  let focused = -1, moved = null;

  function boxOf(i) {
    return moved && moved.has(i) ? moved.get(i) : data.nodes[i].box;
  }

  function apply() {
    view.setAttribute("transform", "translate(" + tx + " " + ty + ") scale(" + scale + ")");
    svg.classList.toggle("far", scale < FAR);
    if (scale >= FAR) label();
  }

  // Labels, written once, the first time they can be read: a large graph opens zoomed out
  // and never pays for thousands of labels nobody can see.
  let labelled = false;
  function label() {
    if (labelled) return;
    labelled = true;
    const ns = "http://www.w3.org/2000/svg";
    data.nodes.forEach((n, i) => {
      if (n.kind === "plugin") return;
      const count = n.findings ? n.findings.length : 0;
      const text = fitted(n.label.split(/\s+/).filter(Boolean).join(" ") || "(unnamed)",
        n.box[2] - 20 - (count ? 30 : 0));
      const t = document.createElementNS(ns, "text");
      t.setAttribute("x", "10");
      t.setAttribute("y", "18");
      t.textContent = text;
      nodes[i].append(t);
      if (count) {
        const b = document.createElementNS(ns, "text");
        b.setAttribute("class", "badge");
        b.setAttribute("x", String(n.box[2] - 8));
        b.setAttribute("y", "18");
        b.setAttribute("text-anchor", "end");
        b.textContent = "\u26a0" + count;
        nodes[i].append(b);
      }
    });
  }

  // the label, cut to about `room` pixels at 12px (capitals and digits are wider); measuring
  // each label in the page would lay out thousands of them one by one
  function fitted(text, room) {
    let width = 0;
    for (let k = 0; k < text.length; k++) {
      const c = text[k];
      width += c >= "A" && c <= "Z" || c >= "0" && c <= "9" || c > "\u2e7f" ? 8.4 : c === " " ? 3.8 : 6.8;
      if (width > room) return text.slice(0, Math.max(k - 1, 1)) + "\u2026";
    }
    return text;
  }

  function fit(indexes) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const i of indexes) {
      const b = boxOf(i);
      x0 = Math.min(x0, b[0]); y0 = Math.min(y0, b[1]);
      x1 = Math.max(x1, b[0] + b[2]); y1 = Math.max(y1, b[1] + b[3]);
    }
    const w = canvas.clientWidth || 800, h = canvas.clientHeight || 600;
    if (!isFinite(x0)) { scale = 1; tx = 0; ty = 0; apply(); return; }
    const pad = 24;
    scale = Math.min(2, (w - 2 * pad) / Math.max(x1 - x0, 1), (h - 2 * pad) / Math.max(y1 - y0, 1));
    tx = (w - (x1 - x0) * scale) / 2 - x0 * scale;
    ty = (h - (y1 - y0) * scale) / 2 - y0 * scale;
    apply();
  }

  function visible() {
    return data.nodes.map((_, i) => i).filter((i) => !nodes[i].classList.contains("hide"));
  }

  function zoom(factor, cx, cy) {
    const next = Math.max(0.02, Math.min(8, scale * factor));
    tx = cx - (cx - tx) * (next / scale);
    ty = cy - (cy - ty) * (next / scale);
    scale = next;
    apply();
  }

  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    zoom(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });

  let drag = null;
  svg.addEventListener("pointerdown", (ev) => {
    drag = { x: ev.clientX, y: ev.clientY, tx: tx, ty: ty, moved: false };
  });
  window.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!drag.moved) canvas.classList.add("panning");
    drag.moved = true;
    tx = drag.tx + dx; ty = drag.ty + dy;
    apply();
  });
  window.addEventListener("pointerup", () => {
    canvas.classList.remove("panning");
    setTimeout(() => { drag = null; }, 0);
  });

  svg.addEventListener("click", (ev) => {
    if (drag && drag.moved) return;
    const g = ev.target.closest(".n");
    select(g ? Number(g.id.slice(1)) : -1);
  });
  svg.addEventListener("dblclick", (ev) => {
    const g = ev.target.closest(".n");
    if (g) focus(Number(g.id.slice(1)));
  });

  function neighbours(i) {
    const out = new Set([i]);
    for (const e of around[i]) { out.add(data.edges[e].s); out.add(data.edges[e].t); }
    for (const m of members[i]) out.add(m);
    if (data.nodes[i].plugin !== undefined) out.add(data.nodes[i].plugin);
    return out;
  }

  function select(i) {
    if (focused >= 0 && i >= 0 && i !== focused) { focus(i); return; }
    for (const el of svg.querySelectorAll(".sel, .near")) el.classList.remove("sel", "near");
    selected = i;
    focusButton.disabled = i < 0;
    if (i < 0) { svg.classList.remove("dim"); overview(); return; }
    svg.classList.add("dim");
    nodes[i].classList.add("sel");
    for (const n of neighbours(i)) if (n !== i) nodes[n].classList.add("near");
    for (const e of around[i]) edges[e].classList.add("near");
    details(i);
  }

  function focus(i) {
    if (i === undefined) i = selected;
    if (i < 0) return;
    unfocus();
    const keep = neighbours(i);
    nodes.forEach((el, k) => el.classList.toggle("hide", !keep.has(k)));
    edges.forEach((el, k) => {
      const e = data.edges[k];
      el.classList.toggle("hide", !(keep.has(e.s) && keep.has(e.t)));
    });
    focused = i;
    if (data.nodes[i].kind === "plugin") {
      // a plugin is already drawn together: its frame and parts, where they are
      selected = -1;
      select(i);
      fit([i]);
      return;
    }
    const before = [], after = [];
    for (const k of around[i]) {
      const e = data.edges[k];
      if (e.t === i && e.s !== i && !before.includes(e.s)) before.push(e.s);
    }
    for (const k of around[i]) {
      const e = data.edges[k];
      if (e.s === i && e.t !== i && !before.includes(e.t) && !after.includes(e.t)) after.push(e.t);
    }
    const gap = 12, column = data.nodes[i].box[2] + 140;
    moved = new Map();
    const stack = (list, x) => list.forEach((k, j) => {
      const b = data.nodes[k].box;
      moved.set(k, [x, (j - (list.length - 1) / 2) * (b[3] + gap), b[2], b[3]]);
    });
    stack(before, -column);
    stack([i], 0);
    stack(after, column);
    for (const [k, b] of moved) nodes[k].setAttribute("transform", "translate(" + b[0] + " " + b[1] + ")");
    for (const el of document.querySelectorAll("#frames > g")) el.classList.add("hide");
    edges.forEach((el, k) => {
      const e = data.edges[k];
      if (moved.has(e.s) && moved.has(e.t)) el.setAttribute("d", curve(moved.get(e.s), moved.get(e.t)));
    });
    selected = -1;
    select(i);
    fit(Array.from(moved.keys()));
  }

  // an edge between two moved boxes: from the side of one facing the other
  function curve(a, b) {
    const forward = b[0] >= a[0] + a[2];
    const x0 = forward ? a[0] + a[2] : a[0], y0 = a[1] + a[3] / 2;
    const x1 = forward ? b[0] : b[0] + b[2], y1 = b[1] + b[3] / 2;
    if (a === b || (x0 === x1 && y0 === y1)) return "M" + x0 + " " + y0;
    if (Math.abs(x1 - x0) < 1) {  // in one column: a bow to the right
      const x = x0 + a[2] + 40;
      return "M" + (x0 + a[2]) + " " + y0 + "C" + x + " " + y0 + " " + x + " " + y1 + " " + (x1 + b[2]) + " " + y1;
    }
    const dx = (x1 - x0) / 2;
    return "M" + x0 + " " + y0 + "C" + (x0 + dx) + " " + y0 + " " + (x1 - dx) + " " + y1 + " " + x1 + " " + y1;
  }

  function unfocus() {
    if (moved) {
      for (const k of moved.keys()) {
        const b = data.nodes[k].box;
        nodes[k].setAttribute("transform", "translate(" + b[0] + " " + b[1] + ")");
      }
      edges.forEach((el, k) => el.setAttribute("d", routes[k]));
    }
    moved = null;
    focused = -1;
  }

  function applyFilter() {
    unfocus();
    const q = filter.value.trim().toLowerCase();
    const only = onlyFindings.checked;
    const shown = data.nodes.map((n) => {
      if (only && !(n.findings && n.findings.length)) return false;
      if (!q) return true;
      const kind = data.kinds[n.kind] || n.kind;
      return (n.label + "\n" + (n.path || "") + "\n" + kind).toLowerCase().includes(q);
    });
    // a plugin stays while any of its parts does; its parts stay when it matches
    data.nodes.forEach((n, i) => {
      if (n.plugin !== undefined && shown[i]) shown[n.plugin] = true;
    });
    data.nodes.forEach((n, i) => {
      if (n.plugin !== undefined && shown[n.plugin] && q && !only) {
        const p = data.nodes[n.plugin];
        if ((p.label + "\n" + (p.path || "")).toLowerCase().includes(q)) shown[i] = true;
      }
    });
    nodes.forEach((el, i) => el.classList.toggle("hide", !shown[i]));
    edges.forEach((el, i) => {
      const e = data.edges[i];
      el.classList.toggle("hide", !(shown[e.s] && shown[e.t]));
    });
    // what the filter kept, in view: on a large graph the matches are specks otherwise
    const kept = visible();
    if (kept.length) fit(kept);
  }

  let timer = 0;
  filter.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(applyFilter, 120);
  });
  onlyFindings.addEventListener("change", applyFilter);
  focusButton.addEventListener("click", () => focus());
  document.getElementById("all").addEventListener("click", () => {
    filter.value = "";
    onlyFindings.checked = false;
    applyFilter();
    select(-1);
    fit(data.nodes.map((_, i) => i));
  });
  document.getElementById("fit").addEventListener("click", () => fit(visible()));
  document.getElementById("zoom-in").addEventListener("click", () =>
    zoom(1.25, canvas.clientWidth / 2, canvas.clientHeight / 2));
  document.getElementById("zoom-out").addEventListener("click", () =>
    zoom(0.8, canvas.clientWidth / 2, canvas.clientHeight / 2));
  window.addEventListener("keydown", (ev) => {
    if (ev.target === filter) { if (ev.key === "Escape") { filter.value = ""; applyFilter(); } return; }
    if (ev.key === "Escape") select(-1);
    if (ev.key === "f" && selected >= 0) focus();
    if (ev.key === "Escape" && focused >= 0) document.getElementById("all").click();
  });

  function el(tag, cls, content) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    return e;
  }

  function where(path, line) {
    const a = el("a", "", path + (line ? ":" + line : ""));
    a.href = data.base + "/" + path.split("/").map(encodeURIComponent).join("/") + (line ? "#L" + line : "");
    return a;
  }

  function findingItem(k) {
    const f = data.findings[k];
    const li = el("li", "finding sev-" + f.severity);
    if (f.path) { li.append(where(f.path, f.line), " "); }
    li.append(el("span", "code", f.code), " ", el("span", "muted", f.name), ": ", ...prose(f.message));
    return li;
  }

  // a message's `backtick spans` as code, the rest as text
  function prose(text) {
    return text.split(/`([^`\n]+)`/).map((part, k) => (k % 2 ? el("code", "", part) : part));
  }

  function findingList(indexes) {
    const ul = el("ul", "findings");
    for (const k of indexes) ul.append(findingItem(k));
    return ul;
  }

  function nodeButton(i) {
    const b = el("button", "linkish", data.nodes[i].label);
    b.type = "button";
    b.addEventListener("click", () => select(i));
    return b;
  }

  function details(i) {
    const n = data.nodes[i];
    panel.replaceChildren();
    panel.append(el("div", "muted", (data.kinds[n.kind] || n.kind) + (n.missing ? " (missing: nothing in the tree has this name)" : "")));
    panel.append(el("h2", "", n.label));
    if (n.path) { const d = el("div"); d.append(where(n.path, n.line)); panel.append(d); }
    if (n.plugin !== undefined) {
      const p = el("div", "muted", "in plugin ");
      p.append(nodeButton(n.plugin));
      panel.append(p);
    }
    const own = n.findings || [];
    panel.append(el("h3", "", own.length ? own.length + " finding" + (own.length === 1 ? "" : "s") : "No findings"));
    if (own.length) panel.append(findingList(own));
    const lines = { out: [], in: [] };
    for (const k of around[i]) {
      const e = data.edges[k];
      const outward = e.s === i;
      const li = el("li", e.findings ? "finding sev-error" : "");
      li.append(el("span", "muted", outward ? e.kind + " → " : "← " + e.kind + " by "), nodeButton(outward ? e.t : e.s));
      if (e.path) { li.append(" ", where(e.path, e.line)); }
      if (e.findings) li.append(findingList(e.findings));
      lines[outward ? "out" : "in"].push(li);
    }
    for (const [key, title] of [["out", "Points at"], ["in", "Pointed at by"]]) {
      if (!lines[key].length) continue;
      panel.append(el("h3", "", title));
      const ul = el("ul", "edges");
      ul.append(...lines[key]);
      panel.append(ul);
    }
    if (members[i].length) {
      panel.append(el("h3", "", members[i].length + " parts"));
      const ul = el("ul");
      for (const m of members[i]) { const li = el("li"); li.append(nodeButton(m)); ul.append(li); }
      panel.append(ul);
    }
  }

  function overview() {
    panel.replaceChildren();
    panel.append(el("h2", "", "Contract graph"));
    panel.append(el("p", "muted", "Click a node for its findings and neighbours; double-click or Focus to keep only them. Drag to pan, wheel to zoom. Red: a node or edge with findings."));
    const failing = data.nodes.map((n, i) => i).filter((i) => data.nodes[i].findings);
    panel.append(el("h3", "", failing.length + " nodes with findings"));
    const ul = el("ul");
    for (const i of failing.slice(0, 500)) {
      const li = el("li");
      li.append(nodeButton(i), el("span", "muted", " " + data.nodes[i].findings.length));
      ul.append(li);
    }
    panel.append(ul);
    if (data.unplaced.length) {
      panel.append(el("h3", "", "Findings on no node"));
      panel.append(findingList(data.unplaced));
    }
  }

  overview();
  fit(data.nodes.map((_, i) => i));
  // drawn: the first frame after this script has been painted (tests and the benchmark wait
  // for it; the value is milliseconds since the page was asked for)
  requestAnimationFrame(() => setTimeout(() => {
    document.body.dataset.ready = String(Math.round(performance.now()));
  }, 0));
})();
