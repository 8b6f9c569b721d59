"""Hand-rules presets (docs/hands.md): public rule sets (Tenhou, M.League, 日本プロ麻雀連盟, EMA,
WRC, 最高位戦, 日本プロ麻雀協会, RMU) and the seed clubs' own rule pages. Names shared with settlement's presets describe the same
club.

Each preset's `sources` says where its values come from; where a source is silent, `chosen` says
what was picked. Pantheon rule sets are cited at github.com/MahjongPantheon/pantheon commit b8609fd8
(`Common/rulesets/*.php`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .hand_rules import ChomboPayment, Extension, HandRules

PANTHEON = "https://github.com/MahjongPantheon/pantheon/tree/b8609fd8/Common/rulesets"


@dataclass(frozen=True, slots=True)
class HandPreset:
    name: str
    sources: tuple[str, ...]  # the public pages (or the club's own page) the values are read from
    chosen: str  # what the sources do not say, and what was picked
    rules: HandRules


def _all(dealer: str) -> dict[str, str]:
    return dict.fromkeys(("kyuushu", "suufon", "suucha", "suukan", "sanchahou"), dealer)


def _abortive(kyuushu: str, suufon: str, suucha: str, suukan: str, sanchahou: str) -> dict:
    return {
        "kyuushu": kyuushu,
        "suufon": suufon,
        "suucha": suucha,
        "suukan": suukan,
        "sanchahou": sanchahou,
    }


# Tenhou: the values every other preset is written against (hands.md's table).
_TENHOU = HandRules(
    players=4,
    length="hanchan",
    start=25_000,
    honba_ron=300,
    honba_tsumo=100,
    draw_pot=3_000,
    draw_renchan="tenpai",
    kiriage=False,
    kazoe="yakuman",
    yakuman_max=6,
    multi_ron="double",
    multi_ron_honba="first",
    multi_ron_renchan="any",
    riichi_min=1_000,
    nagashi="draw",
    abortive=_all("renchan"),
    bust="below-zero",
    agari_yame=True,
    tenpai_yame=True,
    extension=Extension(target=30_000, winds=1, sudden_death=True),
    chombo=ChomboPayment("record"),
    pao=("daisangen", "daisuushii"),
    pao_ron_honba="pao",
    pao_scope="hand",
    sanma_tsumo="loss",
)
# The competition rule sets share these: no riichi minimum, no bust, no stop, no extension.
_COMPETITION = replace(
    _TENHOU,
    start=30_000,
    kazoe="sanbaiman",
    yakuman_max=1,
    multi_ron="atamahane",
    riichi_min=None,
    nagashi="none",
    abortive=_all("none"),
    bust="none",
    agari_yame=False,
    tenpai_yame=False,
    extension=None,
    pao_ron_honba="discarder",
)
# The seed clubs: yakuman with kazoe and double yakuman, double ron, nagashi as a win, bust below 0.
_CLUB = replace(
    _TENHOU,
    nagashi="win",
    tenpai_yame=False,
    extension=None,
    pao_ron_honba="discarder",
)

TENHOU_SOURCES = (
    "http://arcturus.su/mjw/index.php?title=Tenhou.net_rules&oldid=15453",
    "https://www.mjstars.net/rules-for",
    "https://hagurin-tenhou.com/category/22819511-1.html",
    "https://jkaljsoiw.hatenablog.com/entry/2023/04/21/223000",
    f"{PANTHEON}/tenhounet.php",
    "tsubakisakura/mjlog2json data/2019103023gm-00a9 (pao_scope: hand)",
)
# A real 3-player game (tests/data/online): a 2-honba ron of 32,000 is paid 32,400, so 200 a
# honba on a ron, as the two tsumo payers' 100 each.
SANMA_HONBA = "Tenhou log 2018110809gm-00b9-0000-00a79b89 (honba_ron: 200)"

HAND_PRESETS: dict[str, HandPreset] = {
    p.name: p
    for p in (
        HandPreset(
            "tenhou",
            TENHOU_SOURCES,
            "Pantheon also lists suukantsu for pao; the Tenhou pages do not and no log has it: left "
            "out. Tenhou has no chombo: record.",
            _TENHOU,
        ),
        HandPreset(
            "tenhou-tonpuu",
            TENHOU_SOURCES,
            "As tenhou, east-only; the extension is the South round (until 南4).",
            replace(_TENHOU, length="tonpuu"),
        ),
        HandPreset(
            "tenhou-3p",
            (*TENHOU_SOURCES, "dnovikoff/tenhou log/test_data/sanma2.xml", SANMA_HONBA),
            "Tenhou's 3-player rooms: 35,000 start, 40,000 target, 2,000 noten pot, ツモ損 with "
            "100 a payer a honba and 200 a honba on a ron; abortive draws limited to 九種九牌 and "
            "四槓.",
            replace(
                _TENHOU,
                players=3,
                honba_ron=200,
                start=35_000,
                draw_pot=2_000,
                abortive=_abortive("renchan", "none", "none", "renchan", "none"),
                extension=Extension(target=40_000, winds=1, sudden_death=True),
            ),
        ),
        HandPreset(
            "tenhou-3p-tonpuu",
            (*TENHOU_SOURCES, "dnovikoff/tenhou log/test_data/sanma2.xml", SANMA_HONBA),
            "As tenhou-3p, east-only (三麻東風); the extension is the South round (until 南3).",
            replace(
                _TENHOU,
                players=3,
                honba_ron=200,
                length="tonpuu",
                start=35_000,
                draw_pot=2_000,
                abortive=_abortive("renchan", "none", "none", "renchan", "none"),
                extension=Extension(target=40_000, winds=1, sudden_death=True),
            ),
        ),
        HandPreset(
            "m-league",
            (
                "http://mahjong-space.com/index.php?M%E3%83%AA%E3%83%BC%E3%82%B0",
                "https://majannavi.com/archives/55",
                "https://riichi.wiki/index.php?curid=3542&oldid=26195&title=M.League",
                "https://ojisan-gyakushu.com/mleague-rule/",
            ),
            "Chombo: the pages disagree (満貫払い / 20000点相当の罰符): record, settled by "
            "settlement's penalty 20; the league books it to the season total, not to the game. "
            "Kiriage, nagashi and pao honba not stated: false, draw, "
            "discarder.",
            replace(
                _COMPETITION,
                start=25_000,
                nagashi="draw",
                pao=("daisangen", "daisuushii", "suukantsu"),
            ),
        ),
        HandPreset(
            "jpml",
            (f"{PANTHEON}/jpmlA.php",),
            "The dealer after an abortive draw is not in that file: renchan (the usual rule).",
            replace(
                _COMPETITION,
                abortive=_abortive("renchan", "renchan", "renchan", "renchan", "none"),
                pao=("daisangen", "daisuushii", "suukantsu"),
            ),
        ),
        HandPreset(
            "ema",
            (
                f"{PANTHEON}/ema.php",
                "https://riichi.wiki/index.php?title=EMA_Riichi_Competition_Rules&oldid=15454",
                "http://mahjongtime.com/Mahjong-Japanese-Rules-4.aspx?lang=eng",
            ),
            "Pantheon gives each winner of a multiple ron their own riichi stick back; here all "
            "sticks go to the first winner (not expressible).",
            replace(_COMPETITION, multi_ron="triple", multi_ron_honba="each"),
        ),
        HandPreset(
            "wrc",
            (
                f"{PANTHEON}/wrc.php",
                "https://pt.scribd.com/document/352953763/World-Riichi-Championship-Rules",
            ),
            "",
            replace(_COMPETITION, kiriage=True),
        ),
        HandPreset(
            "saikouisen",
            ("https://jan39.com/news_s/?cat=13_28",),
            "Read: 30,000 start; 聴牌連荘; 聴牌料 場に3000点; 途中流局 一切無し; パオ 無し; "
            "数え役満・役満の複合 無し; オーラスの親のあがりやめ・聴牌やめ 無し. Not in the summary "
            "read: the honba amounts (the usual 300/100 kept, not sourced), multiple ron "
            "(atamahane chosen), bust (none chosen, as the other competition rules), nagashi "
            "(none chosen), kiriage (false chosen).",
            replace(_COMPETITION, pao=()),
        ),
        HandPreset(
            "npm",
            (
                "https://pedia.3rd-in.co.jp/wiki/%E6%97%A5%E6%9C%AC%E3%83%97%E3%83%AD%E9%BA%BB%E9%9B%80%E5%8D%94%E4%BC%9A",
            ),
            "Read: 25,000 start; ハコ(トビ)なし; 流し満貫・途中流局なし; 包なし; ダブル役満・トリプル"
            "役満あり (yakuman_max 3); 和了は上家優先 (atamahane); オーラスの和了やめなし. Not in "
            "the page: honba and noten amounts (the usual 300/100 and 3,000 kept, not sourced), "
            "kazoe (sanbaiman chosen), kiriage (false chosen), テンパイやめ (none chosen).",
            replace(_COMPETITION, start=25_000, yakuman_max=3, pao=()),
        ),
        HandPreset(
            "rmu-a",
            ("https://rmu.jp/rule", "https://top3776.hatenablog.com/entry/2022/06/04/122942"),
            "Read (rmu.jp): 3万点持ち東南戦; アガリ・テンパイ連荘, オーラスのアガリやめ・テンパイやめ"
            "なし; 一本場300点; ノーテン罰符 場に3000点; 途中流局は全てなし; ダブロン・トリプルロン"
            "は上家優先; 箱下終了なし. Read (top3776): 役満の複合あり, パオと数え役満なし "
            "(yakuman_max 6 chosen, as Tenhou's). Not read: nagashi (none chosen), kiriage (false "
            "chosen).",
            replace(_COMPETITION, yakuman_max=6, pao=()),
        ),
        HandPreset(
            "rmu-m",
            ("https://rmu.jp/rule", "https://top3776.hatenablog.com/entry/2022/06/04/122942"),
            "As rmu-a with 配給原点25,000点 (Mルール: Aルールに赤ドラを加え, 配給原点25,000点).",
            replace(_COMPETITION, start=25_000, yakuman_max=6, pao=()),
        ),
        HandPreset(
            "kinyokai-2015",
            ("seed 000 山口 金曜会 (平成27年4月1日より適用)",),
            "A-1, A-5, C-2..C-5, D-1, D-5..D-7, G-6/G-7, H-4, I-1..I-3, J, L. Not expressible: "
            "G-7's chombo against a yakuman tenpai (half that hand's value).",
            replace(
                _CLUB,
                draw_renchan="tenpai-from-south",
                abortive=_abortive("renchan", "rotate", "renchan", "renchan", "dealer-claimed"),
                chombo=ChomboPayment("each", 3_000),
            ),
        ),
        HandPreset(
            "mame-no-kai",
            ("seed 001 マメの会",),
            "Sudden death in the west/north rounds not stated: true. 流し満貫 流れる read as "
            "nagashi: win. Honba and noten amounts not stated: 300/100, 3,000.",
            replace(
                _CLUB,
                abortive=_abortive("renchan", "renchan", "rotate", "rotate", "rotate"),
                extension=Extension(target=30_000, winds=2, sudden_death=True),
                pao=("daisangen", "daisuushii", "suukantsu"),
                pao_ron_honba="split",
            ),
        ),
        HandPreset(
            "kagetsu-cup",
            ("seed 002 花月杯",),
            "Not expressible: 和了止め by a dealer who is not first; 3 han 50 fu as kiriage; the "
            "SBM48 doubling. 満貫分を場に is read as a reverse mangan.",
            replace(
                _CLUB,
                length="tonpuu",
                kiriage=True,
                multi_ron="triple",
                abortive=_abortive("rotate", "rotate", "none", "rotate", "none"),
                chombo=ChomboPayment("mangan"),
                pao=(),
            ),
        ),
        HandPreset(
            "pairon-kansai",
            ("seed 003 関西ぱいろん (4人打ち)",),
            "",
            replace(
                _CLUB,
                multi_ron_renchan="first",
                abortive=_all("renchan"),
                tenpai_yame=True,
                chombo=ChomboPayment("mangan"),
                pao=("daisangen", "daisuushii", "suukantsu"),
            ),
        ),
        HandPreset(
            "pairon-kansai-3p",
            ("seed 003 関西ぱいろん (3人打ち)",),
            "multi_ron_renchan: any, as the 3-player page says (親を含むダブロンは連荘).",
            replace(
                _CLUB,
                players=3,
                start=35_000,
                honba_ron=600,
                honba_tsumo=300,
                abortive=_abortive("renchan", "none", "none", "renchan", "none"),
                tenpai_yame=True,
                chombo=ChomboPayment("mangan"),
                pao=("daisangen", "daisuushii", "suukantsu"),
            ),
        ),
        HandPreset(
            "takabari-kenko",
            ("seed 004 高針健康麻雀",),
            "流れ is read as an abortive draw with the dealer keeping the deal (the page does not "
            "say who deals next).",
            replace(
                _CLUB,
                kiriage=True,
                kazoe="sanbaiman",
                yakuman_max=1,
                nagashi="none",
                abortive=_all("renchan"),
                agari_yame=False,
                chombo=ChomboPayment("each", 3_000),
            ),
        ),
    )
}
