"""Reading the dashboard's charts (dashboard/charts.py) back from their HTML: each chart's
marks (bars, columns, points) with the values they carry, its legend and its tooltips."""

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any


@dataclass
class Drawn:
    key: str | None
    kind: str
    marks: list[dict[str, str]] = field(default_factory=list)  # data-x / data-y / data-s, style
    titles: list[str] = field(default_factory=list)  # every tooltip, in the page's order
    tips: list[dict[str, str]] = field(default_factory=list)  # the elements that have one
    written: list[str] = field(default_factory=list)  # the values written at the bars
    legend: list[str] = field(default_factory=list)
    lines: int = 0  # an SVG line per series or part of one

    def rows(self, *, number: bool = True) -> list[tuple[Any, Any]]:
        """(x, y) of each mark, numbers read as numbers."""
        read = _number if number else (lambda v: v)
        return [(read(m["data-x"]), read(m["data-y"])) for m in self.marks]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.charts: list[Drawn] = []
        self._in: str | None = None  # the element whose text is being collected

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if "dc" in classes:
            kind = next(c for c in classes if c != "dc")
            self.charts.append(Drawn(a.get("data-chart"), kind))
            return
        if not self.charts:
            return
        chart = self.charts[-1]
        if "dc-tip" in classes:
            chart.titles.append(a["aria-label"])
            chart.tips.append(a)
        if "data-x" in a:
            chart.marks.append(a)
        if tag == "polyline":
            chart.lines += 1
        if "dc-v" in classes:
            self._in = "written"
        elif "dc-legend" in classes:
            self._in = "legend"

    def handle_data(self, data: str) -> None:
        if self._in == "written":
            self.charts[-1].written.append(data)
            self._in = None
        elif self._in == "legend" and data.strip():
            self.charts[-1].legend.append(data)


def read(html: str) -> list[Drawn]:
    parser = _Reader()
    parser.feed(html)
    return parser.charts


def charts_of(at: Any) -> dict[str | None, Drawn]:
    """Every chart of an AppTest page, by its key."""
    out = {}
    for e in at.markdown:
        for chart in read(str(e.value)):
            out[chart.key] = chart
    return out


def _number(value: str) -> Any:
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value
