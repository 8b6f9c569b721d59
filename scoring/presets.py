"""Presets: the rules of the first clubs (from their own rule pages), then rule sets that clubs
copy from public sources (日本プロ麻雀連盟, M.League, EMA, 天鳳, 最高位戦, 日本プロ麻雀協会, RMU, WRC). docs/rules.md lists them.

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
            "(箱下もそのまま計算). Chosen where not read: 同点は順位点を等分, 供託はトップ, "
            "チョンボ -20. The league books the chombo penalty to the player's season total, not to "
            "the game (m-league.aja0.com/?p=66023); here it is booked on the game as a penalty "
            "nobody receives, which adds up to the same season total. A club that keeps it out of "
            "the game sets チョンボ to none and books it as an adjustment on the season's teams page.",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="none",  # M.League scores are shown to one decimal: no rounding
                uma=(30, 10, -10, -30),
                ties="split",  # chosen: points shared equally between tied players
                deposits="top",  # chosen: leftover riichi sticks to the top
                below_zero="settle",  # no 飛び: the game goes on below zero and counts as it is
                chombo=ChomboRule("penalty", points=20),  # chosen: −20 to the offender
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
        # 天鳳 (tenhou.net) ranked games, as their own result lines (owari) settle them.
        Preset(
            "tenhou",
            "天鳳 段位戦 (public)",
            "25,000点持ち30,000点返し, オカ +20 はトップ; 百点の位は絶対値で四捨五入 (24,500 → 25, "
            "38,500 → 39, -7,500 → -8); 順位ウマ +20/+10/-10/-20; "
            "残った供託はトップ; 同点は東1局の席順 (起家が上). Sources: "
            "http://arcturus.su/mjw/index.php?title=Tenhou.net_rules&oldid=15453 (持ち点, ウマ); "
            "https://github.com/mahjongrepository/tenhou-python-bot/issues/38 (同点は東1局の風順); "
            "real logs of 2019 (tsubakisakura/mjlog2json data/, copied to tests/data/online/): "
            "their owari lines show the rounding (4,400 → -46.0), the uma and the leftover sticks "
            "added to the first; Tenhou rounds x,500 up on the magnitude (half up), so a player "
            "ending on 24,500 counts 25 and one on -7,500 counts -8. A 2023 特南 log in the same place has exact scores (63.8): newer "
            "Tenhou games are not rounded; a club settling those sets rounding none. "
            "Chosen where not read: no chombo (Tenhou has none).",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                # Half up on the magnitude: the four-rounding `shisha-gonyu` with the default
                # `rounding_negative: magnitude` (24,500 → 25, -7,500 → -8).
                rounding="shisha-gonyu",
                uma=(20, 10, -10, -20),
                ties="seat",
                deposits="top",
            ),
        ),
        # 天鳳 三人打ち (三麻) ranked games, as their own result lines settle them.
        Preset(
            "tenhou-3p",
            "天鳳 三人打ち段位戦 (public)",
            "35,000点持ち40,000点返し, オカ +15 はトップ; 百点の位は絶対値で四捨五入 (tenhou と同じ); "
            "順位ウマ +20/0/-20 (3位が1位に20); 残った供託はトップ; 同点は東1局の席順. "
            "Source: two real 鳳南 logs (tests/data/online/more/): 2018110809gm-00b9 ends "
            "48,100 / -6,400 / 63,300 and Tenhou writes 8.0 / -66.0 / 58.0; 2009060321gm-00b9 ends "
            "71,000 / -1,000 / 35,000 and Tenhou writes 66.0 / -61.0 / -5.0.",
            Rules(
                players=3,
                start=35_000,
                return_points=40_000,
                rounding="shisha-gonyu",
                uma=(20, 0, -20),
                ties="seat",
                deposits="top",
            ),
        ),
        # 最高位戦日本プロ麻雀協会 (https://jan39.com/news_s/?cat=13_28, 最高位戦ルール概要).
        Preset(
            "saikouisen",
            "最高位戦日本プロ麻雀協会 競技規定 (public)",
            "オカ無し (30,000点持ち30,000点返し); ウマ 10,000点-30,000点 (+30/+10/-10/-30). "
            "Source: https://jan39.com/news_s/?cat=13_28. Chosen where not read: 同点は順位点を等分, "
            "供託はトップ, 端数はそのまま. チョンボの罰点は読めた出典に無い "
            "(https://majyan-item.com/shou-chonbo/ は小チョンボの -10P だけ): 設定なし, "
            "クラブが決める.",
            Rules(
                players=4,
                start=30_000,
                return_points=30_000,
                rounding="none",
                uma=(30, 10, -10, -30),
                ties="split",  # chosen
                deposits="top",  # chosen
            ),
        ),
        # 日本プロ麻雀協会 公式ルール (https://pedia.3rd-in.co.jp/wiki/日本プロ麻雀協会).
        Preset(
            "npm",
            "日本プロ麻雀協会 公式ルール (public)",
            "25,000点持ち30,000点返し, オカあり (+20 はトップ); 順位ウマ 10-30 (+30/+10/-10/-30); "
            "ハコなし; 1,000点を1P. Source: "
            "https://pedia.3rd-in.co.jp/wiki/%E6%97%A5%E6%9C%AC%E3%83%97%E3%83%AD%E9%BA%BB%E9%9B%80%E5%8D%94%E4%BC%9A. "
            "Chosen where not read: 同点は順位点を等分, 供託はトップ, 端数はそのまま. "
            "チョンボの罰点は出典に無い: 設定なし, クラブが決める.",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="none",
                uma=(30, 10, -10, -30),
                ties="split",  # chosen
                deposits="top",  # chosen
            ),
        ),
        # RMU 公式ルール (https://rmu.jp/rule): A (and B) and M.
        Preset(
            "rmu-a",
            "RMU 公式ルール Aルール (public)",
            "3万点持ち3万点返し; 順位点 +15/+5/△5/△15; 同点の場合は順位点を分ける. Source: "
            "https://rmu.jp/rule. Chosen where not read: 供託はトップ, 端数はそのまま. "
            "チョンボの罰点は出典に無い: 設定なし, クラブが決める.",
            Rules(
                players=4,
                start=30_000,
                return_points=30_000,
                rounding="none",
                uma=(15, 5, -5, -15),
                ties="split",
                deposits="top",  # chosen
            ),
        ),
        Preset(
            "rmu-m",
            "RMU 公式ルール Mルール (public)",
            "配給原点25,000点, オカの20,000点はトップ; 順位点 +50/+10/△10/△30 (the +50 includes "
            "the oka: with the 30,000 return the uma is +30/+10/-10/-30); 同点は順位点を分ける. "
            "Source: https://rmu.jp/rule. Chosen where not read: 供託はトップ, 端数はそのまま. "
            "チョンボの罰点は出典に無い: 設定なし, クラブが決める.",
            Rules(
                players=4,
                start=25_000,
                return_points=30_000,
                rounding="none",
                uma=(30, 10, -10, -30),
                ties="split",
                deposits="top",  # chosen
            ),
        ),
        # World Riichi Championship rules (https://riichi.wiki/index.php?mobileaction=toggle_view_mobile
        # &oldid=20175&title=World_Riichi_Championship_rules): 30,000 start and target, no oka, uma
        # +15/+5/-5/-15 modified for ties; session score = (points − 30,000) / 1,000 + uma.
        Preset(
            "wrc",
            "World Riichi Championship rules (public)",
            "Start 30,000, target 30,000, no oka; uma +15/+5/-5/-15, shared when players tie; "
            "session score = (points - 30,000) / 1,000 + uma, not rounded. Sources: "
            "https://riichi.wiki/index.php?mobileaction=toggle_view_mobile&oldid=20175&title="
            "World_Riichi_Championship_rules, "
            "http://reachmahjong.com/en/forum/viewtopic.php?f=17&t=53230&view=print (penalties go "
            "to the overall score). Chosen where not read: leftover riichi sticks to the top. The "
            "chombo amount is not in the pages read: no chombo rule, the club sets it.",
            Rules(
                players=4,
                start=30_000,
                return_points=30_000,
                rounding="none",
                uma=(15, 5, -5, -15),
                ties="split",
                deposits="top",  # chosen
            ),
        ),
    )
}
