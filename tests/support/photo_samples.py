"""Photos of score lists that the photo tests and `benchmarks/photo_bench.py` make, each from a
seed, with the truth beside it: printed score sheets (成績表) rendered with Noto CJK then rotated,
blurred and noised; an automatic table's seven-segment display; and a result screen in the shape
of an online game's (rank, name, points, and the final figure after uma)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = {
    "sans": "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "sans-bold": "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "serif": "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
}
NAMES = [
    "青木",
    "林 直子",
    "江藤",
    "佐々木",
    "長谷川 由美子",
    "阿部 誠",
    "小林",
    "高橋 健",
    "中村",
    "山田 花子",
    "伊藤",
    "渡辺 翔",
    "松本",
    "井上 愛",
    "木村",
    "斎藤 大輔",
]


def fonts_present() -> bool:
    return all(Path(p).exists() for p in FONTS.values())


@dataclass(frozen=True)
class Sample:
    kind: str
    path: Path
    names: list[str | None]
    points: list[int]
    total: int


def scores(rng: random.Random, players: int = 4, start: int = 25000) -> list[int]:
    """`players` final scores in hundreds summing to players × start; now and then one below 0."""
    total = players * start
    while True:
        cuts = sorted(rng.randrange(-80, total // 100 + 80) for _ in range(players - 1))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, total // 100], strict=True)]
        if all(-150 <= p <= 700 for p in parts) and len(set(parts)) == players:
            return sorted((p * 100 for p in parts), reverse=True)


def _signed(points: int, rng: random.Random) -> str:
    body = f"{abs(points):,}" if rng.random() < 0.7 else str(abs(points))
    if points >= 0:
        return body
    return rng.choice(["▲", "△", "-", "−"]) + body


def _degrade(
    img: Image.Image, rng: random.Random, angle: float, blur: float, noise: int
) -> Image.Image:
    img = img.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=img.getpixel((0, 0)))
    img = img.filter(ImageFilter.GaussianBlur(blur))
    if noise:
        speckle = Image.effect_noise(img.size, noise).convert("L")
        img = Image.blend(img.convert("RGB"), Image.merge("RGB", [speckle] * 3), 0.12)
    return img


def sheet(seed: int, folder: Path, players: int = 4) -> Sample:
    rng = random.Random(seed)
    pts = scores(rng, players)
    names = rng.sample(NAMES, players)
    font_path = FONTS[rng.choice(["sans", "sans-bold", "serif"])]
    size = rng.randrange(30, 40)
    font = ImageFont.truetype(font_path, size)
    small = ImageFont.truetype(font_path, size * 3 // 4)
    width, line = 640, size * 2
    img = Image.new("RGB", (width, line * (players + 2)), (250, 248, 240))
    d = ImageDraw.Draw(img)
    d.text((24, 12), f"成績表  第{rng.randrange(1, 9)}半荘", font=small, fill=(40, 40, 40))
    d.text((40, 12 + line), "名前", font=small, fill=(40, 40, 40))
    d.text((width - 200, 12 + line), "点数", font=small, fill=(40, 40, 40))
    for i, (name, p) in enumerate(zip(names, pts, strict=True)):
        y = 12 + line * (i + 2)
        d.line((20, y - 6, width - 20, y - 6), fill=(150, 150, 150), width=1)
        d.text((40, y), name, font=font, fill=(20, 20, 30))
        text = _signed(p, rng)
        right = width - 40
        d.text((right - d.textlength(text, font=font), y), text, font=font, fill=(20, 20, 30))
    img = _degrade(img, rng, rng.uniform(-3, 3), rng.uniform(0.3, 1.2), rng.choice([0, 20, 40]))
    path = folder / f"sheet-{seed}.png"
    img.save(path)
    return Sample("sheet", path, names, pts, players * 25000)


#     a
#   f   b
#     g
#   e   c
#     d
SEGMENTS = {
    "0": "abcdef",
    "1": "bc",
    "2": "abdeg",
    "3": "abcdg",
    "4": "bcfg",
    "5": "acdfg",
    "6": "acdefg",
    "7": "abc",
    "8": "abcdefg",
    "9": "abcdfg",
    "-": "g",
    " ": "",
}


def _segment(
    d: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, seg: str, fill, t: int
) -> None:
    half = h // 2
    boxes = {
        "a": (x + t, y, x + w - t, y + t),
        "g": (x + t, y + half - t // 2, x + w - t, y + half + t // 2),
        "d": (x + t, y + h - t, x + w - t, y + h),
        "f": (x, y + t, x + t, y + half - t // 2),
        "b": (x + w - t, y + t, x + w, y + half - t // 2),
        "e": (x, y + half + t // 2, x + t, y + h - t),
        "c": (x + w - t, y + half + t // 2, x + w, y + h - t),
    }
    x0, y0, x1, y1 = boxes[seg]
    d.rectangle((x0 + 1, y0 + 1, x1 - 1, y1 - 1), fill=fill)


def display(seed: int, folder: Path, players: int = 4, points: list[int] | None = None) -> Sample:
    """An automatic table's score display: one seven-segment number per seat, right-aligned in
    six places, lit red or green on a dark panel, the unlit segments faintly visible."""
    rng = random.Random(seed)
    pts = points or scores(rng, players)
    lit = rng.choice([(255, 60, 40), (80, 255, 90), (255, 170, 40)])
    unlit = tuple(c // 9 + 12 for c in lit)
    w, h, t, gap = rng.randrange(26, 34), rng.randrange(50, 64), rng.randrange(6, 9), 14
    img = Image.new("RGB", (60 + 6 * (w + gap), 30 + players * (h + 36)), (12, 12, 14))
    d = ImageDraw.Draw(img)
    for row, p in enumerate(pts):
        text = f"{p:>6}"
        y = 24 + row * (h + 36)
        for col, ch in enumerate(text):
            x = 30 + col * (w + gap)
            for seg in "abcdefg":
                _segment(d, x, y, w, h, seg, lit if seg in SEGMENTS[ch] else unlit, t)
    img = _degrade(img, rng, rng.uniform(-1.5, 1.5), rng.uniform(0.4, 1.0), rng.choice([0, 20]))
    path = folder / f"display-{seed}.png"
    img.save(path)
    return Sample("display", path, [None] * players, pts, players * 25000)


def screen(
    seed: int,
    folder: Path,
    players: int = 4,
    names: list[str] | None = None,
    points: list[int] | None = None,
) -> Sample:
    """A result screen shaped like an online game's: rank, name, the points, and the final
    figure after uma (+55.0) beside it, light text on a dark gradient."""
    rng = random.Random(seed)
    pts = points or scores(rng, players)
    names = names or rng.sample(NAMES, players)
    uma = [15, 5, -5, -15] if players == 4 else [15, 0, -15]
    width, height = 900, 140 + players * 110
    img = Image.new("RGB", (width, height))
    d = ImageDraw.Draw(img)
    top, bottom = (20, 30, 60), (60, 20, 50)
    for y in range(height):
        mix = [a + (b - a) * y // height for a, b in zip(top, bottom, strict=True)]
        d.line((0, y, width, y), fill=tuple(mix))
    big = ImageFont.truetype(FONTS["sans-bold"], 44)
    mid = ImageFont.truetype(FONTS["sans"], 34)
    d.text((40, 30), "対局結果", font=mid, fill=(230, 210, 150))
    for i, (name, p) in enumerate(zip(names, pts, strict=True)):
        y = 110 + i * 110
        d.rounded_rectangle(
            (30, y - 10, width - 30, y + 80), 14, fill=(35, 40, 70), outline=(120, 110, 80)
        )
        d.text((50, y + 10), f"{i + 1}位", font=big, fill=(250, 220, 120))
        d.text((170, y + 14), name, font=mid, fill=(240, 240, 240))
        d.text((520, y + 10), str(p), font=big, fill=(255, 255, 255))
        final = (p - 30000) // 100 + uma[i] * 10 + (200 if i == 0 else 0)
        sign = "+" if final >= 0 else "-"
        d.text(
            (730, y + 18),
            f"{sign}{abs(final) // 10}.{abs(final) % 10}",
            font=mid,
            fill=(150, 230, 150),
        )
    img = img.resize((width * 2 // 3, height * 2 // 3), Image.LANCZOS)
    img = _degrade(img, rng, 0.0, rng.uniform(0.0, 0.5), 0)
    path = folder / f"screen-{seed}.png"
    img.save(path)
    return Sample("screen", path, names, pts, players * 25000)


MAKERS = {"sheet": sheet, "display": display, "screen": screen}
# The set the issue names: 40 sheets, 40 displays, 20 screens.
COUNTS = {"sheet": 40, "display": 40, "screen": 20}


def make_set(folder: Path, counts: dict[str, int] = COUNTS, first_seed: int = 1) -> list[Sample]:
    folder.mkdir(parents=True, exist_ok=True)
    return [MAKERS[kind](first_seed + i, folder) for kind, n in counts.items() for i in range(n)]


@dataclass(frozen=True)
class SheetOfGames:
    """A club's paper 成績表 of several hanchan: the players' names across the top, a row per
    game with each player's final points (a game's mistake, when asked for, makes its row not add
    up), and the truth: `games[i]` the points written in row i, `sums[i]` whether they add up."""

    path: Path
    names: list[str]
    games: list[list[int]]
    sums: list[bool]
    total: int


def score_sheet(
    seed: int, folder: Path, players: int = 4, games: int = 5, wrong: tuple[int, ...] = ()
) -> SheetOfGames:
    """A printed score sheet of `games` hanchan rendered with Noto CJK, then rotated, blurred and
    noised: 「成績表」 and a date, a header row (回戦 then the names), a row per game (its number,
    then the points), and a 合計 row of the players' totals. The games in `wrong` were written with
    1,000 too many in one cell (a sheet that does not balance)."""
    rng = random.Random(seed)
    names = rng.sample([n for n in NAMES if " " not in n], players)
    rows = []
    for g in range(games):
        pts = scores(rng, players)
        rng.shuffle(pts)
        if g in wrong:
            pts[rng.randrange(players)] += 1000
        rows.append(pts)
    font_path = FONTS[rng.choice(["sans", "sans-bold", "serif"])]
    size = rng.randrange(28, 34)
    font = ImageFont.truetype(font_path, size)
    small = ImageFont.truetype(font_path, size * 3 // 4)
    column, first, line = 190, 130, size * 2 + 6
    width = first + column * players + 30
    img = Image.new("RGB", (width, line * (games + 4)), (250, 248, 240))
    d = ImageDraw.Draw(img)
    d.text((24, 12), f"成績表  2026/11/{rng.randrange(1, 29):02d}", font=small, fill=(40, 40, 40))

    def right(text: str, col: int, y: int, f=font) -> None:
        edge = first + column * (col + 1) - 16
        d.text((edge - d.textlength(text, font=f), y), text, font=f, fill=(20, 20, 30))

    y = 12 + line
    d.text((24, y), "回戦", font=small, fill=(40, 40, 40))
    for col, name in enumerate(names):
        right(name, col, y)
    for g, pts in enumerate(rows):
        y = 12 + line * (g + 2)
        d.line((20, y - 6, width - 20, y - 6), fill=(150, 150, 150), width=1)
        d.text((34, y), str(g + 1), font=font, fill=(20, 20, 30))
        for col, p in enumerate(pts):
            right(_signed(p, rng), col, y)
    y = 12 + line * (games + 2)
    d.line((20, y - 6, width - 20, y - 6), fill=(60, 60, 60), width=2)
    d.text((24, y), "合計", font=small, fill=(40, 40, 40))
    for col in range(players):
        right(_signed(sum(r[col] for r in rows) - 25000 * games, rng), col, y)
    img = _degrade(img, rng, rng.uniform(-1.5, 1.5), rng.uniform(0.3, 1.0), rng.choice([0, 20, 40]))
    path = folder / f"score-sheet-{seed}.png"
    img.save(path)
    total = players * 25000
    return SheetOfGames(path, names, rows, [sum(r) == total for r in rows], total)
