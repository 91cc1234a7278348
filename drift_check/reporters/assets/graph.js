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

  function apply() {
    view.setAttribute("transform", "translate(" + tx + " " + ty + ") scale(" + scale + ")");
    svg.classList.toggle("far", scale < FAR);
  }

  function fit(indexes) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const i of indexes) {
      const b = data.nodes[i].box;
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
    if (g) { select(Number(g.id.slice(1))); focus(); }
  });

  function neighbours(i) {
    const out = new Set([i]);
    for (const e of around[i]) { out.add(data.edges[e].s); out.add(data.edges[e].t); }
    for (const m of members[i]) out.add(m);
    if (data.nodes[i].plugin !== undefined) out.add(data.nodes[i].plugin);
    return out;
  }

  function select(i) {
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

  function focus() {
    if (selected < 0) return;
    const keep = neighbours(selected);
    nodes.forEach((el, i) => el.classList.toggle("hide", !keep.has(i)));
    edges.forEach((el, i) => {
      const e = data.edges[i];
      el.classList.toggle("hide", !(keep.has(e.s) && keep.has(e.t)));
    });
    fit(Array.from(keep).filter((n) => data.nodes[n].kind !== "plugin" || members[n].length === 0));
  }

  function applyFilter() {
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
  }

  let timer = 0;
  filter.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(applyFilter, 120);
  });
  onlyFindings.addEventListener("change", applyFilter);
  focusButton.addEventListener("click", focus);
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
    li.append(el("span", "code", f.code), " ", el("span", "muted", f.name), ": ", f.message);
    return li;
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
  requestAnimationFrame(() => {
    document.body.dataset.ready = String(Math.round(performance.now()));
  });
})();
