"""The documentation site's diagrams: SVG files made by this script, never drawn by hand.

    python tools/docs/diagrams.py           # exit 1 and list the files that differ from what the script makes
    python tools/docs/diagrams.py --write   # (re)write docs/assets/diagrams/<name>.svg

No CDN is reachable where the site is viewed or checked, so there is no Mermaid: each picture is a plain SVG file
in the repository, and tests/test_diagrams.py fails while a file differs from what this script makes.

A diagram is declared, not drawn. `Box`es (a bold title, optionally further lines) sit in the cells of one grid
(row, column, optional spans); `Group`s are labelled frames drawn around sets of boxes and groups (a cluster, a
namespace, a chart, a process); `Arrow`s join boxes or groups and carry short labels. `layout` sizes every column
and row from the text it holds (text width estimated from the character count with a safe factor), widens the gaps
between cells wherever frames need room for their padding and label, routes the arrows and then checks the result:
no box outside a frame it is not a member of, no arrow through a box or another arrow, no label on a box, a frame's
label or another label. A diagram that breaks one of these raises `LayoutError` naming it, so a bad picture cannot
be written. `render` turns the layout into SVG text with fixed number formatting: the same input gives the same
bytes. Every coordinate and size here is in px, SVG user units; the viewBox is the drawing's size at 1:1.

floors.svg is made from the import-linter contracts in pyproject.toml (`[tool.importlinter]`), so it cannot drift
from the layers import-linter enforces; the other diagrams are written from README.md, docs/design.md, manifests/
and charts/.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import textwrap
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal

ROOT: Final = Path(__file__).resolve().parents[2]
OUT_DIR: Final = ROOT / "docs" / "assets" / "diagrams"
SVG_NS: Final = "http://www.w3.org/2000/svg"

# Text sizes (px) and line heights (px). Widths are estimated, not measured: characters x size x factor. DejaVu Sans,
# the widest of the usual sans-serif fonts (and what fontconfig gives Debian's Chromium for `sans-serif`), takes up
# to 0.63 em per character of these labels (0.69 em bold; measured in headless Chromium), Liberation Sans and
# Helvetica about 0.53 em; the factors are above both, and `text_width` adds one character, so a label estimated to
# fit does fit.
TITLE_SIZE: Final = 14
LINE_SIZE: Final = 12
LABEL_SIZE: Final = 12
GROUP_SIZE: Final = 13
CAPTION_SIZE: Final = 12
REGULAR_FACTOR: Final = 0.66
BOLD_FACTOR: Final = 0.72
TITLE_LH: Final = 19
LINE_LH: Final = 16
TITLE_GAP: Final = 3  # between a box's title and its first line
LABEL_LH: Final = 15
CAPTION_LH: Final = 17

# Spacing (px).
BOX_PAD_X: Final = 14  # text to a box's left and right edge
BOX_PAD_Y: Final = 9  # text block to a box's top and bottom edge
GROUP_PAD: Final = 14  # a frame's edge to the cells (or inner frames) it holds
GROUP_LABEL_H: Final = 22  # the band at a frame's top (or bottom) that holds its label
GROUP_CLEAR: Final = 16  # between two frames, or a frame and a box outside it
STACK_STEP: Final = 6  # offset of each copy behind a stacked frame ("one of many")
STACK_COPIES: Final = 2
LABEL_OFFSET: Final = 6  # an arrow label's distance from its line
LABEL_BG_PAD: Final = 2  # the ground (the colour of the frame beneath) under an arrow label reaches this far
MARGIN: Final = 16  # around the whole drawing
ARROW_INSET: Final = 10  # a straight arrow needs its two ends to overlap by twice this

BoxStyle = Literal["webhook", "gardener", "object", "refusal", "note"]
GroupStyle = Literal["cluster", "namespace", "chart", "process", "plain"]
ArrowStyle = Literal["call", "path", "read", "link"]
Route = Literal["straight", "hv", "vh"]

# A restrained palette: Gardener's green for the webhook's own parts and its request path, greys for the rest.
PALETTE: Final = {
    "ink": "#1f2a30",
    "muted": "#4d5b63",
    "webhook-fill": "#e3f4ee",
    "webhook-stroke": "#009f76",
    "gardener-fill": "#f1f3f4",
    "gardener-stroke": "#6b7a83",
    "object-fill": "#ffffff",
    "object-stroke": "#7d8b93",
    "refusal-fill": "#fbfbfb",
    "refusal-stroke": "#9aa6ad",
    "note-fill": "#fbfcfc",
    "note-stroke": "#b5bfc5",
    "cluster-fill": "#f8faf9",
    "cluster-stroke": "#9fb3aa",
    "namespace-stroke": "#8d9aa1",
    "chart-stroke": "#3faf8c",
    "process-fill": "#f3faf7",
    "process-stroke": "#7fc8b0",
    "plain-stroke": "#c3ccd1",
    "call": "#33434b",
    "path": "#00795a",
    "read": "#6f7d85",
}


class LayoutError(ValueError):
    """A diagram that cannot be drawn cleanly: the message names every problem found."""


# ------------------------------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Box:
    """A box in the grid: `title` (bold, one line) and `lines` under it.

    row, col: its top-left cell; rowspan, colspan: cells it covers. A box fills its cells: every box of a column has
    the column's width, every box of a row the row's height, and its text block is centred in it. align: "center",
    or "left" for lists (bullets)."""

    key: str
    title: str
    lines: tuple[str, ...] = ()
    row: int = 0
    col: int = 0
    rowspan: int = 1
    colspan: int = 1
    style: BoxStyle = "webhook"
    align: Literal["center", "left"] = "center"


@dataclass(frozen=True)
class Group:
    """A labelled frame around `members` (keys of boxes and of other groups). Its cells must form a rectangle of
    the grid that holds no other box. stacked: drawn with copies behind it, for "one of many" (every seed).
    corner: where its label sits; the label's band is at the top or bottom edge, out of the way of the arrows that
    cross the other one."""

    key: str
    label: str
    members: tuple[str, ...]
    style: GroupStyle = "cluster"
    stacked: bool = False
    corner: Literal["top-left", "top-right", "bottom-left", "bottom-right"] = "top-left"


@dataclass(frozen=True)
class Arrow:
    """An arrow from box or group `src` to `dst`, with `label` lines beside its longest segment.

    route: "straight" (one segment, in the middle of where the two overlap horizontally or vertically, moved by
    `shift` px), "hv" (leave sideways, turn once into dst's top or bottom), "vh" (leave from the top or bottom, turn
    once into dst's side). src_at, dst_at: elbows only, where on the side it leaves or arrives, 0..1 along that side.
    style: "call" (a request), "path" (the request path a diagram is about), "read" (dashed: reads, renders,
    registers), "link" (dashed, no heads: a relation). both: heads at both ends. label_side: "auto" (above a
    horizontal, right of a vertical segment, else the other side) or only "above"/"right", or only "below"/"left";
    label_at: 0..1 along the segment, tried first (then the label slides along it to a free place). segment: which
    segment carries the label (default the longest)."""

    src: str
    dst: str
    label: tuple[str, ...] = ()
    route: Route = "straight"
    src_at: float = 0.5
    dst_at: float = 0.5
    shift: float = 0.0
    style: ArrowStyle = "call"
    both: bool = False
    label_side: Literal["auto", "above", "right", "below", "left"] = "auto"
    label_at: float = 0.5
    segment: int | None = None


@dataclass(frozen=True)
class Diagram:
    """One picture: `name` (the file docs/assets/diagrams/<name>.svg), `title` and `description` (its <title> and
    <desc>, what a screen reader says), the parts, and `caption` lines printed under the drawing.
    col_gap, row_gap: the least space between cells (px); wider_rows, wider_cols: (index, px) pairs, the least space
    after that row or column where an arrow's label needs more; min_col_width: the least width of a column (px)."""

    name: str
    title: str
    description: str
    boxes: tuple[Box, ...]
    groups: tuple[Group, ...] = ()
    arrows: tuple[Arrow, ...] = ()
    caption: tuple[str, ...] = ()
    col_gap: int = 64
    row_gap: int = 48
    wider_rows: tuple[tuple[int, int], ...] = ()
    wider_cols: tuple[tuple[int, int], ...] = ()
    min_col_width: int = 200


# ------------------------------------------------------------------------------------------------------ geometry


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle: top-left (x, y), width w, height h, all px."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def grow(self, top: float, right: float, bottom: float, left: float) -> Rect:
        return Rect(self.x - left, self.y - top, self.w + left + right, self.h + top + bottom)

    def overlaps(self, other: Rect, clear: float = 0.0) -> bool:
        """Whether the two share interior area, or come closer than `clear` px."""
        return (
            self.x < other.right + clear
            and other.x < self.right + clear
            and self.y < other.bottom + clear
            and other.y < self.bottom + clear
        )

    def contains(self, other: Rect) -> bool:
        return self.x <= other.x and self.y <= other.y and other.right <= self.right and other.bottom <= self.bottom


def union(rects: Iterable[Rect]) -> Rect:
    items = list(rects)
    x, y = min(r.x for r in items), min(r.y for r in items)
    return Rect(x, y, max(r.right for r in items) - x, max(r.bottom for r in items) - y)


Point = tuple[float, float]
Segment = tuple[Point, Point]


def segment_hits_rect(seg: Segment, rect: Rect, clear: float = 0.0) -> bool:
    """Whether an axis-aligned segment passes through `rect` (its interior grown by `clear` px)."""
    (x1, y1), (x2, y2) = seg
    lo_x, hi_x, lo_y, hi_y = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
    return lo_x < rect.right + clear and hi_x > rect.x - clear and lo_y < rect.bottom + clear and hi_y > rect.y - clear


def segments_cross(a: Segment, b: Segment) -> bool:
    """Whether two axis-aligned segments meet (cross, touch or run along each other)."""
    ra = Rect(min(a[0][0], a[1][0]), min(a[0][1], a[1][1]), abs(a[0][0] - a[1][0]), abs(a[0][1] - a[1][1]))
    rb = Rect(min(b[0][0], b[1][0]), min(b[0][1], b[1][1]), abs(b[0][0] - b[1][0]), abs(b[0][1] - b[1][1]))
    return ra.x <= rb.right and rb.x <= ra.right and ra.y <= rb.bottom and rb.y <= ra.bottom


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The estimated width (px) of `text` at font `size` (px): characters x size x a safe factor, with one character
    more, for short words in capitals ("RBAC"), which run wider than the average."""
    return (len(text) + 1) * size * (BOLD_FACTOR if bold else REGULAR_FACTOR)


# -------------------------------------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class PlacedLabel:
    """An arrow label: its lines, the rectangle they take (px) and the anchor of the first baseline."""

    lines: tuple[str, ...]
    rect: Rect
    anchor: Literal["start", "middle", "end"]
    x: float
    y: float


@dataclass(frozen=True)
class PlacedArrow:
    arrow: Arrow
    points: tuple[Point, ...]
    label: PlacedLabel | None

    @property
    def segments(self) -> list[Segment]:
        return list(itertools.pairwise(self.points))


@dataclass(frozen=True)
class Layout:
    """A diagram placed: a rectangle (px) per box and per group, each group's label band, the arrows' polylines
    and labels, the caption's first baseline, and the drawing's size (the viewBox, px)."""

    diagram: Diagram
    boxes: dict[str, Rect]
    groups: dict[str, Rect]
    group_labels: dict[str, Rect]
    arrows: tuple[PlacedArrow, ...]
    caption_y: float
    width: float
    height: float


def box_size(box: Box) -> tuple[float, float]:
    """The least (width, height) in px that holds the box's text with its padding."""
    widths = [text_width(box.title, TITLE_SIZE, bold=True)] + [text_width(line, LINE_SIZE) for line in box.lines]
    height = TITLE_LH + len(box.lines) * LINE_LH + (TITLE_GAP if box.lines else 0)
    return math.ceil(max(widths) + 2 * BOX_PAD_X), height + 2 * BOX_PAD_Y


def label_size(lines: Sequence[str]) -> tuple[float, float]:
    return math.ceil(max(text_width(line, LABEL_SIZE) for line in lines)), len(lines) * LABEL_LH


class _Grid:
    """The cells of a diagram: each key's extent (first row, first col, last row, last col) and each group's
    padding per side (top, right, bottom, left), px, beyond the cells it holds."""

    def __init__(self, diagram: Diagram) -> None:
        self.diagram = diagram
        self.box_by_key = {b.key: b for b in diagram.boxes}
        self.group_by_key = {g.key: g for g in diagram.groups}
        problems = []
        seen: dict[tuple[int, int], str] = {}
        for b in diagram.boxes:
            for r in range(b.row, b.row + b.rowspan):
                for c in range(b.col, b.col + b.colspan):
                    if (r, c) in seen:
                        problems.append(f"boxes {seen[(r, c)]!r} and {b.key!r} share the cell ({r}, {c})")
                    seen[(r, c)] = b.key
        for g in diagram.groups:
            problems += [f"group {g.key!r}: no box or group {m!r}" for m in g.members if m not in self.keys()]
        if problems:
            raise LayoutError(f"{diagram.name}: " + "; ".join(problems))
        self.rows = max(b.row + b.rowspan for b in diagram.boxes)
        self.cols = max(b.col + b.colspan for b in diagram.boxes)

    def keys(self) -> set[str]:
        return set(self.box_by_key) | set(self.group_by_key)

    def extent(self, key: str) -> tuple[int, int, int, int]:
        if key in self.box_by_key:
            b = self.box_by_key[key]
            return b.row, b.col, b.row + b.rowspan - 1, b.col + b.colspan - 1
        spans = [self.extent(m) for m in self.group_by_key[key].members]
        return min(s[0] for s in spans), min(s[1] for s in spans), max(s[2] for s in spans), max(s[3] for s in spans)

    def pad(self, key: str) -> tuple[float, float, float, float]:
        """How far the group's drawing (its copies, if stacked) reaches beyond its cells: (top, right, bottom, left)."""
        group = self.group_by_key[key]
        inner = [self.pad(m) for m in group.members if m in self.group_by_key] or [(0.0, 0.0, 0.0, 0.0)]
        top, right, bottom, left = (max(p[i] for p in inner) for i in range(4))
        stack = STACK_STEP * STACK_COPIES if group.stacked else 0
        band_top, band_bottom = _bands(group)
        return top + band_top, right + GROUP_PAD + stack, bottom + band_bottom + stack, left + GROUP_PAD

    def members_deep(self, key: str) -> set[str]:
        """Every box and group inside group `key`, at any depth."""
        found: set[str] = set()
        for m in self.group_by_key[key].members:
            found.add(m)
            if m in self.group_by_key:
                found |= self.members_deep(m)
        return found


def _gaps(
    count: int,
    least: int,
    wider: tuple[tuple[int, int], ...],
    ends: Callable[[int], float],
    starts: Callable[[int], float],
) -> list[float]:
    """The gap after each of `count` columns (rows): at least `least` px (or what `wider` says for it), and room for
    the frames that end before it and begin after it (`ends(i)`, `starts(i + 1)`: their padding, px) plus
    GROUP_CLEAR between them."""
    gaps = []
    for i in range(count - 1):
        need = ends(i) + starts(i + 1)
        floor = max([least] + [px for at, px in wider if at == i])
        gaps.append(float(max(floor, need + GROUP_CLEAR if need else floor)))
    return gaps


def _sizes(count: int, least: float, spans: list[tuple[int, int, float]], gaps: list[float]) -> list[float]:
    """Column widths (row heights), px: each the largest single-cell need in it, at least `least`; then widened
    evenly where a spanning box (first, span, need) does not fit across its cells and the gaps between them."""
    sizes = [least] * count
    for first, span, need in spans:
        if span == 1:
            sizes[first] = max(sizes[first], need)
    for first, span, need in sorted((s for s in spans if s[1] > 1), key=lambda s: (s[1], s[0])):
        have = sum(sizes[first : first + span]) + sum(gaps[first : first + span - 1])
        if have < need:
            extra = math.ceil((need - have) / span)
            for i in range(first, first + span):
                sizes[i] += extra
    return sizes


def layout(diagram: Diagram) -> Layout:
    """Place every part of `diagram` and check the result; raises LayoutError naming each problem."""
    grid = _Grid(diagram)
    groups = diagram.groups
    pads = {g.key: grid.pad(g.key) for g in groups}
    exts = {g.key: grid.extent(g.key) for g in groups}

    def side(i: int, index: int, pad_side: int) -> float:
        return max((pads[k][pad_side] for k, e in exts.items() if e[index] == i), default=0.0)

    col_gaps = _gaps(grid.cols, diagram.col_gap, diagram.wider_cols, lambda i: side(i, 3, 1), lambda i: side(i, 1, 3))
    row_gaps = _gaps(grid.rows, diagram.row_gap, diagram.wider_rows, lambda i: side(i, 2, 2), lambda i: side(i, 0, 0))
    needs = {b.key: box_size(b) for b in diagram.boxes}
    widths = _sizes(
        grid.cols, diagram.min_col_width, [(b.col, b.colspan, needs[b.key][0]) for b in diagram.boxes], col_gaps
    )
    heights = _sizes(grid.rows, 0, [(b.row, b.rowspan, needs[b.key][1]) for b in diagram.boxes], row_gaps)
    xs = [sum(widths[:i]) + sum(col_gaps[:i]) for i in range(grid.cols)]
    ys = [sum(heights[:i]) + sum(row_gaps[:i]) for i in range(grid.rows)]

    boxes: dict[str, Rect] = {}
    for b in diagram.boxes:
        last_c, last_r = b.col + b.colspan - 1, b.row + b.rowspan - 1
        boxes[b.key] = Rect(
            xs[b.col], ys[b.row], xs[last_c] + widths[last_c] - xs[b.col], ys[last_r] + heights[last_r] - ys[b.row]
        )

    rects: dict[str, Rect] = {}

    def group_rect(key: str) -> Rect:
        if key not in rects:
            group = grid.group_by_key[key]
            inner = union(boxes[m] if m in boxes else group_rect(m) for m in group.members)
            band_top, band_bottom = _bands(group)
            rects[key] = inner.grow(band_top, GROUP_PAD, band_bottom, GROUP_PAD)
        return rects[key]

    for g in groups:
        group_rect(g.key)
    group_labels = {g.key: _group_label_rect(g, rects[g.key]) for g in groups}
    anything = {**boxes, **rects}
    routed = [_place_arrow(diagram.name, a, anything) for a in diagram.arrows]
    frames = [r for g in groups for r in _frame_rects(rects[g.key], g)]
    obstacles = list(boxes.values()) + list(group_labels.values())
    arrows: list[PlacedArrow] = []
    for i, a in enumerate(routed):
        others = [seg for j, b in enumerate(routed) if j != i for seg in b.segments]
        taken = [b.label.rect for b in arrows if b.label is not None]
        arrows.append(replace(a, label=_free_label(a, obstacles, frames, others, taken)))

    # Translate so that the drawing (frames with their stacked copies, boxes, labels) starts at MARGIN.
    drawn = list(boxes.values()) + [_stacked_extent(rects[g.key], g) for g in groups]
    drawn += [a.label.rect for a in arrows if a.label is not None]
    bbox = union(drawn)
    dx, dy = MARGIN - bbox.x, MARGIN - bbox.y
    caption_w = max((text_width(line, CAPTION_SIZE) for line in diagram.caption), default=0.0)
    width = math.ceil(max(bbox.w, caption_w) + 2 * MARGIN)
    caption_y = bbox.h + MARGIN + (18 if diagram.caption else 0)
    height = math.ceil(caption_y + len(diagram.caption) * CAPTION_LH + (MARGIN - 6 if diagram.caption else MARGIN))
    placed = Layout(
        diagram=diagram,
        boxes={k: _moved(r, dx, dy) for k, r in boxes.items()},
        groups={k: _moved(r, dx, dy) for k, r in rects.items()},
        group_labels={k: _moved(r, dx, dy) for k, r in group_labels.items()},
        arrows=tuple(_moved_arrow(a, dx, dy) for a in arrows),
        caption_y=caption_y + CAPTION_SIZE,
        width=width,
        height=height,
    )
    problems = check(placed, grid)
    if problems:
        raise LayoutError(f"{diagram.name}: " + "; ".join(problems))
    return placed


def _bands(group: Group) -> tuple[float, float]:
    """The padding (px) above and below a group's cells: GROUP_PAD, and the label's band on its side."""
    band = GROUP_PAD + GROUP_LABEL_H
    return (band, GROUP_PAD) if group.corner.startswith("top") else (GROUP_PAD, band)


def _group_label_rect(group: Group, rect: Rect) -> Rect:
    """Where a group's label is drawn: 10 px in from its corner, 18 px high (px)."""
    w = math.ceil(text_width(group.label, GROUP_SIZE, bold=True))
    x = rect.x + 10 if group.corner.endswith("left") else rect.right - 10 - w
    y = rect.y + 4 if group.corner.startswith("top") else rect.bottom - 4 - 18
    return Rect(x, y, w, 18)


def _stacked_extent(rect: Rect, group: Group) -> Rect:
    stack = STACK_STEP * STACK_COPIES if group.stacked else 0
    return rect.grow(0, stack, stack, 0)


def _moved(rect: Rect, dx: float, dy: float) -> Rect:
    return Rect(rect.x + dx, rect.y + dy, rect.w, rect.h)


def _moved_arrow(a: PlacedArrow, dx: float, dy: float) -> PlacedArrow:
    label = a.label
    if label is not None:
        label = replace(label, rect=_moved(label.rect, dx, dy), x=label.x + dx, y=label.y + dy)
    return PlacedArrow(a.arrow, tuple((x + dx, y + dy) for x, y in a.points), label)


def _place_arrow(name: str, arrow: Arrow, rects: dict[str, Rect]) -> PlacedArrow:
    """The arrow's polyline from src's edge to dst's edge (px), without its label (`_free_label` places that)."""
    try:
        s, d = rects[arrow.src], rects[arrow.dst]
    except KeyError as exc:
        raise LayoutError(f"{name}: arrow {arrow.src} -> {arrow.dst}: no box or group {exc.args[0]!r}") from None
    where = f"{name}: arrow {arrow.src} -> {arrow.dst}"
    points: list[Point]
    if arrow.route == "straight":
        lo_x, hi_x = max(s.x, d.x), min(s.right, d.right)
        lo_y, hi_y = max(s.y, d.y), min(s.bottom, d.bottom)
        if hi_x - lo_x >= 2 * ARROW_INSET and (d.y >= s.bottom or d.bottom <= s.y):
            x = (lo_x + hi_x) / 2 + arrow.shift
            points = [(x, s.bottom), (x, d.y)] if d.y >= s.bottom else [(x, s.y), (x, d.bottom)]
        elif hi_y - lo_y >= 2 * ARROW_INSET and (d.x >= s.right or d.right <= s.x):
            y = (lo_y + hi_y) / 2 + arrow.shift
            points = [(s.right, y), (d.x, y)] if d.x >= s.right else [(s.x, y), (d.right, y)]
        else:
            raise LayoutError(f"{where}: the two do not face each other; give it an elbow route")
    elif arrow.route == "hv":
        y = s.y + arrow.src_at * s.h
        x = d.x + arrow.dst_at * d.w
        start_x = s.right if x > s.right else s.x
        points = [(start_x, y), (x, y), (x, d.y if d.y > y else d.bottom)]
    else:  # vh
        x = s.x + arrow.src_at * s.w
        y = d.y + arrow.dst_at * d.h
        start_y = s.bottom if y > s.bottom else s.y
        points = [(x, start_y), (x, y), (d.x if d.x > x else d.right, y)]
    return PlacedArrow(arrow, tuple(points), None)


def _frame_rects(rect: Rect, group: Group) -> list[Rect]:
    """The outlines drawn for a group: its own and, if stacked, its copies behind it (px)."""
    copies = STACK_COPIES if group.stacked else 0
    return [rect] + [_moved(rect, STACK_STEP * i, STACK_STEP * i) for i in range(1, copies + 1)]


def _label_problem(
    rect: Rect, obstacles: list[Rect], frames: list[Rect], segments: list[Segment], taken: list[Rect]
) -> bool:
    """Whether an arrow label (its ground, px) would lie on a box, a frame's label, a frame's outline, another
    arrow or another label."""
    ground = rect.grow(*(LABEL_BG_PAD,) * 4)
    return (
        any(ground.overlaps(r) for r in obstacles + taken)
        or any(ground.overlaps(f) and not f.contains(ground) for f in frames)
        or any(segment_hits_rect(seg, ground) for seg in segments)
    )


def _free_label(
    a: PlacedArrow, obstacles: list[Rect], frames: list[Rect], segments: list[Segment], taken: list[Rect]
) -> PlacedLabel | None:
    """The arrow's label at the first free place: on its chosen segment at `label_at`, then sliding along it, then
    (side "auto") on the other side; the declared place if none is free (`check` then reports it)."""
    arrow = a.arrow
    if not arrow.label:
        return None
    sides = [arrow.label_side] if arrow.label_side != "auto" else ["auto", "other"]
    steps = [arrow.label_at] + [x / 20 for x in (10, 8, 12, 6, 14, 4, 16, 3, 17, 2, 18)]
    for side in sides:
        for at in steps:
            label = _place_label(arrow, list(a.points), side, at)
            if not _label_problem(label.rect, obstacles, frames, segments, taken):
                return label
    return _place_label(arrow, list(a.points), arrow.label_side, arrow.label_at)


def _place_label(arrow: Arrow, points: list[Point], side: str, at: float) -> PlacedLabel:
    """The label beside the chosen segment (the longest unless `arrow.segment`), `at` 0..1 along it: above a
    horizontal segment ("below" / "other": under it), right of a vertical one ("left" / "other": left of it)."""
    segments = list(itertools.pairwise(points))
    if arrow.segment is not None:
        (x1, y1), (x2, y2) = segments[arrow.segment]
    else:
        (x1, y1), (x2, y2) = max(segments, key=lambda seg: abs(seg[0][0] - seg[1][0]) + abs(seg[0][1] - seg[1][1]))
    w, h = label_size(arrow.label)
    first_baseline = (LABEL_LH + LABEL_SIZE * 0.7) / 2  # cap height about 0.7 em, centred in its line
    if y1 == y2:
        cx = x1 + (x2 - x1) * at
        top = y1 + LABEL_OFFSET if side in ("below", "other") else y1 - LABEL_OFFSET - h
        return PlacedLabel(arrow.label, Rect(cx - w / 2, top, w, h), "middle", cx, top + first_baseline)
    top = y1 + (y2 - y1) * at - h / 2
    if side in ("left", "other"):
        x = x1 - LABEL_OFFSET
        return PlacedLabel(arrow.label, Rect(x - w, top, w, h), "end", x, top + first_baseline)
    x = x1 + LABEL_OFFSET
    return PlacedLabel(arrow.label, Rect(x, top, w, h), "start", x, top + first_baseline)


def check(placed: Layout, grid: _Grid) -> list[str]:
    """Every way the placed diagram would be unclean: frames that take in boxes that are not theirs or overlap other
    frames, labels wider than their frame, arrows through boxes, frame labels or each other, labels on boxes, frame
    labels, arrows or other labels."""
    problems: list[str] = []
    d = placed.diagram
    for g in d.groups:
        rect, inside = placed.groups[g.key], grid.members_deep(g.key)
        for key, box in placed.boxes.items():
            if key not in inside and rect.overlaps(box):
                problems.append(f"box {key!r} lies in group {g.key!r} but is not a member")
        for other in d.groups:
            o = placed.groups[other.key]
            nested = other.key in inside or g.key in grid.members_deep(other.key)
            if other.key != g.key and not nested and rect.overlaps(o) and g.key < other.key:
                problems.append(f"groups {g.key!r} and {other.key!r} overlap")
        if placed.group_labels[g.key].w > rect.w - 20:
            problems.append(f"group {g.key!r}: its label is wider than the group")
    arrows = placed.arrows
    for i, a in enumerate(arrows):
        name = f"arrow {a.arrow.src} -> {a.arrow.dst}"
        ends = {a.arrow.src, a.arrow.dst}
        for seg in a.segments:
            for key, box in placed.boxes.items():
                if key not in ends and segment_hits_rect(seg, box, 2):
                    problems.append(f"{name} passes through box {key!r}")
            for key, rect in placed.group_labels.items():
                if segment_hits_rect(seg, rect, 2):
                    problems.append(f"{name} passes through the label of group {key!r}")
        for b in arrows[i + 1 :]:
            if ends & {b.arrow.src, b.arrow.dst}:
                continue  # arrows that share a box may meet at it
            if any(segments_cross(p, q) for p in a.segments for q in b.segments):
                problems.append(f"{name} crosses arrow {b.arrow.src} -> {b.arrow.dst}")
        if a.label is None:
            continue
        lrect = a.label.rect.grow(*(LABEL_BG_PAD,) * 4)
        problems += [f"the label of {name} lies on box {k!r}" for k, r in placed.boxes.items() if lrect.overlaps(r)]
        for g in d.groups:
            if any(lrect.overlaps(f) and not f.contains(lrect) for f in _frame_rects(placed.groups[g.key], g)):
                problems.append(f"the label of {name} lies on the outline of group {g.key!r}")
        problems += [
            f"the label of {name} lies on the label of group {k!r}"
            for k, r in placed.group_labels.items()
            if lrect.overlaps(r)
        ]
        for j, b in enumerate(arrows):
            if j != i and any(segment_hits_rect(seg, lrect) for seg in b.segments):
                problems.append(f"the label of {name} lies on arrow {b.arrow.src} -> {b.arrow.dst}")
            if j > i and b.label is not None and lrect.overlaps(b.label.rect.grow(*(LABEL_BG_PAD,) * 4)):
                problems.append(f"the labels of {name} and of arrow {b.arrow.src} -> {b.arrow.dst} overlap")
    return problems


# -------------------------------------------------------------------------------------------------------- render


def _n(value: float) -> str:
    """A coordinate as SVG text: rounded to 0.1 px, without a trailing ".0" (fixed, so output is byte-stable)."""
    return f"{round(value, 1):.1f}".removesuffix(".0")


def _el(parent: ET.Element, tag: str, text: str | None = None, /, **attrs: str | float) -> ET.Element:
    """A child element; float attributes formatted by `_n`, names with "_" written with "-"."""
    element = ET.SubElement(
        parent,
        tag,
        {k.rstrip("_").replace("_", "-"): _n(v) if isinstance(v, float | int) else v for k, v in attrs.items()},
    )
    element.text = text
    return element


def _text_lines(
    parent: ET.Element, lines: Sequence[tuple[str, int, bool, str]], x: float, first: float, anchor: str
) -> None:
    """Lines (text, size px, bold, class) from baseline `first`, each placed by its own line height."""
    y = first
    for text, size, bold, cls in lines:
        if not text:  # a blank line only makes room
            y += LINE_LH
            continue
        attrs: dict[str, str | float] = {"x": x, "y": y, "font_size": size, "text_anchor": anchor, "class_": cls}
        if bold:
            attrs["font_weight"] = "bold"
        _el(parent, "text", text, **attrs)
        y += TITLE_LH if bold else LINE_LH


def render(placed: Layout) -> str:
    """The SVG document of a placed diagram, as text ending with a newline."""
    d = placed.diagram
    # Ids carry the diagram's name: several diagrams inlined in one page must not share one.
    ids = {"title": f"{d.name}-title", "desc": f"{d.name}-desc"}
    heads = {style: f"{d.name}-head-{style}" for style in ("call", "path", "read")}
    ET.register_namespace("", SVG_NS)
    root = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "viewBox": f"0 0 {_n(placed.width)} {_n(placed.height)}",
            "width": _n(placed.width),
            "height": _n(placed.height),
            "role": "img",
            "aria-labelledby": f"{ids['title']} {ids['desc']}",
            "font-family": "sans-serif",
        },
    )
    _el(root, "title", d.title, id=ids["title"])
    _el(root, "desc", d.description, id=ids["desc"])
    defs = _el(root, "defs")
    _el(defs, "style", _css())
    for style, marker_id in heads.items():
        attrs: dict[str, str | float] = {
            "viewBox": "0 0 10 10",
            "refX": 9,
            "refY": 5,
            "markerWidth": 9,
            "markerHeight": 9,
        }
        marker = _el(defs, "marker", id=marker_id, orient="auto-start-reverse", markerUnits="userSpaceOnUse", **attrs)
        _el(marker, "path", d="M 0 0 L 10 5 L 0 10 z", fill=PALETTE[style])
    _el(root, "rect", x=0, y=0, width=placed.width, height=placed.height, class_="ground")

    by_depth = sorted(d.groups, key=lambda g: -_depth(d, g.key))  # outer frames first, inner ones on top
    for g in by_depth:
        rect = placed.groups[g.key]
        if g.stacked:
            for i in range(STACK_COPIES, 0, -1):
                copy = _moved(rect, STACK_STEP * i, STACK_STEP * i)
                _el(root, "rect", x=copy.x, y=copy.y, width=copy.w, height=copy.h, rx=8, class_=f"g-{g.style} stack")
        _el(root, "rect", x=rect.x, y=rect.y, width=rect.w, height=rect.h, rx=8, class_=f"g-{g.style}")
        label = placed.group_labels[g.key]
        _el(root, "text", g.label, x=label.x, y=label.y + 14, font_size=GROUP_SIZE, font_weight="bold", class_="glabel")

    for b in d.boxes:
        rect = placed.boxes[b.key]
        _el(root, "rect", x=rect.x, y=rect.y, width=rect.w, height=rect.h, rx=5, class_=f"b-{b.style}")
        lines = [(b.title, TITLE_SIZE, True, "title")] + [(line, LINE_SIZE, False, "line") for line in b.lines]
        block = TITLE_LH + len(b.lines) * LINE_LH + (TITLE_GAP if b.lines else 0)
        top = rect.y + (rect.h - block) / 2
        first = top + (TITLE_LH + TITLE_SIZE * 0.7) / 2
        x, anchor = (rect.x + BOX_PAD_X, "start") if b.align == "left" else (rect.cx, "middle")
        _text_lines(root, lines[:1], x, first, anchor)
        if b.lines:
            _text_lines(root, lines[1:], x, first + TITLE_LH + TITLE_GAP, anchor)

    for a in placed.arrows:
        style = a.arrow.style
        head = heads.get(style)  # "link" has none
        line_attrs: dict[str, str | float] = {
            "points": " ".join(f"{_n(x)},{_n(y)}" for x, y in a.points),
            "class_": f"a-{style}",
        }
        if head is not None:
            line_attrs["marker_end"] = f"url(#{head})"
            if a.arrow.both:
                line_attrs["marker_start"] = f"url(#{head})"
        _el(root, "polyline", **line_attrs)
    for a in placed.arrows:
        if a.label is None:
            continue
        ground = a.label.rect.grow(*(LABEL_BG_PAD,) * 4)
        fill = _ground_under(placed, ground)
        _el(root, "rect", x=ground.x, y=ground.y, width=ground.w, height=ground.h, fill=fill, class_="lground")
        for i, line in enumerate(a.label.lines):
            _el(root, "text", line, x=a.label.x, y=a.label.y + i * LABEL_LH, font_size=LABEL_SIZE,
                text_anchor=a.label.anchor, class_="alabel")  # fmt: skip

    for i, line in enumerate(d.caption):
        _el(root, "text", line, x=MARGIN, y=placed.caption_y + i * CAPTION_LH, font_size=CAPTION_SIZE, class_="caption")
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return f"<!-- Generated by tools/docs/diagrams.py ({d.name}); edit that script, not this file. -->\n{body}\n"


def _ground_under(placed: Layout, rect: Rect) -> str:
    """The colour under `rect`: the fill of the innermost filled frame holding its centre, else white. A label's ground
    takes it, so that the ground hides the lines under the label without showing as a patch."""
    fills = {"cluster": PALETTE["cluster-fill"], "process": PALETTE["process-fill"]}
    colour, depth = "#ffffff", 0
    for g in placed.diagram.groups:
        r, level = placed.groups[g.key], _depth(placed.diagram, g.key)
        inside = r.x <= rect.cx <= r.right and r.y <= rect.cy <= r.bottom
        if inside and g.style in fills and (depth == 0 or level < depth):
            colour, depth = fills[g.style], level
    return colour


def _depth(d: Diagram, key: str) -> int:
    groups = {g.key: g for g in d.groups}
    inner = [_depth(d, m) for m in groups[key].members if m in groups]
    return 1 + max(inner, default=0)


def _css() -> str:
    p = PALETTE
    rules = [
        "svg { font-family: sans-serif; }",
        ".ground { fill: #ffffff; }",
        f"text {{ fill: {p['ink']}; }}",
        f".line, .alabel, .caption {{ fill: {p['muted']}; }}",
        f".glabel {{ fill: {p['muted']}; }}",
    ]
    for style in ("webhook", "gardener", "object", "refusal", "note"):
        dash = " stroke-dasharray: 5 3;" if style == "refusal" else ""
        rules.append(
            f".b-{style} {{ fill: {p[style + '-fill']}; stroke: {p[style + '-stroke']}; stroke-width: 1.4;{dash} }}"
        )
    rules += [
        f".g-cluster {{ fill: {p['cluster-fill']}; stroke: {p['cluster-stroke']}; stroke-width: 1.4; }}",
        f".g-namespace {{ fill: none; stroke: {p['namespace-stroke']}; stroke-width: 1.2; stroke-dasharray: 6 4; }}",
        f".g-chart {{ fill: none; stroke: {p['chart-stroke']}; stroke-width: 1.2; stroke-dasharray: 2 3; }}",
        f".g-process {{ fill: {p['process-fill']}; stroke: {p['process-stroke']}; stroke-width: 1.4; }}",
        f".g-plain {{ fill: none; stroke: {p['plain-stroke']}; stroke-width: 1.2; }}",
        ".stack { fill: #ffffff; }",
        f".a-call {{ fill: none; stroke: {p['call']}; stroke-width: 1.5; }}",
        f".a-path {{ fill: none; stroke: {p['path']}; stroke-width: 2.2; }}",
        f".a-read {{ fill: none; stroke: {p['read']}; stroke-width: 1.4; stroke-dasharray: 5 4; }}",
        f".a-link {{ fill: none; stroke: {p['read']}; stroke-width: 1.4; stroke-dasharray: 3 4; }}",
    ]
    return "\n" + "\n".join(rules) + "\n"


# ------------------------------------------------------------------------------------------------------ diagrams


def _box(key: str, row: int, col: int, title: str, *lines: str, style: BoxStyle = "webhook", **more: Any) -> Box:
    """A Box in short: key, cell, title and lines positionally."""
    return Box(key=key, title=title, lines=lines, row=row, col=col, style=style, **more)


def request_flow() -> Diagram:
    """docs/design.md §2 "How a request flows"; README "Running the server", "The answer", "Cluster state"."""
    # fmt: off
    boxes = (
        _box("caller", 0, 0, "kube-apiserver · gardener-apiserver", "POST /validate?timeout=10s: an AdmissionReview v1",
             style="gardener", colspan=3),
        _box("server", 1, 0, "aiohttp TLS server", "webhook/server · port 9443", "mTLS: --client-ca and", "--client-cn",
             "deadline: 90 % of ?timeout="),
        _box("refused", 1, 1, "refused, not judged", "415 not application/json", "413 body over 8 MiB",
             "400 no AdmissionReview v1", "408 body late · 503 busy", "403 client CN not allowed", style="refusal"),
        _box("response", 1, 2, "AdmissionResponse", "webhook/admission/responses", "response.uid = request.uid",
             "allowed: true | false", "status.code 422/403/500/504", "warnings, audit annotation"),
        _box("decode", 2, 0, "AdmissionReview decode", "webhook/admission/wire", "parse_review: the Envelope",
             "(uid, kind, operation, user)", "+ raw object, oldObject"),
        _box("policy", 2, 2, "policy and ratchet", "webhook/admission/policy", "modes: deny, warn, off",
             "exemptions → warnings", "ratchet (UPDATE): what", "oldObject had → warnings"),
        _box("judge", 3, 0, "dispatch by kind", "webhook/judging · judge()", "REGISTRY[(group, kind)]",
             "decode into the kind's model", "no validator: allowed"),
        _box("caches", 3, 1, "cache layer: Caches", "webhook/caching, per worker", "parsed and decoded entries",
             "verdicts on re-applies", "RuleCaches lent to rules"),
        _box("validators", 3, 2, "validators", "webhook/validators", "one per kind; pure, no I/O",
             "(request, view, settings)", "→ field errors, warnings"),
        _box("view", 4, 2, "cluster view", "webhook/cluster · read-only", "every look-up a dict access",
             "StaticView: --context files", "or LiveView: list + watch"),
        _box("api", 5, 2, "the API servers", "CloudProfiles, Shoots,", "NamespacedCloudProfiles,",
             "Seeds, Deployments,", "gardener-info", style="gardener"),
    )
    # fmt: on
    process = ("server", "refused", "response", "decode", "policy", "judge", "caches", "validators", "view")
    groups = (
        Group("process", "gardener-webhook serve: one process per worker", process, "process", corner="bottom-left"),
    )
    arrows = (
        Arrow("caller", "server", ("AdmissionReview over mTLS",), style="path"),
        Arrow("server", "refused"),
        Arrow("refused", "caller", ("4xx · 503",)),
        Arrow("server", "decode", ("body ≤ 8 MiB",), style="path"),
        Arrow("decode", "judge", ("Review",), style="path"),
        Arrow("judge", "caches", ("ask, tell",), both=True),
        Arrow("caches", "validators", ("on a miss",), style="path"),
        Arrow("validators", "view", ("reads",)),
        Arrow("api", "view", ("list, then watch", "per kind, in threads"), style="read"),
        Arrow("validators", "policy", ("Verdict",), style="path"),
        Arrow("policy", "response", style="path"),
        Arrow("response", "caller", ("200: AdmissionReview",), style="path"),
    )
    return Diagram(
        name="request-flow",
        title="How an admission request flows through gardener-webhook",
        description=(
            "kube-apiserver or gardener-apiserver posts an AdmissionReview over mutual TLS to the aiohttp server, "
            "which refuses what cannot be judged (415, 413, 400, 408, 503, 403). The review is decoded, judge() picks "
            "the kind's validator from the registry, the cache layer answers what it already knows, and the pure "
            "validators read the read-only cluster view, kept by list and watch. The policy applies rule modes, "
            "exemptions and the ratchet, and the AdmissionResponse goes back with allowed, status.code and warnings."
        ),
        boxes=boxes,
        groups=groups,
        arrows=arrows,
        col_gap=84,
        wider_rows=((4, 84),),
    )


def deployment_garden() -> Diagram:
    """README "Deploy to a cluster", "The hourly audit"; manifests/base, components/garden, components/audit-cronjob,
    overlays/garden/*."""
    # fmt: off
    boxes = (
        _box("gapi", 0, 1, "gardener-apiserver", "Deployment app=gardener,", "role=apiserver: serves",
             "core.gardener.cloud,", "seedmanagement.gardener.cloud, …", style="gardener"),
        _box("control", 0, 2, "Gardener control plane", "Deployments app=gardener", "(controller-manager,",
             "scheduler, …), judged", "on a new image", style="gardener"),
        _box("kapi", 1, 0, "kube-apiserver", "the garden cluster's API;", "gardener-apiserver is", "aggregated into it",
             style="gardener", rowspan=3),
        _box("service", 1, 1, "Service", "gardener-webhook", ":443 → the Pods' 9443"),
        _box("pdb", 1, 2, "PodDisruptionBudget", "gardener-webhook", "maxUnavailable: 1", style="object"),
        _box("deployment", 2, 1, "Deployment", "gardener-webhook", "2 replicas, spread by node",
             "serve --in-cluster --config"),
        _box("config", 2, 2, "ConfigMap", "gardener-webhook-config-…", "from components/garden/", "config.yaml",
             style="object"),
        _box("audit", 3, 1, "CronJob", "gardener-webhook-audit", "17 * * * * (UTC): audit",
             "--in-cluster --apply", "→ PolicyReports"),
        _box("netpol", 3, 2, "NetworkPolicies", "in: from the API servers", "out: to the API server",
             style="object"),
        _box("vwc", 4, 0, "ValidatingWebhookConfiguration gardener-webhook", "one webhook per kind; failurePolicy:",
             "Fail for cloudprofiles, shoots, …", "Ignore for deployments", style="object", colspan=2),
        _box("rbac", 4, 2, "ClusterRole, Roles", "gardener-webhook:", "cluster-view: list, watch", style="object"),
    )
    # fmt: on
    # fmt: off
    groups = (
        Group("ns-garden", "namespace garden", ("gapi", "control"), "namespace"),
        Group("ns-webhook", "namespace gardener-webhook", ("service", "pdb", "deployment", "config", "audit", "netpol"),
              "namespace", corner="top-right"),
        Group("garden", "garden cluster", ("kapi", "ns-garden", "ns-webhook", "vwc", "rbac"), "cluster"),
    )
    # fmt: on
    arrows = (
        Arrow("gapi", "service", ("CloudProfiles, Shoots, …",), style="path"),
        Arrow("kapi", "service", ("Deployments",), style="path"),
        Arrow("service", "deployment"),
        Arrow("deployment", "kapi", ("list, watch",)),
        Arrow("audit", "kapi", ("hourly",)),
        Arrow("kapi", "gapi", ("Gardener API",), route="vh", src_at=0.8, segment=1),
        Arrow("vwc", "kapi", ("webhooks",), style="read"),
    )
    return Diagram(
        name="deployment-garden",
        title="gardener-webhook in a garden cluster",
        description=(
            "In the garden cluster, the webhook's Deployment (two replicas, a PodDisruptionBudget, a Service) runs in "
            "namespace gardener-webhook. gardener-apiserver calls it for CloudProfiles, NamespacedCloudProfiles, "
            "Shoots, Gardenlets and ManagedSeeds, kube-apiserver for the Gardener control-plane Deployments, as the "
            "ValidatingWebhookConfiguration gardener-webhook says. The live cluster view lists and watches through "
            "kube-apiserver, and the CronJob gardener-webhook-audit audits the landscape hourly into PolicyReports."
        ),
        boxes=boxes,
        groups=groups,
        arrows=arrows,
        caption=(
            "Green: admission calls, an AdmissionReview over mTLS. Dashed: read. Applied with",
            "kubectl apply -k manifests/overlays/garden/cert-manager (or …/static).",
        ),
        col_gap=72,
        wider_cols=((0, 132),),
        wider_rows=((0, 80),),
    )


def deployment_virtual_garden() -> Diagram:
    """README "Deploy with gardener-operator", "Deploy with a virtual garden, by hand"; charts/*, the Extension of
    manifests/overlays/virtual-garden/extension."""
    # fmt: off
    boxes = (
        _box("vwc", 0, 0, "gardener-webhook", "ValidatingWebhookConfiguration", "the Gardener kinds, by url:",
             "https://gardener-webhook", ".garden.svc:443/validate", style="object"),
        _box("rbac", 0, 1, "RBAC", "ClusterRole, Roles", "gardener-webhook:cluster-view", "list, watch for the",
             "ServiceAccount kube-system/", "extension-admission-", "gardener-webhook", style="object"),
        _box("gapi", 1, 0, "gardener-apiserver", "runs admission for the", "Gardener kinds; reads the",
             "virtual garden's webhooks", style="gardener"),
        _box("vgkas", 1, 1, "virtual-garden-kube-apiserver", "the virtual garden's API server",
             "(Service of the same name)", style="gardener"),
        _box("service", 2, 0, "Service", "gardener-webhook", "gardener-webhook.garden.svc", ":443 → the Pods' 9443"),
        _box("deployment", 2, 1, "Deployment", "gardener-webhook, 2 replicas", "PodDisruptionBudget, VPA",
             "cluster.sources: the virtual", "garden, Deployments in-cluster"),
        _box("operator", 2, 2, "gardener-operator", "renders the Extension's", "admission charts", style="gardener"),
        _box("kubeconfig", 3, 1, "generic token kubeconfig", "Secrets generic-token-kubeconfig",
             "and extension-admission-", "gardener-webhook (its token)", style="object"),
        _box("kapi", 4, 0, "kube-apiserver", "the runtime cluster's API;", "calls the runtime chart's",
             "webhook for Deployments", style="gardener"),
        _box("extension", 4, 2, "Extension", "gardener-webhook", "operator.gardener.cloud",
             "spec.deployment.admission:", "runtimeCluster and", "virtualCluster charts", style="object"),
    )
    # fmt: on
    # fmt: off
    groups = (
        Group("app", "gardener-webhook-application chart", ("vwc", "rbac"), "chart"),
        Group("virtual", "virtual garden: an API, no Pods", ("app",), "cluster"),
        Group("ns-garden", "namespace garden", ("gapi", "vgkas", "service", "deployment", "operator", "kubeconfig"),
              "namespace"),
        Group("runtime", "runtime cluster", ("ns-garden", "kapi", "extension"), "cluster"),
    )
    # fmt: on
    arrows = (
        Arrow("vwc", "gapi", ("webhooks",), style="read", shift=70),
        Arrow("vgkas", "gapi", ("aggregated",)),
        Arrow("gapi", "service", ("AdmissionReview, mTLS",), style="path"),
        Arrow("service", "deployment"),
        Arrow("deployment", "vgkas", ("list, watch",)),
        Arrow("kubeconfig", "deployment", ("mounted",), style="read"),
        Arrow("kapi", "service", ("Deployments",), style="path"),
        Arrow("operator", "extension", ("reconciles",), style="read"),
        Arrow("operator", "app", ("application chart",), route="vh", style="read"),
        Arrow("operator", "deployment", ("runtime", "chart"), style="read"),
        Arrow("operator", "kubeconfig", ("injects",), route="vh", src_at=0.15, style="read"),
    )
    return Diagram(
        name="deployment-virtual-garden",
        title="gardener-webhook on a landscape run by gardener-operator",
        description=(
            "gardener-operator reconciles the Extension gardener-webhook in the runtime cluster. It renders the "
            "runtime chart into namespace garden (the Deployment, Service, PodDisruptionBudget and VPA), injects the "
            "generic token kubeconfig of the virtual garden into the Pods, and renders the application chart into the "
            "virtual garden: the ValidatingWebhookConfiguration, whose webhooks call "
            "https://gardener-webhook.garden.svc, and the RBAC of the view's ServiceAccount. gardener-apiserver, "
            "running in namespace garden, reads those webhooks and calls the Service; the view lists and watches the "
            "virtual garden through its kube-apiserver."
        ),
        boxes=boxes,
        groups=groups,
        arrows=arrows,
        caption=(
            "Green: admission calls, an AdmissionReview over mTLS. Dashed: reads, renders, mounts. By hand, without",
            "the Extension: overlays/virtual-garden/runtime and …/virtual (the Service is then in gardener-webhook).",
        ),
        col_gap=72,
        wider_cols=((0, 96),),
    )


def deployment_seeds() -> Diagram:
    """README "Every seed"; charts/gardener-webhook-seed, manifests/overlays/seed/*, components/seed, the Extension's
    spec.deployment.extension (manifests/overlays/virtual-garden/extension/extension.yaml)."""
    # fmt: off
    boxes = (
        _box("byhand", 0, 0, "without gardener-operator", "in each seed:", "kubectl apply -k",
             "manifests/overlays/seed/static", "(or …/seed/cert-manager); or", "the chart through your own",
             "ControllerRegistration and", "ControllerDeployment", style="note", rowspan=3),
        _box("extension", 0, 1, "Extension", "gardener-webhook", "spec.deployment.extension:",
             "chart gardener-webhook-seed", style="object"),
        _box("gcm", 0, 2, "gardener-controller-manager", "a ControllerInstallation", "for every seed",
             style="gardener"),
        _box("operator", 1, 1, "gardener-operator", "registers the seed chart", style="gardener"),
        _box("registration", 2, 1, "ControllerRegistration", "and ControllerDeployment", "for the seed chart;",
             "policy: Always", style="object"),
        _box("installation", 2, 2, "ControllerInstallation", "one per seed", style="object"),
        _box("gardenlet", 3, 1, "gardenlet", "installs the seed's", "ControllerInstallation;",
             "writes OperatingSystemConfigs", style="gardener"),
        _box("vwc", 4, 0, "gardener-webhook", "ValidatingWebhookConfiguration", "operatingsystemconfigs:",
             "CREATE, UPDATE; Fail", style="object"),
        _box("kapi", 4, 1, "kube-apiserver", "the seed's API server", style="gardener"),
        _box("service", 5, 1, "Service", "gardener-webhook", ":443 → the Pods' 9443"),
        _box("deployment", 5, 2, "Deployment", "gardener-webhook, 2 replicas", "PriorityClass", "gardener-system-900",
             "no RBAC, token or egress"),
    )
    # fmt: on
    # fmt: off
    groups = (
        Group("runtime", "runtime cluster", ("extension", "gcm", "operator"), "cluster"),
        Group("virtual", "virtual garden", ("registration", "installation"), "cluster", corner="bottom-left"),
        Group("ns-webhook", "namespace gardener-webhook", ("service", "deployment"), "namespace",
              corner="bottom-right"),
        Group("seed", "every seed", ("gardenlet", "vwc", "kapi", "ns-webhook"), "cluster", stacked=True),
    )
    # fmt: on
    arrows = (
        Arrow("operator", "extension", ("reconciles",), style="read"),
        Arrow("operator", "registration", ("registers",), style="read"),
        Arrow("registration", "installation", ("per seed",), style="read"),
        Arrow("gcm", "installation", ("creates",), style="read"),
        Arrow("installation", "gardenlet", ("its seed's",), route="vh", style="read"),
        Arrow("gardenlet", "kapi", ("OperatingSystemConfigs", "in shoot--<project>--<name>")),
        Arrow("gardenlet", "deployment", ("helm chart",), route="hv", src_at=0.75, dst_at=0.7, style="read"),
        Arrow("vwc", "kapi", ("webhooks",), style="read"),
        Arrow("kapi", "service", ("AdmissionReview, mTLS",), style="path"),
        Arrow("service", "deployment"),
    )
    return Diagram(
        name="deployment-seeds",
        title="gardener-webhook in every seed",
        description=(
            "The Extension gardener-webhook names the chart gardener-webhook-seed in spec.deployment.extension. "
            "gardener-operator registers it in the virtual garden as a ControllerRegistration and ControllerDeployment "
            "with policy Always, gardener-controller-manager makes a ControllerInstallation for every seed, and each "
            "seed's gardenlet installs the chart: the Deployment, the Service and the ValidatingWebhookConfiguration "
            "for OperatingSystemConfigs. The seed's kube-apiserver calls the webhook in the seed for every "
            "OperatingSystemConfig that gardenlet writes."
        ),
        boxes=boxes,
        groups=groups,
        arrows=arrows,
        caption=("Green: admission calls, an AdmissionReview over mTLS. Dashed: reads, registers, installs.",),
        col_gap=88,
        wider_rows=((1, 64),),
    )


# ------------------------------------------------------------------------------------------------- floors.svg

FLOOR_WRAP: Final = 30  # characters per line of a floor's module list, per column


@dataclass(frozen=True)
class Floor:
    """One layer of an import-linter layers contract: its modules, and whether they are independent siblings
    (`a | b`: neither imports the other) or not (`a : b`)."""

    modules: tuple[str, ...]
    independent: bool = True


@dataclass(frozen=True)
class Contracts:
    """What floors.svg is drawn from: the first layers contract (name, floors top to bottom, containers) and every
    other contract (name, type, the modules it is about), in the configuration's order."""

    root: str
    name: str
    floors: tuple[Floor, ...]
    containers: tuple[str, ...]
    others: tuple[tuple[str, str, tuple[str, ...]], ...]


def read_contracts(pyproject: Path) -> Contracts:
    """The import-linter configuration of `pyproject` (`[tool.importlinter]`), parsed as import-linter parses a
    layer: `|` separates independent siblings, `:` siblings that may import each other, `(name)` marks an optional
    module. Raises LayoutError when it has no layers contract."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]
    contracts = config.get("contracts", [])
    layers = next((c for c in contracts if c.get("type") == "layers"), None)
    if layers is None:
        raise LayoutError(f"{pyproject}: [tool.importlinter] has no layers contract")
    floors = []
    for raw in layers["layers"]:
        independent = ":" not in raw
        parts = raw.split("|") if "|" in raw else raw.split(":")
        floors.append(Floor(tuple(part.strip().removeprefix("(").removesuffix(")") for part in parts), independent))
    others = tuple(
        (c["name"], c["type"], tuple(c.get("source_modules", c.get("modules", ()))))
        for c in contracts
        if c is not layers
    )
    root = config.get("root_package") or config["root_packages"][0]
    return Contracts(root, layers["name"], tuple(floors), tuple(layers.get("containers", ())), others)


def package_contents(package: str, root: Path = ROOT) -> tuple[str, ...]:
    """The modules (`name`) and sub-packages (`name/`) of a package's directory under `root`, sorted; () for a plain
    module or a name not found."""
    directory = root.joinpath(*package.split("."))
    if not directory.is_dir():
        return ()
    names = [f.stem for f in directory.glob("*.py") if f.name != "__init__.py"]
    names += [f"{d.name}/" for d in directory.iterdir() if d.is_dir() and (d / "__init__.py").exists()]
    return tuple(sorted(names, key=lambda n: n.rstrip("/")))


def _outside_floors(contracts: Contracts, root: Path) -> list[str]:
    """The root package's own modules and packages that no floor names (dunder modules left out)."""
    named = {m for f in contracts.floors for m in f.modules}
    found = [f"{contracts.root}.{name.rstrip('/')}" for name in package_contents(contracts.root, root)]
    return [m for m in found if m not in named and not m.rsplit(".", 1)[-1].startswith("__")]


def floors(pyproject: Path = ROOT / "pyproject.toml", root: Path = ROOT) -> Diagram:
    """The package's floors, top to bottom in the layers contract's order, each with its modules; the other
    contracts listed beside them. Made from `pyproject`'s import-linter configuration and the package tree."""
    contracts = read_contracts(pyproject)
    width = max(len(f.modules) for f in contracts.floors)
    col_gap = 104  # room for "independent" between siblings

    def chars(span: int) -> int:
        """Characters of a line in a box `span` columns wide: FLOOR_WRAP per column and what fits in each gap."""
        return FLOOR_WRAP * span + int(col_gap / (LINE_SIZE * REGULAR_FACTOR)) * (span - 1)

    boxes: list[Box] = []
    arrows: list[Arrow] = []
    placed: list[list[tuple[str, int, int]]] = []  # per floor: (key, first col, last col)
    for row, floor in enumerate(contracts.floors):
        span = width // len(floor.modules)
        cells = []
        for i, module in enumerate(floor.modules):
            lines = textwrap.wrap(", ".join(package_contents(module, root)), chars(span)) or ["a module"]
            key = f"floor-{row}-{i}"
            boxes.append(Box(key, module, tuple(lines), row=row, col=i * span, colspan=span, style="webhook"))
            cells.append((key, i * span, i * span + span - 1))
        for (left, _, _), (right, _, _) in itertools.pairwise(cells):
            if floor.independent:
                arrows.append(Arrow(left, right, ("independent",), style="link"))
        placed.append(cells)
    for upper, lower in itertools.pairwise(placed):
        for key_u, a0, a1 in upper:
            arrows += [Arrow(key_u, key_l) for key_l, b0, b1 in lower if a0 <= b1 and b0 <= a1]
    notes: list[str] = []
    for name, kind, modules in contracts.others:
        about = modules[0] if len(modules) == 1 else ", ".join(m.removeprefix(f"{contracts.root}.") for m in modules)
        wrapped = textwrap.wrap(f"{name} ({kind}: {about})", chars(width) - 3)
        notes += ["• " + wrapped[0]] + ["\u00a0\u00a0\u00a0" + line for line in wrapped[1:]]  # no-break: kept
    if contracts.others:
        title = "and the other import-linter contracts"
        boxes.append(
            Box("others", title, tuple(notes), row=len(contracts.floors), colspan=width, style="note", align="left")
        )
    floor_keys = tuple(b.key for b in boxes if b.key != "others")
    frame = Group("floors", "the layers contract: imports point down", floor_keys, "plain")
    caption = [f"Made from [tool.importlinter] in pyproject.toml: the layers contract “{contracts.name}”"]
    caption = textwrap.wrap(caption[0], chars(width) + 4)
    if contracts.containers:
        caption.append("Layers of each of: " + ", ".join(contracts.containers))
    outside = _outside_floors(contracts, root)
    if outside:
        caption.append("In no floor: " + ", ".join(outside) + ".")
    return Diagram(
        name="floors",
        title=f"The floors of the {contracts.root} package",
        description=(
            f"The layers of the {contracts.root} package from top to bottom, as import-linter's layers contract "
            "lists them: " + "; ".join(" and ".join(f.modules) for f in contracts.floors) + ". Each floor imports only "
            "the floors below it."
        ),
        boxes=tuple(boxes),
        groups=(frame,),
        arrows=tuple(arrows),
        caption=tuple(caption),
        col_gap=col_gap,
        row_gap=36,
    )


# ---------------------------------------------------------------------------------------------------------- main

DIAGRAMS: Final[tuple[Callable[[], Diagram], ...]] = (
    request_flow,
    deployment_garden,
    deployment_virtual_garden,
    deployment_seeds,
    floors,
)


def generate() -> dict[str, str]:
    """Every diagram's file name (`<name>.svg`) and SVG text; raises LayoutError for a diagram that is not clean."""
    made = {}
    for make in DIAGRAMS:
        diagram = make()
        made[f"{diagram.name}.svg"] = render(layout(diagram))
    return made


def stale(out_dir: Path | None = None, made: dict[str, str] | None = None) -> list[str]:
    """The file names under `out_dir` (default OUT_DIR) that are missing or differ from `made` (default: what
    `generate` makes now)."""
    directory = OUT_DIR if out_dir is None else out_dir
    made = generate() if made is None else made
    return [
        name
        for name, text in made.items()
        if not (directory / name).is_file() or (directory / name).read_text(encoding="utf-8") != text
    ]


def _shown(path: Path) -> Path:
    """`path` relative to the repository when it is inside it, as printed."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status: 0 every file current (or written, --write), 1 some file stale (each listed), 2 a diagram that
    cannot be laid out cleanly (the problems on stderr)."""
    parser = argparse.ArgumentParser(description="Write or check the documentation site's SVG diagrams.")
    parser.add_argument("--write", action="store_true", help="(re)write docs/assets/diagrams/<name>.svg")
    args = parser.parse_args(argv)
    try:
        made = generate()
    except LayoutError as exc:
        print(f"diagrams.py: {exc}", file=sys.stderr)
        return 2
    old = stale(OUT_DIR, made)
    if args.write:
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        for name in old:
            (OUT_DIR / name).write_text(made[name], encoding="utf-8")
            print(f"wrote {_shown(OUT_DIR / name)}")
        return 0
    for name in old:
        print(f"stale: {_shown(OUT_DIR / name)}")
    if old:
        print("run: python tools/docs/diagrams.py --write", file=sys.stderr)
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main())
