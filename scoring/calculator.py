"""The point calculator (issue 23, item 4): a winning hand's tiles to its han, fu and yaku.

Yaku and fu are not worked out here: the `mahjong` package (PyPI, checked by its authors against
millions of Tenhou hands) does it. This module only turns the table's words into its input and its
answer into the hands engine's: `han` + `fu`, or `yakuman`, and the yaku by name, so that a
`Win(...)` can be filled in from the tiles.

Tiles are written as in Tenhou's one-line notation: `123m456p789s1122z`, `0` for a red five
(`0m` = 赤5萬); honours 1z–7z are 東南西北白發中. The closed tiles include the winning tile.

Club options map onto the package's configuration:
- 喰いタン (`kuitan`) → `has_open_tanyao`; 赤ドラ (`aka`) → `has_aka_dora`;
- 切り上げ満貫 (`kiriage`) and 数え役満 (`kazoe`: `yakuman` or `sanbaiman`) come from the hand rules
  (they are the engine's too); several yakuman count only when `yakuman_max` > 1;
- 後付け (`atozuke`): the package always allows it (it judges the finished hand only), so a club
  without 後付け has to judge that at the table: `atozuke=False` is refused rather than ignored.

Pure Python, no Django, no floats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mahjong.constants import EAST, NORTH, SOUTH, WEST
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.meld import Meld
from mahjong.tile import TilesConverter

from .errors import InputError, Problem
from .hand_rules import HandRules

CALCULATOR = "calculator"  # the problem code of a hand the calculator cannot value
WINDS = {"east": EAST, "south": SOUTH, "west": WEST, "north": NORTH}
MELD_KINDS = {"chi": Meld.CHI, "pon": Meld.PON, "kan": Meld.KAN, "ankan": Meld.KAN}


@dataclass(frozen=True, slots=True)
class ClubOptions:
    """The options a club sets that the hand rules do not carry."""

    kuitan: bool = True
    aka: bool = True
    atozuke: bool = True


@dataclass(frozen=True, slots=True)
class CalledMeld:
    kind: str  # chi, pon, kan (open), ankan (closed kan)
    tiles: str  # e.g. "123m", "555z", "0555p"


@dataclass(frozen=True, slots=True)
class WinningHand:
    tiles: str  # the closed tiles, the winning tile included
    win: str  # the winning tile, e.g. "3s"
    melds: tuple[CalledMeld, ...] = ()
    dora: tuple[str, ...] = ()  # indicators
    ura: tuple[str, ...] = ()  # indicators, looked at after a riichi
    tsumo: bool = False
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False
    chankan: bool = False
    haitei: bool = False
    houtei: bool = False
    tenhou: bool = False
    chiihou: bool = False
    seat_wind: str = "east"
    round_wind: str = "east"


@dataclass(frozen=True, slots=True)
class Valued:
    """The calculator's answer: what the hands engine's `Win` takes, and the yaku."""

    han: int | None
    fu: int | None
    yakuman: int | None
    yaku: tuple[tuple[str, int], ...] = field(default_factory=tuple)  # (name, han or 13 × k)

    def win_fields(self) -> dict[str, int]:
        if self.yakuman:
            return {"yakuman": self.yakuman}
        assert self.han is not None and self.fu is not None
        return {"han": self.han, "fu": self.fu} if self.han < 5 else {"han": self.han}


def _bad(field_name: str, message: str) -> InputError:
    return InputError([Problem(field_name, CALCULATOR, message)])


def _tiles(text: str, field_name: str, aka: bool) -> list[int]:
    try:
        tiles = TilesConverter.one_line_string_to_136_array(text, has_aka_dora=aka)
    except (ValueError, IndexError, KeyError):
        raise _bad(field_name, f"cannot be read as tiles: {text!r}") from None
    if not tiles and text:
        raise _bad(field_name, f"cannot be read as tiles: {text!r}")
    return tiles


def value_hand(rules: HandRules, club: ClubOptions, hand: WinningHand) -> Valued:
    """The han and fu (or yakuman) and yaku of `hand` under `rules` and the club's options.
    Raises InputError (code `calculator`) for tiles that cannot be read or a hand that is no
    winning hand (no yaku, not complete)."""
    if not club.atozuke:
        raise _bad("atozuke", "a club without 後付け judges it at the table: not supported")
    if hand.seat_wind not in WINDS or hand.round_wind not in WINDS:
        raise _bad("seat_wind", "must be east, south, west or north")
    aka = True  # a red five is read as the red five; it counts as dora only with the club's 赤ドラ
    melds = []
    meld_tiles: list[int] = []
    for i, m in enumerate(hand.melds):
        if m.kind not in MELD_KINDS:
            raise _bad(f"melds[{i}].kind", "must be chi, pon, kan or ankan")
        tiles = _tiles(m.tiles, f"melds[{i}].tiles", aka)
        if len(tiles) != (4 if m.kind in ("kan", "ankan") else 3):
            raise _bad(f"melds[{i}].tiles", "has the wrong number of tiles")
        melds.append(Meld(meld_type=MELD_KINDS[m.kind], tiles=tiles, opened=m.kind != "ankan"))
        meld_tiles += tiles
    closed = _tiles(hand.tiles, "tiles", aka)
    win = _tiles(hand.win, "win", aka)
    if len(win) != 1:
        raise _bad("win", "must be one tile")
    if not any(t // 4 == win[0] // 4 for t in closed):
        raise _bad("win", "is not among the closed tiles")
    win_tile = next(t for t in closed if t // 4 == win[0] // 4)
    options = OptionalRules(
        has_open_tanyao=club.kuitan,
        has_aka_dora=club.aka,
        has_double_yakuman=rules.yakuman_max > 1,
        kazoe_limit=(
            HandConstants.KAZOE_LIMITED
            if rules.kazoe == "yakuman"
            else HandConstants.KAZOE_SANBAIMAN
        ),
        kiriage=rules.kiriage,
        is_three_player=rules.players == 3,
    )
    config = HandConfig(
        is_tsumo=hand.tsumo,
        is_riichi=hand.riichi or hand.double_riichi,
        is_daburu_riichi=hand.double_riichi,
        is_ippatsu=hand.ippatsu,
        is_rinshan=hand.rinshan,
        is_chankan=hand.chankan,
        is_haitei=hand.haitei,
        is_houtei=hand.houtei,
        is_tenhou=hand.tenhou,
        is_chiihou=hand.chiihou,
        player_wind=WINDS[hand.seat_wind],
        round_wind=WINDS[hand.round_wind],
        options=options,
    )
    result = HandCalculator.estimate_hand_value(
        closed + meld_tiles,
        win_tile,
        melds=melds or None,
        dora_indicators=[t for d in hand.dora for t in _tiles(d, "dora", aka)] or None,
        ura_dora_indicators=[t for u in hand.ura for t in _tiles(u, "ura", aka)] or None,
        config=config,
    )
    if result.error:
        raise _bad("tiles", f"is not a winning hand: {result.error}")
    yaku = tuple(
        (y.name, y.han_open if result.is_open_hand else y.han_closed) for y in result.yaku or ()
    )
    yakuman_count = sum(
        (y.han_open if result.is_open_hand else y.han_closed) // 13
        for y in result.yaku or ()
        if y.is_yakuman
    )
    if yakuman_count:
        return Valued(None, None, min(yakuman_count, rules.yakuman_max), yaku)
    han, fu = int(result.han), int(result.fu)
    return Valued(han, fu, None, yaku)
