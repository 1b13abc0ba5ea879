"""The documentation site's diagrams (docs/assets/diagrams/*.svg) are what tools/docs/diagrams.py makes.

- The committed files equal the script's output, byte for byte; a stale one fails with the command that rewrites it.
- Each is well-formed SVG that scales (a viewBox) and names itself to a screen reader (role="img", a <title>), and
  none of its text runs out of the viewBox (text extents estimated as the script estimates them).
- floors.svg names every layer of the import-linter layers contract in pyproject.toml.
- The layout helper refuses a diagram that is not clean, and the command's exit status says whether files are stale.
"""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tools.docs import diagrams

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "docs" / "assets" / "diagrams"
SVG = "{http://www.w3.org/2000/svg}"
NAMES = sorted(diagrams.generate())
WRITE = "python tools/docs/diagrams.py --write"


def parsed(name: str) -> ET.Element:
    return ET.fromstring((OUT_DIR / name).read_text(encoding="utf-8"))


def test_committed_diagrams_are_current() -> None:
    stale = diagrams.stale(OUT_DIR)
    assert not stale, f"stale diagrams: {', '.join(stale)}; run `{WRITE}` and commit the result"


def test_every_committed_diagram_is_made_by_the_script() -> None:
    unknown = sorted(p.name for p in OUT_DIR.glob("*.svg") if p.name not in NAMES)
    assert not unknown, f"not made by tools/docs/diagrams.py (remove them, or add them to the script): {unknown}"


def test_output_is_deterministic() -> None:
    assert diagrams.generate() == diagrams.generate()


@pytest.mark.parametrize("name", NAMES)
def test_svg_scales_and_names_itself(name: str) -> None:
    root = parsed(name)
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    title = root.find(f"{SVG}title")
    assert title is not None and (title.text or "").strip(), "a <title> for screen readers"
    assert title.get("id") in (root.get("aria-labelledby") or "").split()
    view_box = [float(v) for v in (root.get("viewBox") or "").split()]
    assert len(view_box) == 4 and view_box[2] > 0 and view_box[3] > 0, "a viewBox, so that the picture scales"
    assert "font-family: sans-serif" in "".join(root.itertext()), "the stylesheet names sans-serif"


@pytest.mark.parametrize("name", NAMES)
def test_text_lies_within_the_view_box(name: str) -> None:
    root = parsed(name)
    x0, y0, width, height = (float(v) for v in (root.get("viewBox") or "").split())
    outside = []
    texts = list(root.iter(f"{SVG}text"))
    assert texts
    for text in texts:
        content = text.text or ""
        size = float(text.get("font-size") or 0)
        x, y = float(text.get("x") or 0), float(text.get("y") or 0)
        assert size > 0, f"{content!r}: font-size"
        w = diagrams.text_width(content, size, bold=text.get("font-weight") == "bold")
        left = {"start": x, "middle": x - w / 2, "end": x - w}[text.get("text-anchor") or "start"]
        # ascent up to one em above the baseline, descent a quarter below
        if left < x0 or left + w > x0 + width or y - size < y0 or y + size / 4 > y0 + height:
            outside.append(content)
    assert not outside, f"text outside the viewBox of {name}: {outside}"


def layers() -> list[list[str]]:
    """The floors of pyproject.toml's import-linter layers contract, each a list of its modules, read here as
    import-linter reads a layer (`|` or `:` between siblings, `(name)` optional)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == "layers")
    return [[m.strip().strip("()") for m in re.split(r"[|:]", layer)] for layer in contract["layers"]]


def test_floors_show_every_layer_of_the_contract_in_its_order() -> None:
    texts = [(t.text or "").strip() for t in parsed("floors.svg").iter(f"{SVG}text")]
    floors = layers()
    assert floors, "pyproject.toml has a layers contract"
    missing = [m for floor in floors for m in floor if m not in texts]
    assert not missing, f"floors.svg lacks layers {missing}; run `{WRITE}`"
    firsts = [texts.index(floor[0]) for floor in floors]
    assert firsts == sorted(firsts), f"floors.svg draws the layers out of the contract's order; run `{WRITE}`"


def test_an_unclean_diagram_is_refused() -> None:
    boxes = tuple(diagrams.Box(key, key, row=0, col=i) for i, key in enumerate("abc"))
    through = diagrams.Diagram("t", "t", "t", boxes, arrows=(diagrams.Arrow("a", "c"),))
    with pytest.raises(diagrams.LayoutError, match="arrow a -> c passes through box 'b'"):
        diagrams.layout(through)
    outsider = diagrams.Diagram("t", "t", "t", boxes, groups=(diagrams.Group("g", "g", ("a", "c")),))
    with pytest.raises(diagrams.LayoutError, match="box 'b' lies in group 'g' but is not a member"):
        diagrams.layout(outsider)


def test_the_command_lists_stale_files_and_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(diagrams, "OUT_DIR", tmp_path)
    assert diagrams.main([]) == 1
    out = capsys.readouterr()
    assert all(f"stale: {tmp_path / name}" in out.out for name in NAMES)
    assert WRITE in out.err
    assert diagrams.main(["--write"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == NAMES
    capsys.readouterr()
    assert diagrams.main([]) == 0
    assert capsys.readouterr().out == ""
