"""The standings table (django-tables2) over `league.standings.stats.standings`.

Sorting is the database's: a click on a header sends ?sort=<column> (or -<column>), tables2
checks that the column exists and is orderable, and `StandingsData` asks `stats.standings` for the
rows in that order, so that qualified players stay first and nothing is sorted in Python. Cells are
formatted by the same functions as the template filters (league.core.format).

The hand columns (和了率 … 平均放銃 and how many games and hands they count) are asked for with
?hands=1 (`hand_columns`): their figures come from one more query (selectors.hand_table), and a
sort by one of them is the standings query's too (selectors.hand_sort_key).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape as html_escape
from typing import Any

import django_tables2 as tables
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from django_tables2.data import TableQuerysetData
from django_tables2.utils import OrderBy

import scoring
from league.core import format as jancho
from league.models import Club, Season
from league.standings import selectors as aggregate_selectors
from league.standings import stats

DEFAULT_ORDER = "position"


@dataclass(frozen=True)
class Shown:
    """Which optional columns the club's rules call for."""

    fourth: bool = True  # not for 3-player clubs
    chips: bool = True  # only when the rules have chip kinds
    yen: bool = True  # only when the rules have rate tiers (健康麻雀 has none)
    busts_caused: bool = False  # 飛ばした回数: only with 飛び賞 paid to the buster
    yakitori: bool = False  # only when the rules have 焼き鳥
    adjust: bool = False  # 調整: only for a season with members' adjustments (league.teams)
    hands: bool = False  # the hand columns: on request (?hands=1), where the period has any

    @classmethod
    def for_rules(cls, rules: Iterable[scoring.Rules]) -> Shown:
        rules = list(rules)
        return cls(
            fourth=max((r.players for r in rules), default=4) >= 4,
            chips=any(r.chips for r in rules),
            yen=any(r.rates for r in rules),
            busts_caused=any(r.bust_bonus and r.bust_bonus.to == "buster" for r in rules),
            yakitori=any(r.yakitori for r in rules),
        )

    def hidden(self) -> tuple[str, ...]:
        out: list[str] = []
        if not self.fourth:
            out += ["fourth", "fourth_rate"]
        if not self.chips:
            out.append("chips")
        if not self.yen:
            out.append("yen")
        if not self.adjust:
            out.append("adjust")
        if not self.hands:
            out += HAND_COLUMNS
        return tuple(out)


def with_adjust(shown: Shown, seasons: Sequence[Season], period: dict[str, Any]) -> Shown:
    """`shown` with the adjustments' column when the period is a season whose members have any."""
    kept, season = aggregate_selectors.scope_for(
        seasons, period.get("start"), period.get("end"), period.get("rate")
    )
    if kept and aggregate_selectors.has_adjustments(season):
        return dataclasses.replace(shown, adjust=True)
    return shown


# The hand statistics' columns (和了率 … 平均放銃, from the games recorded hand by hand) and how
# many games and hands they count: each column's key in selectors.hand_table's figures.
HAND_COLUMNS = (
    "hand_games",
    "hands",
    "win_rate",
    "deal_in_rate",
    "riichi_rate",
    "called_rate",
    "avg_win",
    "avg_deal_in",
)
HAND_KEYS = {name: "games" if name == "hand_games" else name for name in HAND_COLUMNS}
HANDS_PARAM = "hands"  # ?hands=1: the hand columns (in the address: a link passed on keeps them)


def wants_hands(query: Any) -> bool:
    """Whether the page's GET parameters ask for the hand columns."""
    return query.get(HANDS_PARAM) == "1"


@dataclass(frozen=True)
class HandColumns:
    """The hand columns asked for: each member's figures (selectors.hand_table), or why none are
    shown (`missing`: "rate" with a rate filter, "none" without games recorded hand by hand)."""

    rows: dict[int, dict[str, Any]]
    missing: str = ""


def hand_columns(
    shown: Shown, *, club: Club, wanted: bool, period: dict[str, Any]
) -> tuple[Shown, HandColumns | None]:
    """`shown` with the hand columns and their figures when `wanted` and the period (its start,
    end and rate) has games recorded hand by hand: one query, none when not `wanted`."""
    if not wanted:
        return shown, None
    if period.get("rate"):  # hand statistics are not kept per rate
        return shown, HandColumns({}, "rate")
    rows = aggregate_selectors.hand_table(
        club=club, start=period.get("start"), end=period.get("end")
    )
    if not rows:
        return shown, HandColumns({}, "none")
    return dataclasses.replace(shown, hands=True), HandColumns(rows)


class StandingsData(TableQuerysetData):
    """The rows of `query(order)`, built once, when first read, in the order asked for: building
    the aggregate's queryset (not running it) was a quarter of the page's time, and tables2 asks
    for the order after the data is made."""

    def __init__(self, query: Callable[[str], QuerySet[Any]]) -> None:
        self.query = query
        self.order = DEFAULT_ORDER
        self.built: QuerySet[Any] | None = None
        super().__init__(None)

    @property  # type: ignore[override]
    def data(self) -> QuerySet[Any]:
        if self.built is None:
            self.built = self.query(self.order)
        return self.built

    @data.setter
    def data(self, value: QuerySet[Any] | None) -> None:
        self.built = value

    @property
    def model(self) -> None:  # the table names its columns itself; no queryset is needed
        return None

    @property
    def ordering(self) -> tuple[str, ...]:
        return (DEFAULT_ORDER,)

    def order_by(self, aliases: Sequence[str]) -> None:
        # Only the first alias counts: stats.standings breaks ties itself (total, kana).
        self.order = str(aliases[0]) if aliases else DEFAULT_ORDER
        self.built = None


def _signed(record: dict[str, Any], bound_column: Any) -> str:
    return f"num {jancho.sign_class(record.get(bound_column.name))}".strip()


@dataclass(frozen=True)
class Cell:
    css: str
    html: str
    header: bool = False  # the player's name heads its row (<th scope="row">)


@dataclass(frozen=True)
class Row:
    record: dict[str, Any]
    css: str
    cells: list[Cell]
    html: str  # the cells, escaped and joined: rendering them in the template is the slow part


# What a member looks for first, the only statistics a phone shows until "every column" is ticked
# (the others have the class "more"; app.css).
# The hand columns, asked for by the viewer, are shown on a phone too.
PHONE_COLUMNS = frozenset({"games", "adjust", "total", "avg_rank", "yen", *HAND_COLUMNS})


def _escaped(text: Any) -> str:
    """A cell's text for HTML: as it is when safe already, else escaped (as `format_html` does)."""
    return str(text) if hasattr(text, "__html__") else html_escape(str(text))


class NumberColumn(tables.Column):
    """A statistic sorted by the database on its annotation (stats.SORTS), shown by `show`."""

    def __init__(
        self,
        header: Any,
        *,
        name: str,
        show: Callable[[Any], str] = str,
        signed: bool = False,
        descending_first: bool = True,  # the most games, the highest total... first
    ) -> None:
        more = "" if name in PHONE_COLUMNS else " more"
        sorts = name in stats.SORTS or name in stats.HAND_SORTS
        super().__init__(
            verbose_name=header,
            order_by=(stats.SORTS.get(name, name),) if sorts else None,
            orderable=sorts,  # 調整 explains the total: not a sort of its own
            attrs={
                "th": {"class": f"num{more}", "scope": "col"},
                "td": {"class": _signed if signed else "num"},
            },
            initial_sort_descending=descending_first,
        )
        self.show = show
        self.signed = signed

    def render(self, value: Any) -> str:
        return self.show(value)


def _dash(show: Callable[[Any], str]) -> Callable[[Any], str]:
    """A hand column's cell: "–" for a player without games recorded hand by hand (or a figure
    with nothing to divide by: no wins, no deal-ins), as the player page formats it otherwise."""
    return lambda value: "–" if value is None else show(value)


class StandingsTable(tables.Table):
    """Key columns first for phones: position and player stay put, the rest scroll sideways."""

    position = tables.Column(
        verbose_name=pgettext_lazy("standings", "#"),
        order_by=(stats.SORTS["position"],),
        attrs={"th": {"class": "num pos", "scope": "col"}, "td": {"class": "num pos"}},
    )
    name = tables.Column(
        verbose_name=_("Player"),
        order_by=(stats.SORTS["name"],),
        attrs={"th": {"class": "name", "scope": "col"}, "td": {"class": "name"}},
    )
    games = NumberColumn(_("Games"), name="games")
    # Translators: 調整, a season's penalties and bonuses booked outside any game (in the total)
    adjust = NumberColumn(
        _("Adj."), name="adjust", show=lambda v: jancho.score(v) if v else "", signed=True
    )
    total = NumberColumn(_("Total"), name="total", show=jancho.score, signed=True)
    average = NumberColumn(_("Average"), name="average", show=jancho.average, signed=True)
    avg_rank = NumberColumn(
        _("Avg. rank"), name="avg_rank", show=jancho.hundredths, descending_first=False
    )
    first_rate = NumberColumn(_("1st %"), name="first_rate", show=jancho.percent)
    second_rate = NumberColumn(_("2nd %"), name="second_rate", show=jancho.percent)
    third_rate = NumberColumn(_("3rd %"), name="third_rate", show=jancho.percent)
    fourth_rate = NumberColumn(_("4th %"), name="fourth_rate", show=jancho.percent)
    top_two_rate = NumberColumn(_("Top two %"), name="top_two_rate", show=jancho.percent)
    avoid_last_rate = NumberColumn(_("Not last %"), name="avoid_last_rate", show=jancho.percent)
    first = NumberColumn(_("1st"), name="first")
    second = NumberColumn(_("2nd"), name="second")
    third = NumberColumn(_("3rd"), name="third")
    fourth = NumberColumn(_("4th"), name="fourth")
    best = NumberColumn(_("Best"), name="best", show=jancho.score, signed=True)
    busts = NumberColumn(_("Busts"), name="busts")
    chombo = NumberColumn(_("Chombo"), name="chombo")
    chips = NumberColumn(_("Chips"), name="chips", show=jancho.count, signed=True)
    yen = NumberColumn(_("Yen"), name="yen", show=jancho.yen, signed=True)
    # The hand columns (Shown.hands), labelled as the player page's hand statistics.
    hand_games = NumberColumn(
        # Translators: a standings column: how many of the player's games were recorded hand by hand
        pgettext_lazy("standings", "Hand games"),
        name="hand_games",
        show=_dash(str),
    )
    # Translators: a standings column: how many hands (局) those games had
    hands = NumberColumn(pgettext_lazy("standings", "Hands"), name="hands", show=_dash(str))
    win_rate = NumberColumn(_("Win %"), name="win_rate", show=_dash(jancho.percent))
    deal_in_rate = NumberColumn(
        _("Deal-in %"), name="deal_in_rate", show=_dash(jancho.percent), descending_first=False
    )
    riichi_rate = NumberColumn(_("Riichi %"), name="riichi_rate", show=_dash(jancho.percent))
    called_rate = NumberColumn(_("Called wins %"), name="called_rate", show=_dash(jancho.percent))
    avg_win = NumberColumn(_("Avg. win"), name="avg_win", show=_dash(jancho.yen))
    avg_deal_in = NumberColumn(  # the least dealt in first, as the lowest average rank
        _("Avg. deal-in"), name="avg_deal_in", show=_dash(jancho.yen), descending_first=False
    )

    class Meta:
        orderable = True
        order_by_field = "sort"
        page_field = "page"
        attrs = {"class": "standings"}
        row_attrs = {"class": lambda record: "" if record["qualified"] else "unqualified"}
        empty_text = _("No counted games in this period.")

    def __init__(
        self,
        *,
        club: Club,
        query: Callable[[str], QuerySet[Any]],
        shown: Shown = Shown(),
        season: Season | None = None,
        min_games: int = 0,
        links: bool = True,
        hands: HandColumns | None = None,
        hand_toggle: bool = False,
    ) -> None:
        self.club = club
        self.season = season
        self.hand_figures = hands  # asked for (?hands=1): the figures, or why there are none
        self.hand_rows = hands.rows if hands is not None else {}
        self.hand_toggle = hand_toggle  # the page offers to show or hide the hand columns
        self.links = links  # False on the public pages (league.public): names without links
        self.min_games = min_games
        super().__init__(data=StandingsData(query), exclude=shown.hidden())

    @cached_property
    def fast_rows(self) -> list[Row]:
        """The page's rows with every cell formatted in one pass.

        tables2's own BoundRow renders each cell through signature inspection and attribute
        look-ups (about 100 ms for a page of 40 players); formatting here calls the same
        functions directly, so the page costs little more than its one aggregate query.
        """
        columns = [(bound.name, bound.column) for bound in self.columns]
        rows = []
        for bound_row in self.paginated_rows:
            record = bound_row.record
            hand = self.hand_rows.get(record["member"], {})
            cells = []
            for name, column in columns:
                value = hand.get(HAND_KEYS[name]) if name in HAND_KEYS else record.get(name)
                if name == "position":
                    cells.append(Cell("num pos", self.render_position(record, value)))
                elif name == "name":
                    cells.append(Cell("name", self.render_name(record), header=True))
                else:
                    css = f"num {jancho.sign_class(value)}".strip() if column.signed else "num"
                    css += "" if name in PHONE_COLUMNS else " more"
                    cells.append(Cell(css, column.show(value)))
            # Plain string building: format_html per cell was half the page's time.
            html = mark_safe(
                "".join(
                    f'<th scope="row" class="{c.css}">{_escaped(c.html)}</th>'
                    if c.header
                    else f'<td class="{c.css}">{_escaped(c.html)}</td>'
                    for c in cells
                )
            )
            rows.append(Row(record, "" if record["qualified"] else "unqualified", cells, html))
        return rows

    @property
    def hand_sorted(self) -> bool:
        """Sorted by a hand column: hiding them goes back to the default order too."""
        return any(OrderBy(alias).bare in HAND_COLUMNS for alias in self.order_by or ())

    def render_position(self, record: dict[str, Any], value: int) -> str:
        """Positions rank qualified players only: the others get a dash, not a second "1"."""
        return str(value) if record["qualified"] else "–"

    def render_name(self, record: dict[str, Any]) -> str:
        guest = (
            format_html(' <span class="badge">{}</span>', _("guest")) if record["is_guest"] else ""
        )
        if not self.links:
            return format_html("{}{}", record["name"], guest)
        url = reverse("standings:player_detail", args=[self.club.slug, record["member"]])
        if self.season is not None:
            url += f"?season={self.season.pk}"
        return format_html('<a href="{}">{}</a>{}', url, record["name"], guest)
