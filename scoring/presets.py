"""The rules of the first clubs, from their own pages in shared/seeds/ (see settlement.md's table).

Where a club's page is silent, the comment says what was chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import ChipKind, ChomboRule, RateTier, Rules


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    seed: str  # which page in shared/seeds/ it is drawn from
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
    )
}
