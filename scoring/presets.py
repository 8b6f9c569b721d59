"""Presets: the rules of the first clubs (from their own rule pages), then rule sets that clubs
copy from public sources (日本プロ麻雀連盟, M.League, EMA). docs/rules.md lists them.

Each field of a copied rule set cites its public source; where a source is silent, the comment says
what was chosen and why.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import ChipKind, ChomboRule, FloatingUma, RateTier, Rules


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    seed: str  # the rule page it is drawn from (a club's own page, or a public rule set)
    note: str
    rules: Rules


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "kinyokai-2015",
            "000 山口 金曜会 (平成27年4月1日より適用)",
            "B-3: 25,000点持ち30,000点返し、五捨六入、ウマ5-10. B-4: 同点は起家から順に上位. "
            "H-7: 残った供託はトップ. G-7: チョンボは全員に3,000点 (in-game).",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="gosha-rokunyu",
                uma=(10, 5, -5, -10),
            ),
        ),
        Preset(
            "mame-no-kai",
            "001 マメの会",
            "25000点の30000点返し; 同点は上家取り; オーラス流局の供託はそのまま (to the house); "
            "箱下なし; チョンボ トップ以外 -20/トップ+20, トップは -30/他+10; "
            "ウマ 3位→2位 ±10 (4位→1位 ±20 assumed); rounding not stated: none. "
            "祝儀 0.2=100円, 0.3=90円, 0.5=200円; 一発ツモ1枚x3, 一発ロン3枚, "
            "役満ツモ2枚x3, 役満ロン3枚; 負け分の1割を追加して後日払う.",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="none",
                uma=(20, 10, -10, -20),
                deposits="house",
                below_zero="floor",
                chombo=ChomboRule("pay_top", points=20, top_points=30),
                chips={"ippatsu": ChipKind(tsumo=1, ron=3), "yakuman": ChipKind(tsumo=2, ron=3)},
                rates={
                    "0.2": RateTier(yen_per_1000=20, chip_yen=100),
                    "0.3": RateTier(yen_per_1000=30, chip_yen=90),
                    "0.5": RateTier(yen_per_1000=50, chip_yen=200),
                },
                surcharge_percent=10,
            ),
        ),
        Preset(
            "kagetsu-cup",
            "002 花月杯",
            "二万五千点持ちの三万点返し; 順位点無し; 箱割れ有り; 南入無し (east-only), 同点は頭ハネ; "
            "四位は千円を主催者に; 役満は全員から二千円 (ダブルは四千円); "
            "供託金は場代に、余りは優勝者へ (上限一万円).",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="none",
                uma=(0, 0, 0, 0),
                place_fees={4: 1_000},
                session_shugi=2_000,
                prize_cap=10_000,
            ),
        ),
        Preset(
            "pairon-kansai",
            "003 関西ぱいろん (4人打ち)",
            "25000点スタート30000点返し; ウマは10-20; トビアリ、箱下計算アリ; チョンボは局中に精算.",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="none",
                uma=(20, 10, -10, -20),
            ),
        ),
        Preset(
            "pairon-kansai-3p",
            "003 関西ぱいろん (3人打ち)",
            "35000点スタート40000点返し; 3位が1位に20.",
            Rules(
                players=3,
                start=35_000,
                return_points=40_000,
                rounding="none",
                uma=(20, 0, -20),
            ),
        ),
        Preset(
            "takabari-kenko",
            "004 高針健康麻雀",
            "25,000点持ち (オカなし); 順位点 +4,000/+2,000/-2,000/-4,000; 供託はトップ取り; "
            "チョンボは全員に3,000点 (in-game); 賭けない健康麻雀.",
            Rules(
                players=4,
                start=25_000,
                return_points=25_000,
                rounding="none",
                uma=(4, 2, -2, -4),
            ),
        ),
        # 日本プロ麻雀連盟 公式ルール (https://www.ma-jan.or.jp/guide/game_rule.html, 競技ルール).
        Preset(
            "jpml",
            "日本プロ麻雀連盟 公式ルール (public)",
            "30,000点持ち30,000点返し (オカなし); 浮きウマ: 1人浮き +12/-1/-3/-8, 2人浮き "
            "+8/+4/-4/-8, 3人浮き +8/+3/+1/-12 (千点単位). Chosen where not read: 同点は順位点を等分, "
            "供託はトップ, チョンボは -20 (罰符), 端数はそのまま.",
            Rules(
                players=4,
                # 持ち点 30,000, 原点 30,000: 浮き (floating) means ending at or above 30,000.
                start=30_000,
                return_points=30_000,
                # Points are kept to the hundred in 連盟's records (e.g. +12.3): no rounding.
                rounding="none",
                # 2人浮き (and the 0- or 4-floating cases that cannot happen with 30,000 start
                # but are kept for safety) use the plain uma 8-4 of the 2-floating row.
                uma=(8, 4, -4, -8),
                floating=FloatingUma(
                    line=30_000,
                    by_floating={1: (12, -1, -3, -8), 2: (8, 4, -4, -8), 3: (8, 3, 1, -12)},
                ),
                # Chosen: tied players share the uma of the ranks they span (as in the pro leagues).
                ties="split",
                # Chosen: leftover riichi sticks go to the top, the usual competition rule.
                deposits="top",
                # Chosen: a chombo costs the offender 20 (a penalty nobody receives), the common
                # competition form; a club that settles chombo in-game sets "none".
                chombo=ChomboRule("penalty", points=20),
            ),
        ),
        # M.League (https://m-league.jp/about/ の競技ルール): 25,000点持ち30,000点返し, ウマ 10-30,
        # 飛びなし; オカ 20 to the top (25,000 start, 30,000 return).
        Preset(
            "m-league",
            "M.League 競技ルール (public)",
            "25,000点持ち30,000点返し, オカ +20 はトップ; ウマ 10-30 (+30/+10/-10/-30); 飛びなし "
            "(箱下もそのまま計算). チョンボは対局の結果に入れず、シーズンの合計から引く"
            "（m-league.aja0.com/?p=66023）。対局外の調整（チョンボ）として計上する。 "
            "Chosen where not read: 同点は順位点を等分, 供託はトップ, チョンボ -20 (as an adjustment).",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="none",  # M.League scores are shown to one decimal: no rounding
                uma=(30, 10, -10, -30),
                ties="split",  # chosen: points shared equally between tied players
                deposits="top",  # chosen: leftover riichi sticks to the top
                below_zero="settle",  # no 飛び: the game goes on below zero and counts as it is
                # Not in the game's result: M.League books a chombo in the season total
                # (m-league.aja0.com/?p=66023), here an adjustment (league.teams).
                chombo=ChomboRule("none"),
            ),
        ),
        # EMA Riichi Competition Rules, 2016 edition (http://mahjong-europe.org/portal/images/docs/
        # Riichi-rules-2016-EN.pdf; summary of the changes at https://kasu.at/news/2015/12/
        # neue-ema-regeln/): uma 15,000/5,000/−5,000/−15,000; chombo 20,000 points deducted after
        # uma; players start at 30,000 and there is no oka.
        Preset(
            "ema-2016",
            "EMA Riichi Competition Rules 2016 (public)",
            "Start 30,000, no oka; uma +15/+5/-5/-15; chombo -20 after uma. Chosen where not "
            "read: tied players share the uma, leftover riichi sticks to the top.",
            Rules(
                players=4,
                start=30_000,
                return_points=30_000,
                rounding="none",  # final scores are kept exactly (in thousands, one decimal)
                uma=(15, 5, -5, -15),
                ties="split",  # chosen: equal scores share the uma of their ranks
                deposits="top",  # chosen: leftover riichi sticks go to the first-placed player
                chombo=ChomboRule("penalty", points=20),  # 20,000 points deducted after uma
            ),
        ),
    )
}
