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
- 後付け (`atozuke`): the package always allows it (it judges the finished hand only, not when
  its yaku was settled), so for a club without 後付け an open hand is valued and marked
  `check_atozuke`: the table judges whether the yaku was there before the call. A closed hand
  is not concerned.

Pure Python, no Django, no floats.
"""

from __future__ import annotations

import re
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


# The yaku by the names a Japanese table says (the package names them in romaji); stored with the
# hand in these names, as Tenhou's logs name them. Dora are counted, not yaku: they are left out.
YAKU_JA = {
    "Menzen Tsumo": "門前清自摸和",
    "Riichi": "立直",
    "Open Riichi": "オープン立直",
    "Ippatsu": "一発",
    "Chankan": "槍槓",
    "Rinshan Kaihou": "嶺上開花",
    "Haitei Raoyue": "海底摸月",
    "Houtei Raoyui": "河底撈魚",
    "Double Riichi": "両立直",
    "Double Open Riichi": "オープン両立直",
    "Nagashi Mangan": "流し満貫",
    "Renhou": "人和",
    "Pinfu": "平和",
    "Tanyao": "断幺九",
    "Iipeiko": "一盃口",
    "Yakuhai (haku)": "役牌 白",
    "Yakuhai (hatsu)": "役牌 發",
    "Yakuhai (chun)": "役牌 中",
    "Yakuhai (seat wind east)": "自風 東",
    "Yakuhai (seat wind south)": "自風 南",
    "Yakuhai (seat wind west)": "自風 西",
    "Yakuhai (seat wind north)": "自風 北",
    "Yakuhai (round wind east)": "場風 東",
    "Yakuhai (round wind south)": "場風 南",
    "Yakuhai (round wind west)": "場風 西",
    "Yakuhai (round wind north)": "場風 北",
    "Sanshoku Doujun": "三色同順",
    "Ittsu": "一気通貫",
    "Chantai": "混全帯幺九",
    "Honroutou": "混老頭",
    "Toitoi": "対々和",
    "San Ankou": "三暗刻",
    "San Kantsu": "三槓子",
    "Sanshoku Doukou": "三色同刻",
    "Chiitoitsu": "七対子",
    "Shou Sangen": "小三元",
    "Honitsu": "混一色",
    "Junchan": "純全帯幺九",
    "Ryanpeikou": "二盃口",
    "Chinitsu": "清一色",
    "Kokushi Musou": "国士無双",
    "Chuuren Poutou": "九蓮宝燈",
    "Suu Ankou": "四暗刻",
    "Daisangen": "大三元",
    "Shousuushii": "小四喜",
    "Ryuuiisou": "緑一色",
    "Suu Kantsu": "四槓子",
    "Tsuu Iisou": "字一色",
    "Chinroutou": "清老頭",
    "Daisharin": "大車輪",
    "Daichisei": "大七星",
    "Dai Suushii": "大四喜",
    "Kokushi Musou Juusanmen Matchi": "国士無双十三面待ち",
    "Suu Ankou Tanki": "四暗刻単騎",
    "Daburu Chuuren Poutou": "純正九蓮宝燈",
    "Tenhou": "天和",
    "Chiihou": "地和",
    "Renhou (yakuman)": "人和",
    "Paarenchan": "八連荘",
}
DORA = {"Dora": "dora", "Aka Dora": "aka", "Ura Dora": "ura"}
# The yakuman a player may be liable for (責任払い), as the hands engine's `pao` names them.
PAO_YAKU = {"Daisangen": "daisangen", "Dai Suushii": "daisuushii", "Suu Kantsu": "suukantsu"}


@dataclass(frozen=True, slots=True)
class ClubOptions:
    """The options a club sets that the hand rules do not carry."""

    kuitan: bool = True
    aka: bool = True
    atozuke: bool = True
    renhou: str = "none"  # 人和: none (not a yaku), mangan or yakuman


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
    tenhou: bool = False  # 天和: the dealer's tsumo on the first draw
    chiihou: bool = False  # 地和: a non-dealer's tsumo on the first draw, no call before it
    renhou: bool = False  # 人和: a non-dealer's ron before their first draw
    kita: int = 0  # 北抜き (3 players): 北 set aside, each a dora; not among the tiles
    seat_wind: str = "east"
    round_wind: str = "east"


@dataclass(frozen=True, slots=True)
class Valued:
    """The calculator's answer: what the hands engine's `Win` takes, and the yaku."""

    han: int | None
    fu: int | None
    yakuman: int | None
    yaku: tuple[tuple[str, int], ...] = field(default_factory=tuple)  # (name, han or 13 × k)
    check_atozuke: bool = False  # a club without 後付け, an open hand: the table judges it

    def win_fields(self) -> dict[str, int]:
        if self.yakuman:
            return {"yakuman": self.yakuman}
        assert self.han is not None and self.fu is not None
        return {"han": self.han, "fu": self.fu} if self.han < 5 else {"han": self.han}

    @property
    def yaku_names(self) -> list[str]:
        """The yaku (dora aside) in Japanese, as kept with the hand."""
        return [YAKU_JA.get(name, name) for name, _han in self.yaku if name not in DORA]

    def dora_count(self, kind: str) -> int:
        """Dora of one kind (`dora`, `aka`, `ura`) counted in the hand's han."""
        return sum(han for name, han in self.yaku if DORA.get(name) == kind)

    @property
    def pao_yaku(self) -> list[str]:
        """The yakuman of this hand that can have a liable player (the engine's names)."""
        return [PAO_YAKU[name] for name, _han in self.yaku if name in PAO_YAKU]


def _bad(field_name: str, message: str) -> InputError:
    return InputError([Problem(field_name, CALCULATOR, message)])


TILES_TEXT = re.compile(r"(?:[0-9]+[mps]|[1-7]+z)+")


def _tiles(text: str, field_name: str, aka: bool) -> list[int]:
    # Honours are 1z–7z only: 8z and 9z were read past the last tile (ids 136+), a crash later.
    if not isinstance(text, str) or not TILES_TEXT.fullmatch(text):
        raise _bad(field_name, f"cannot be read as tiles: {text!r}")
    kinds: dict[str, int] = {}
    for digits, suit in re.findall(r"([0-9]+)([mpsz])", text):
        for d in digits:
            kind = ("5" if d == "0" else d) + suit
            kinds[kind] = kinds.get(kind, 0) + 1
            if kinds[kind] > 4:
                raise _bad(field_name, f"has more than four of a tile: {text!r}")
    try:
        tiles = TilesConverter.one_line_string_to_136_array(text, has_aka_dora=aka)
    except (ValueError, IndexError, KeyError):
        raise _bad(field_name, f"cannot be read as tiles: {text!r}") from None
    if (not tiles and text) or any(not 0 <= t < 136 for t in tiles):
        raise _bad(field_name, f"cannot be read as tiles: {text!r}")
    return tiles


def _first_turn_check(rules: HandRules, club: ClubOptions, hand: WinningHand) -> None:
    """天和, 地和 and 人和 only as they can happen, 人和 only where the club counts it, and 北抜き
    only at a 3-player table (0 to 4 北)."""
    dealer = hand.seat_wind == "east"
    first = [name for name in ("tenhou", "chiihou", "renhou") if getattr(hand, name)]
    if len(first) > 1:
        raise _bad(first[1], "only one of tenhou, chiihou and renhou")
    if hand.tenhou and not (dealer and hand.tsumo):
        raise _bad("tenhou", "is the dealer's tsumo")
    if hand.chiihou and (dealer or not hand.tsumo):
        raise _bad("chiihou", "is a non-dealer's tsumo")
    if hand.renhou and (dealer or hand.tsumo):
        raise _bad("renhou", "is a non-dealer's ron")
    if hand.renhou and club.renhou == "none":
        raise _bad("renhou", "is not a yaku under the club's rules")
    if first and hand.melds:
        raise _bad(first[0], "cannot follow a call")
    if isinstance(hand.kita, bool) or not isinstance(hand.kita, int) or not 0 <= hand.kita <= 4:
        raise _bad("kita", "must be from 0 to 4")
    if hand.kita and rules.players != 3:
        raise _bad("kita", "is only set aside at a 3-player table")


def value_hand(rules: HandRules, club: ClubOptions, hand: WinningHand) -> Valued:
    """The han and fu (or yakuman) and yaku of `hand` under `rules` and the club's options.
    Raises InputError (code `calculator`) for tiles that cannot be read or a hand that is no
    winning hand (no yaku, not complete)."""
    if not all(isinstance(w, str) and w in WINDS for w in (hand.seat_wind, hand.round_wind)):
        raise _bad("seat_wind", "must be east, south, west or north")
    _first_turn_check(rules, club, hand)
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
        renhou_as_yakuman=club.renhou == "yakuman",
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
        is_renhou=hand.renhou,
        num_nuki_dora=hand.kita,
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
    check = not club.atozuke and bool(result.is_open_hand)
    if yakuman_count:
        return Valued(None, None, min(yakuman_count, rules.yakuman_max), yaku, check)
    han, fu = int(result.han), int(result.fu)
    return Valued(han, fu, None, yaku, check)
