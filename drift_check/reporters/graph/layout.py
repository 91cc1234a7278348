"""Where each node of the contract graph is drawn: a layered layout computed in Python.

Left to right, in the order work flows: what dispatches, the agents, what they return and
load. Each plugin is laid out on its own and drawn as a frame around its parts; inside it
(and outside any plugin) each connected part is laid out in layers (Sugiyama's method:
cycles broken, longest-path layers with sources pulled next to what they point at, dummy
nodes on long edges, barycentre ordering kept at its fewest crossings, rows placed by
isotonic regression), and the parts and frames are packed in shelves. Every step is linear or
near it in nodes and edges, so a 200-plugin marketplace lays out in well under a second.
Deterministic: ties are broken by node key.
"""

from __future__ import annotations

from collections import defaultdict, deque
from itertools import pairwise

from drift_check.graph import Graph
from drift_check.records import NamedTuple

NODE_W = 200.0
NODE_H = 28.0
LAYER_GAP = 90.0
ROW_GAP = 12.0
DUMMY_H = 4.0
PART_GAP = 36.0
FRAME_PAD = 14.0
FRAME_TITLE = 26.0
ASPECT = 1.6  # packed areas aim at this width / height, near a screen's
SWEEPS = 6

# the order of kinds when nothing else decides: dispatchers first, what they reach after
RANK = {
    "plugin": 0,
    "command": 1,
    "workflow": 1,
    "hook": 1,
    "agent": 2,
    "document": 3,
    "skill": 3,
    "marker": 4,
    "block": 4,
    "schema": 5,
}

Point = tuple[float, float]


class Box(NamedTuple):
    x: float
    y: float
    w: float
    h: float


class Layout(NamedTuple):
    boxes: dict[str, Box]  # by node key; a plugin's box is its frame
    routes: tuple[tuple[Point, ...], ...]  # one per graph edge, in `Graph.edges` order
    width: float
    height: float


class _Part(NamedTuple):
    """A laid-out piece, positions relative to its top left corner."""

    boxes: dict[str, Box]
    routes: dict[int, list[Point]]  # by edge index
    w: float
    h: float


def layout(graph: Graph) -> Layout:
    kinds = {n.key: n.kind for n in graph.nodes}
    groups = _groups(graph)
    members: dict[str | None, list[str]] = defaultdict(list)
    for n in graph.nodes:
        if n.kind != "plugin":
            members[groups[n.key]].append(n.key)
    inner: dict[str | None, list[tuple[int, str, str]]] = defaultdict(list)
    for i, e in enumerate(graph.edges):
        if groups[e.source] == groups[e.target] and e.source != e.target:
            inner[groups[e.source]].append((i, e.source, e.target))
    frames = {n.key: n for n in graph.nodes if n.kind == "plugin"}
    pieces: list[tuple[tuple[int, str], _Part, str | None]] = []
    for group in sorted(set(members) | {n.group for n in frames.values()}, key=_group_order):
        parts = [
            _layered(keys, edges, kinds)
            for keys, edges in _connected(members.get(group, []), inner.get(group, []))
        ]
        packed = _pack(parts, PART_GAP)
        frame = f"plugin:{group}" if group is not None and f"plugin:{group}" in frames else None
        if frame is not None:
            packed = _framed(packed, frame)
        pieces.append(((0 if frame is None else 1, str(group)), packed, frame))
    whole = _pack([p for _, p, _ in sorted(pieces, key=lambda t: t[0])], PART_GAP * 1.5)
    routes: list[tuple[Point, ...]] = []
    for i, e in enumerate(graph.edges):
        if i in whole.routes:
            routes.append(tuple(whole.routes[i]))
        else:  # between parts or plugins, or a loop: a curve from side to side
            a, b = whole.boxes[e.source], whole.boxes[e.target]
            routes.append(_between(a, b))
    return Layout(whole.boxes, tuple(routes), whole.w, whole.h)


def _group_order(group: str | None) -> tuple[int, str]:
    return (0, "") if group is None else (1, group)


def _groups(graph: Graph) -> dict[str, str | None]:
    """The plugin each node is drawn in: its own, or, for a node of no plugin (a marker, a
    missing agent), the one plugin all its neighbours are in."""
    groups = {n.key: n.group for n in graph.nodes}
    around: dict[str, set[str | None]] = defaultdict(set)
    for e in graph.edges:
        around[e.source].add(groups[e.target])
        around[e.target].add(groups[e.source])
    for n in graph.nodes:
        if n.group is None and n.kind != "plugin" and len(around[n.key]) == 1:
            groups[n.key] = next(iter(around[n.key]))
    return groups


def _connected(
    keys: list[str], edges: list[tuple[int, str, str]]
) -> list[tuple[list[str], list[tuple[int, str, str]]]]:
    """The connected parts, each with its edges, in the order of their first key."""
    parent = {k: k for k in keys}

    def find(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for _, s, t in edges:
        a, b = find(s), find(t)
        if a != b:
            parent[max(a, b)] = min(a, b)
    nodes: dict[str, list[str]] = defaultdict(list)
    for k in sorted(keys):
        nodes[find(k)].append(k)
    links: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for edge in edges:
        links[find(edge[1])].append(edge)
    return [(nodes[root], links[root]) for root in sorted(nodes)]


def _layered(keys: list[str], edges: list[tuple[int, str, str]], kinds: dict[str, str]) -> _Part:
    """One connected part in layers, left to right."""
    order = sorted(keys, key=lambda k: (RANK.get(kinds[k], 5), k))
    if len(order) == 1:
        return _Part({order[0]: Box(0.0, 0.0, NODE_W, NODE_H)}, {}, NODE_W, NODE_H)
    flipped = _feedback(order, edges)
    dag = [(i, t, s) if i in flipped else (i, s, t) for i, s, t in edges]
    layer = _layers(order, dag)
    # long edges pass through one dummy node per layer they cross
    chains: dict[int, list[str]] = {}
    succ: dict[str, list[str]] = defaultdict(list)
    pred: dict[str, list[str]] = defaultdict(list)
    for i, s, t in dag:
        chain = [s]
        for step in range(layer[s] + 1, layer[t]):
            dummy = f"\0{i}:{step}"
            layer[dummy] = step
            chain.append(dummy)
        chain.append(t)
        chains[i] = chain
        for a, b in pairwise(chain):
            succ[a].append(b)
            pred[b].append(a)
    rows = _order(order, layer, succ, pred)
    heights = {k: DUMMY_H if k.startswith("\0") else NODE_H for k in layer}
    ys = _rows_y(rows, succ, pred, heights)
    boxes: dict[str, Box] = {}
    for li, row in enumerate(rows):
        for k in row:
            boxes[k] = Box(li * (NODE_W + LAYER_GAP), ys[k], NODE_W, heights[k])
    routes: dict[int, list[Point]] = {}
    for i, chain in chains.items():
        points: list[Point] = []
        for j, k in enumerate(chain):
            b = boxes[k]
            mid = b.y + b.h / 2
            if j == 0:
                points.append((b.x + b.w, mid))
            elif j == len(chain) - 1:
                points.append((b.x, mid))
            else:  # straight through the dummy's column, so it never crosses a node there
                points += [(b.x, mid), (b.x + b.w, mid)]
        routes[i] = points[::-1] if i in flipped else points
    real = {k: b for k, b in boxes.items() if not k.startswith("\0")}
    width = max(b.x + b.w for b in boxes.values())
    height = max(b.y + b.h for b in boxes.values())
    return _Part(real, routes, width, height)


def _feedback(order: list[str], edges: list[tuple[int, str, str]]) -> set[int]:
    """Edges to turn around so that the part has no cycle: the back edges of a depth-first
    search started from the nodes in `order`."""
    out: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for i, s, t in edges:
        out[s].append((i, t))
    for targets in out.values():
        targets.sort(key=lambda it: it[1])
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    back: set[int] = set()
    for start in order:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(out[start]))]
        while stack:
            node, it = stack[-1]
            step = next(it, None)
            if step is None:
                state[node] = 2
                stack.pop()
                continue
            i, t = step
            if state.get(t) == 1:
                back.add(i)
            elif t not in state:
                state[t] = 1
                stack.append((t, iter(out[t])))
    return back


def _layers(order: list[str], dag: list[tuple[int, str, str]]) -> dict[str, int]:
    """Longest-path layers; then a node with no predecessor moves right, next to the first
    node it points at (a workflow that only consumes a marker sits beside the marker)."""
    succ: dict[str, list[str]] = defaultdict(list)
    indegree = dict.fromkeys(order, 0)
    for _, s, t in dag:
        succ[s].append(t)
        indegree[t] += 1
    layer = dict.fromkeys(order, 0)
    ready = deque(k for k in order if indegree[k] == 0)
    topo: list[str] = []
    while ready:
        k = ready.popleft()
        topo.append(k)
        for t in succ[k]:
            layer[t] = max(layer[t], layer[k] + 1)
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
    has_pred = {t for _, _, t in dag}
    for k in reversed(topo):
        if k not in has_pred and succ[k]:
            layer[k] = min(layer[t] for t in succ[k]) - 1
    return layer


def _order(
    order: list[str],
    layer: dict[str, int],
    succ: dict[str, list[str]],
    pred: dict[str, list[str]],
) -> list[list[str]]:
    """Nodes of each layer, in the order with the fewest crossings that barycentre sweeps
    found."""
    depth = max(layer.values()) + 1
    rows: list[list[str]] = [[] for _ in range(depth)]
    seen: set[str] = set()
    # first order: depth-first from the nodes in `order`, so related nodes start together
    for start in order:
        if start in seen:
            continue
        stack = [start]
        while stack:
            k = stack.pop()
            if k in seen:
                continue
            seen.add(k)
            rows[layer[k]].append(k)
            stack.extend(reversed(succ[k]))
    best = [list(r) for r in rows]
    fewest = _crossings(rows, succ)
    for sweep in range(2 * SWEEPS):
        if fewest == 0:
            break
        down = sweep % 2 == 0
        span = range(1, depth) if down else range(depth - 2, -1, -1)
        for li in span:
            near = rows[li - 1] if down else rows[li + 1]
            at = {k: i for i, k in enumerate(near)}
            links = pred if down else succ
            current = {k: i for i, k in enumerate(rows[li])}
            placed: dict[str, float] = {}
            for i, k in enumerate(rows[li]):
                found = [at[n] for n in links[k] if n in at]
                # a node without neighbours there keeps its place among the others
                before = placed[rows[li][i - 1]] if i else 0.0
                placed[k] = sum(found) / len(found) if found else before + 1e-6
            rows[li].sort(key=lambda k: (placed[k], current[k]))
        crossing = _crossings(rows, succ)
        if crossing < fewest:
            fewest, best = crossing, [list(r) for r in rows]
    return best


def _crossings(rows: list[list[str]], succ: dict[str, list[str]]) -> int:
    """Edge crossings between neighbouring layers (inversions, counted with a Fenwick
    tree)."""
    total = 0
    for upper, lower in pairwise(rows):
        at = {k: i for i, k in enumerate(lower)}
        ends = sorted((i, at[t]) for i, k in enumerate(upper) for t in succ[k] if t in at)
        tree = [0] * (len(lower) + 1)
        for seen, (_, j) in enumerate(ends):
            below = 0
            i = j + 1
            while i > 0:
                below += tree[i]
                i -= i & -i
            total += seen - below
            i = j + 1
            while i <= len(lower):
                tree[i] += 1
                i += i & -i
    return total


def _rows_y(
    rows: list[list[str]],
    succ: dict[str, list[str]],
    pred: dict[str, list[str]],
    heights: dict[str, float],
) -> dict[str, float]:
    """Vertical positions: each node as near as it can be to the middle of its neighbours in
    the next layer, in its layer's order, without overlaps."""
    ys: dict[str, float] = {}
    for row in rows:
        y = 0.0
        for k in row:
            ys[k] = y
            y += heights[k] + ROW_GAP
    depth = len(rows)
    for sweep in range(4):
        down = sweep % 2 == 0
        for li in range(1, depth) if down else range(depth - 2, -1, -1):
            links = pred if down else succ
            wanted = []
            for k in rows[li]:
                near = [ys[n] + heights[n] / 2 for n in links[k]]
                centre = sum(near) / len(near) if near else ys[k] + heights[k] / 2
                wanted.append(centre - heights[k] / 2)
            placed = _isotonic(wanted, [heights[k] for k in rows[li]])
            for k, y in zip(rows[li], placed, strict=True):
                ys[k] = y
    low = min(ys.values())
    return {k: y - low for k, y in ys.items()}


def _isotonic(wanted: list[float], heights: list[float]) -> list[float]:
    """The positions nearest (least squares) to `wanted` that keep their order with each
    node at least its height plus the gap below the one before (pool adjacent violators)."""
    offsets = []
    total = 0.0
    for h in heights:
        offsets.append(total)
        total += h + ROW_GAP
    blocks: list[list[float]] = []  # [sum, count]
    for w, o in zip(wanted, offsets, strict=True):
        blocks.append([w - o, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
    out: list[float] = []
    for s, n in blocks:
        out += [s / n] * int(n)
    return [z + o for z, o in zip(out, offsets, strict=True)]


def _pack(parts: list[_Part], gap: float) -> _Part:
    """Parts side by side in rows (shelves), tallest first, about ASPECT wide to high."""
    if not parts:
        return _Part({}, {}, 0.0, 0.0)
    area = sum((p.w + gap) * (p.h + gap) for p in parts)
    limit = max(max(p.w for p in parts), (area * ASPECT) ** 0.5)
    placed = sorted(range(len(parts)), key=lambda i: (-parts[i].h, -parts[i].w, i))
    boxes: dict[str, Box] = {}
    routes: dict[int, list[Point]] = {}
    x = y = row_h = width = 0.0
    for i in placed:
        p = parts[i]
        if x > 0 and x + p.w > limit:
            x, y, row_h = 0.0, y + row_h + gap, 0.0
        for k, b in p.boxes.items():
            boxes[k] = Box(b.x + x, b.y + y, b.w, b.h)
        for e, points in p.routes.items():
            routes[e] = [(px + x, py + y) for px, py in points]
        width = max(width, x + p.w)
        row_h = max(row_h, p.h)
        x += p.w + gap
    return _Part(boxes, routes, width, y + row_h)


def _framed(part: _Part, frame: str) -> _Part:
    """A plugin's parts inside its frame, under its title."""
    dx, dy = FRAME_PAD, FRAME_PAD + FRAME_TITLE
    boxes = {k: Box(b.x + dx, b.y + dy, b.w, b.h) for k, b in part.boxes.items()}
    routes = {e: [(x + dx, y + dy) for x, y in ps] for e, ps in part.routes.items()}
    w = max(part.w + 2 * FRAME_PAD, NODE_W)
    h = part.h + dy + (FRAME_PAD if part.boxes else 0.0)
    boxes[frame] = Box(0.0, 0.0, w, h)
    return _Part(boxes, routes, w, h)


def _between(a: Box, b: Box) -> tuple[Point, ...]:
    """An edge between boxes of different parts: from the side of `a` facing `b`."""
    if a == b:  # a file that dispatches to itself: a small loop on its right
        x, y = a.x + a.w, a.y + a.h / 2
        return ((x, y - 6), (x + 24, y - 6), (x + 24, y + 6), (x, y + 6))
    if b.x >= a.x + a.w:
        return ((a.x + a.w, a.y + a.h / 2), (b.x, b.y + b.h / 2))
    if a.x >= b.x + b.w:
        return ((a.x, a.y + a.h / 2), (b.x + b.w, b.y + b.h / 2))
    below = b.y > a.y
    return (
        (a.x + a.w / 2, a.y + (a.h if below else 0)),
        (b.x + b.w / 2, b.y + (0 if below else b.h)),
    )
