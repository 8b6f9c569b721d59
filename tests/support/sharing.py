"""A day as text for the group chat, and the demo's day."""

from __future__ import annotations

import datetime

from django.urls import reverse

from league.models import Club

DEMO_DAY = datetime.date(2026, 11, 15)


# マメの会's last demo day, as the share page gives it (Japanese, the default).
DEMO_TEXT = """\
マメの会 2026/11/15
■第1半荘 A卓 レート 0.5
1位 小林 誠 +46.3 チップ▲3
2位 山田 博 +8.6 チップ+3
3位 吉田 浩二 ▲17.1
4位 林 裕子 ▲37.8
■第2半荘 B卓 レート 0.3
1位 佐々木 美穂 +44.1 チップ+3
2位 阿部 誠 +3.7
3位 松本 和也 ▲18.0
4位 高橋 真由美 ▲29.8 チップ▲3
■第3半荘 A卓 レート 0.5
1位 山田 博 +50.1 チップ+3
2位 林 裕子 +3.5 チップ▲1
3位 吉田 浩二 ▲19.2 チップ▲1
4位 小林 誠 ▲34.4 チップ▲1
■第4半荘 B卓 レート 0.5
1位 阿部 誠 +54.1 チップ+3
2位 高橋 真由美 +4.5 チップ▲1
3位 佐々木 美穂 ▲21.8 チップ▲1
4位 松本 和也 ▲37.8 チップ▲1
■この日の合計
山田 博 +58.7 4,135円
阿部 誠 +57.8 3,416円
佐々木 美穂 +22.3 303円
小林 誠 +11.9 ▲205円
高橋 真由美 ▲25.3 ▲1,139円
林 裕子 ▲34.3 ▲1,915円
吉田 浩二 ▲36.3 ▲2,015円
松本 和也 ▲55.8 ▲2,630円
クラブへ（マメの会） 50円（クラブに残った供託・リーチ棒 50円）
■精算
松本 和也 → 山田 博 2,630円
吉田 浩二 → 阿部 誠 2,015円
林 裕子 → 山田 博 1,505円
高橋 真由美 → 阿部 誠 1,139円
林 裕子 → 佐々木 美穂 303円
小林 誠 → 阿部 誠 205円
林 裕子 → 阿部 誠 57円
林 裕子 → マメの会 50円
"""


def share_url(club: Club, date: datetime.date) -> str:
    return reverse("chat:day_share", args=[club.slug, date])


def text_of(response) -> str:
    """The message in the page's textarea, unescaped as the browser shows it."""
    import html

    body = response.content.decode()
    start = body.index(">", body.index("<textarea")) + 1
    return html.unescape(body[start : body.index("</textarea>")])
