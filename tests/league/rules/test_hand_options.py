"""A club's hand options (issue 23): 喰いタン, 後付け, 赤ドラ, 切り上げ満貫 and 数え役満 are kept with
its rules version, edited in the rules form and played by table mode and its calculator."""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import replace

import pytest
from django.urls import reverse

from league.core.errors import ServiceError
from league.models import RulesVersion
from league.rules import services as rules_services
from league.table import services
from scoring.hand_options import HandOptions, default_hand_options
from tests.support.manage import post_rules, rules_post, saved_version

DATE = datetime.date(2026, 11, 20)
CHANGED = datetime.date(2026, 11, 1)
OPEN_TANYAO = {
    "tiles": "234m456p66s",
    "win": "6s",
    "melds": [{"kind": "chi", "tiles": "234s"}, {"kind": "pon", "tiles": "888p"}],
    "seat_wind": "south",
}


def start(club, members, user):
    return services.table_start(
        club=club, user=user, key=uuid.uuid4(), date=DATE, members=members[:4], rate="0.3"
    )


def value(client, club, tg, body):
    """The phone's calculator: the API's, with the table's key for the table's hand rules."""
    url = f"/api/clubs/{club.slug}/calculator"
    return client.post(url, json.dumps({**body, "table": str(tg.key)}), "application/json")


def new_version(club, user, **options):
    base = RulesVersion.objects.get(club=club)
    return rules_services.rules_version_create(
        club=club,
        user=user,
        effective_from=CHANGED,
        rules_json=base.rules_json,
        preset=base.preset,
        hand_options=options,
    )


def saved(client, club, **fields: str) -> RulesVersion:
    """The rules form saved with `fields` (those left blank not sent, as a cleared box is not):
    the club's new version of 2026-04-01."""
    return saved_version(client, club, {k: v for k, v in rules_post(**fields).items() if v != ""})


def test_defaults_are_the_presets():
    assert default_hand_options("mame-no-kai", 4) == HandOptions()
    assert default_hand_options("takabari-kenko", 4) == HandOptions(kiriage=True, kazoe="sanbaiman")
    assert not default_hand_options("rmu-a", 4).aka
    assert default_hand_options("unknown", 3) == HandOptions()  # tenhou-3p


def test_without_kuitan_an_open_tanyao_has_no_yaku_in_table_mode(
    organiser_client, club, members, organiser
):
    before = start(club, members, organiser)
    assert value(organiser_client, club, before, OPEN_TANYAO).json()["yaku"] == ["断幺九"]
    new_version(club, organiser, kuitan=False)
    tg = start(club, members, organiser)
    answer = value(organiser_client, club, tg, OPEN_TANYAO)
    assert answer.status_code == 400
    assert list(answer.json()["errors"]) == ["tiles"]  # not a winning hand: no yaku
    # The game started under the old version keeps it.
    assert value(organiser_client, club, before, OPEN_TANYAO).status_code == 200


def test_without_atozuke_an_open_hand_is_marked_for_the_table(
    organiser_client, club, members, organiser
):
    new_version(club, organiser, atozuke=False)
    tg = start(club, members, organiser)
    assert value(organiser_client, club, tg, OPEN_TANYAO).json()["check_atozuke"] is True


def ron_4_han_30_fu(tg, user, members):
    a, b = (str(m.pk) for m in members[:2])
    event = {"result": "ron", "from": a, "winners": [{"player": b, "han": 4, "fu": 30}]}
    hand, _new = services.hand_record(tg=tg, user=user, index=0, key=uuid.uuid4(), event=event)
    return hand.deltas[:2]


def test_kiriage_makes_4_han_30_fu_a_mangan_and_the_version_is_remembered(club, members, organiser):
    before = start(club, members, organiser)
    version = new_version(club, organiser, kiriage=True, kazoe="sanbaiman")
    tg = start(club, members, organiser)
    assert tg.rules_version == version
    assert (tg.hand_rules["kiriage"], tg.hand_rules["kazoe"]) == (True, "sanbaiman")
    assert ron_4_han_30_fu(tg, organiser, members) == [-8000, 8000]
    assert ron_4_han_30_fu(before, organiser, members) == [-7700, 7700]
    version.refresh_from_db()
    assert version.hand_options_json == {
        "kuitan": True,
        "aka": True,
        "atozuke": True,
        "kiriage": True,
        "kazoe": "sanbaiman",
        "renhou": "none",
    }


@pytest.mark.parametrize(
    ("options", "field"),
    [({"kuitan": "no"}, "hand_kuitan"), ({"kazoe": "triple"}, "hand_kazoe"), ([1], "hand_options")],
)
def test_bad_options_are_refused_naming_the_field(club, organiser, options, field):
    base = RulesVersion.objects.get(club=club)
    with pytest.raises(ServiceError) as caught:
        rules_services.rules_version_create(
            club=club,
            user=organiser,
            effective_from=CHANGED,
            rules_json=base.rules_json,
            hand_options=options,
        )
    assert list(caught.value.errors) == [field]
    assert RulesVersion.objects.filter(club=club).count() == 1


def test_the_rules_form_edits_the_options(organiser_client, club):
    url = reverse("rules:rules_new", args=[club.slug])
    form = organiser_client.get(f"{url}?from=takabari-kenko").context["form"]
    assert (form["hand_kiriage"].value(), form["hand_kazoe"].value()) == (True, "sanbaiman")
    assert form["hand_kuitan"].value() is True
    page = organiser_client.get(url).content.decode()
    assert "喰いタン" in page and "切り上げ満貫" in page
    bad = post_rules(organiser_client, club, rules_post(hand_kazoe="triple"))
    assert bad.status_code == 200 and "hand_kazoe" in bad.context["form"].errors
    assert RulesVersion.objects.filter(club=club).count() == 1
    data = rules_post(hand_kuitan="", hand_aka="on", hand_atozuke="on", hand_kazoe="yakuman")
    data = {k: v for k, v in data.items() if v != ""}
    version = saved_version(organiser_client, club, data)
    assert version.hand_options == HandOptions(kuitan=False)
    # 人和 (issue 40): chosen on the form, kept with the version; a bad value names the field.
    bad = post_rules(organiser_client, club, rules_post(hand_renhou="double"))
    assert bad.status_code == 200 and "hand_renhou" in bad.context["form"].errors
    data = {**data, "effective_from": "2026-05-01", "hand_renhou": "mangan"}
    assert post_rules(organiser_client, club, data).status_code == 302
    version = RulesVersion.objects.get(club=club, effective_from=datetime.date(2026, 5, 1))
    assert version.hand_options.renhou == "mangan"
    assert services.club_options_for(version).renhou == "mangan"


def test_an_ema_club_plays_emas_hand_rules_at_the_table(db, organiser):
    # Issue 40: the hand preset follows the settlement preset's family (ema-2016 → ema; wrc →
    # wrc), not Tenhou's. Under EMA a double ron's honba goes to both winners.
    from scoring.hand_presets import HAND_PRESETS
    from tests.support.clubs import make_club

    club = make_club("ema-club", "ema-2016", "EMA部")
    version = RulesVersion.objects.get(club=club)
    assert services.hand_rules_for(version).multi_ron_honba == "each"
    ema = replace(HAND_PRESETS["ema"].rules, start=version.rules.start)
    assert services.hand_rules_for(version) == version.hand_options.applied(ema)
    wrc = RulesVersion.objects.get(club=make_club("wrc-club", "wrc", "WRC部"))
    assert services.hand_rules_for(wrc).multi_ron == HAND_PRESETS["wrc"].rules.multi_ron


# --- every hand rule a club may set over its preset (issue 40) --------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("bust", "none"),
        ("agari_yame", False),
        ("tenpai_yame", True),
        ("draw_renchan", "never"),
        ("pao_scope", "yakuman"),
        ("sanma_tsumo", "split"),
        ("length", "tonpuu"),
        ("multi_ron", "atamahane"),
        ("multi_ron_honba", "each"),
        ("multi_ron_renchan", "first"),
        ("nagashi", "none"),
        ("pao_ron_honba", "discarder"),
        ("honba_ron", 600),
        ("honba_tsumo", 200),
        ("draw_pot", 1200),
        ("riichi_min", 0),
        ("yakuman_max", 1),
    ],
)
def test_a_hand_rule_set_over_the_preset_is_the_table_games(club, members, organiser, field, value):
    before = start(club, members, organiser)
    assert before.hand_rules[field] != value  # マメの会's hand preset has another value
    version = new_version(club, organiser, **{field: value})
    assert version.hand_options_json[field] == value
    tg = start(club, members, organiser)
    assert tg.hand_rules[field] == value
    assert services.hand_rules_for(version).to_json()[field] == value


def _play(club, members, organiser, events):
    tg = start(club, members, organiser)
    ids = [str(m.pk) for m in members[:4]]
    for i, event in enumerate(events(*ids)):
        services.hand_record(tg=tg, user=organiser, index=i, key=uuid.uuid4(), event=event)
    return services.play(tg)


def test_without_busting_out_the_game_goes_on_below_zero(club, members, organiser):
    def events(a, b, c, d):
        return [{"result": "ron", "from": d, "winners": [{"player": c, "yakuman": 1}]}]

    assert _play(club, members, organiser, events).state.ended == "bust"
    new_version(club, organiser, bust="none")
    played = _play(club, members, organiser, events)
    assert played.state.ended is None and played.state.points[3] == -7_000


def test_a_dealer_tenpai_passes_the_deal_when_the_club_says_never(club, members, organiser):
    def events(a, b, c, d):
        return [{"result": "draw", "tenpai": [a]}]

    assert _play(club, members, organiser, events).records[0].dealer == 0
    assert _play(club, members, organiser, events).state.hand == 0  # 東1 again
    new_version(club, organiser, draw_renchan="never")
    assert _play(club, members, organiser, events).state.hand == 1  # 東2


def test_the_rules_form_shows_the_presets_value_and_keeps_the_choice(organiser_client, club):
    url = reverse("rules:rules_new", args=[club.slug])
    page = organiser_client.get(url).content.decode()
    assert (
        "飛び" in page and "テンパイ止め" in page and "三麻のツモ" in page and "包（パオ）" in page
    )
    form = organiser_client.get(url).context["form"]
    assert form.fields["hand_bust"].choices[0][0] == ""
    assert str(form.fields["hand_bust"].choices[0][1]) == "プリセットどおり（0点未満で終了）"
    version = saved(
        organiser_client, club, hand_kazoe="yakuman", hand_bust="none", hand_tenpai_yame="false"
    )
    assert (version.hand_options.bust, version.hand_options.tenpai_yame) == ("none", False)
    bad = post_rules(organiser_client, club, rules_post(hand_bust="sometimes"))
    assert bad.status_code == 200 and "hand_bust" in bad.context["form"].errors
    listing = organiser_client.get(reverse("rules:rules_list", args=[club.slug])).content.decode()
    assert "飛びなし" in listing and "テンパイ止め" in listing


# --- 途中流局, 西入 and the hand preset a club picks (issue 40) ----------------------------------


def version_on(club, user, day, **options):
    """A new version from the first one's rules, in force from 2026/11/`day` (before DATE)."""
    base = RulesVersion.objects.filter(club=club).order_by("effective_from").first()
    return rules_services.rules_version_create(
        club=club,
        user=user,
        effective_from=datetime.date(2026, 11, day),
        rules_json=base.rules_json,
        preset=base.preset,
        hand_options=options,
    )


def test_abortive_draws_as_the_club_sets_them(club, members, organiser):
    def events(a, b, c, d):
        return [{"result": "abortive", "kind": "kyuushu"}]

    # マメの会 plays Tenhou's hand rules: 九種九牌 stops the hand and the dealer deals again.
    played = _play(club, members, organiser, events)
    assert (played.state.hand, played.state.honba) == (0, 1)
    version_on(club, organiser, 1, abortive="rotate")
    played = _play(club, members, organiser, events)
    assert (played.state.hand, played.state.honba) == (1, 1)  # 東2 1本場
    version_on(club, organiser, 2, abortive="none")
    tg = start(club, members, organiser)
    assert tg.hand_rules["abortive"]["kyuushu"] == "none"
    with pytest.raises(ServiceError):
        services.hand_record(
            tg=tg, user=organiser, index=0, key=uuid.uuid4(), event=events(*members[:4])[0]
        )


def test_the_extra_round_goes_on_to_the_target_or_not_at_all(club, members, organiser):
    # Eight noten draws: nobody reaches 30,000 after 南4, so Tenhou's rules go into 西1.
    def events(a, b, c, d):
        return [{"result": "draw", "tenpai": []}] * 8

    played = _play(club, members, organiser, events)
    assert played.state.ended is None and played.state.hand == 8  # 西1
    version_on(club, organiser, 3, extension="none")
    assert _play(club, members, organiser, events).state.ended == "last-hand"
    # A target nobody can miss (100 points): the game ends after 南4 even with the extension.
    version_on(club, organiser, 4, extension="sudden-death", extension_target=100)
    version = RulesVersion.in_force(club, DATE)
    assert services.hand_rules_for(version).extension.target == 100
    assert _play(club, members, organiser, events).state.ended == "last-hand"


def test_an_extension_the_preset_has_not_plays_to_the_return_points(db, organiser):
    from tests.support.clubs import make_club

    club = make_club("ml-club", "m-league", "Mリーグ部")
    version = RulesVersion.objects.get(club=club)
    assert services.hand_rules_for(version).extension is None
    version = version_on(club, organiser, 5, extension="wind")
    rules = services.hand_rules_for(version)
    assert (rules.extension.target, rules.extension.sudden_death) == (30_000, False)


def test_a_club_picks_its_hand_preset(club, organiser):
    # マメの会's settlement preset plays Tenhou's hand rules; the club picks EMA's instead.
    version = RulesVersion.objects.get(club=club)
    assert services.hand_rules_for(version).multi_ron_honba == "first"
    version = version_on(club, organiser, 6, preset="ema")
    assert version.hand_options_json["preset"] == "ema"
    assert services.hand_rules_for(version).multi_ron_honba == "each"
    assert services.hand_rules_for(version).start == version.rules.start
    # A 3-player preset for a 4-player club, or an unknown one, is refused naming the field.
    for bad in ("tenhou-3p", "nope"):
        with pytest.raises(ServiceError) as caught:
            version_on(club, organiser, 7, preset=bad)
        assert list(caught.value.errors) == ["hand_preset"]


def test_the_rules_form_edits_abortive_extension_and_the_hand_preset(organiser_client, club):
    url = reverse("rules:rules_new", args=[club.slug])
    page = organiser_client.get(url).content.decode()
    assert "途中流局" in page and "西入" in page
    form = organiser_client.get(url).context["form"]
    shown = str(form.fields["hand_abortive"].choices[0][1])
    assert shown.startswith("プリセットどおり") and "連荘" in shown
    assert "30,000" in str(form.fields["hand_extension"].choices[0][1])
    assert [c[0] for c in form.fields["hand_preset"].choices][:2] == ["", "tenhou"]
    assert "tenhou-3p" not in [c[0] for c in form.fields["hand_preset"].choices]
    version = saved(
        organiser_client,
        club,
        hand_kazoe="yakuman",
        hand_abortive="none",
        hand_extension="sudden-death",
        hand_extension_target="３５，０００",
        hand_preset="wrc",
    )
    options = version.hand_options
    assert (options.abortive, options.extension, options.extension_target, options.preset) == (
        "none",
        "sudden-death",
        35_000,
        "wrc",
    )
    rules = services.hand_rules_for(version)
    assert rules.extension.target == 35_000 and set(rules.abortive.values()) == {"none"}
    bad = post_rules(organiser_client, club, rules_post(hand_extension_target="150"))
    assert bad.status_code == 200 and "hand_extension_target" in bad.context["form"].errors
    listing = organiser_client.get(reverse("rules:rules_list", args=[club.slug])).content.decode()
    assert "途中流局" in listing and "35,000" in listing


@pytest.mark.parametrize(
    ("options", "field", "expected"),
    [
        ({"chombo": "each", "chombo_points": 4000}, "chombo", {"mode": "each", "points": 4000}),
        ({"chombo": "mangan"}, "chombo", {"mode": "mangan"}),
        ({"pao": "two"}, "pao", ["daisangen", "daisuushii"]),
        ({"pao": "none"}, "pao", []),
    ],
)
def test_chombo_and_liability_set_over_the_preset(
    club, members, organiser, options, field, expected
):
    version_on(club, organiser, 1, **options)
    assert start(club, members, organiser).hand_rules[field] == expected


def test_the_numbers_and_the_length_are_played(club, members, organiser):
    # 東1 is a noten draw (1本場), then 東2's dealer B is dealt into by D: 1 han 30 fu is 1,500
    # for a dealer, and each honba adds the club's honba_ron.
    def events(a, b, c, d):
        return [
            {"result": "draw", "tenpai": []},
            {"result": "ron", "from": d, "winners": [{"player": b, "han": 1, "fu": 30}]},
        ]

    assert _play(club, members, organiser, events).records[1].deltas[3] == -1_800
    version_on(club, organiser, 1, honba_ron=600)
    assert _play(club, members, organiser, events).records[1].deltas[3] == -2_100

    # Four noten draws: East-only with no extension ends after 東4; East-South goes on.
    def draws(a, b, c, d):
        return [{"result": "draw", "tenpai": []}] * 4

    version_on(club, organiser, 2, extension="none")
    assert _play(club, members, organiser, draws).state.ended is None
    version_on(club, organiser, 3, extension="none", length="tonpuu")
    assert _play(club, members, organiser, draws).state.ended == "last-hand"


def test_a_draw_pot_that_does_not_split_is_refused_naming_the_field(club, organiser):
    with pytest.raises(ServiceError) as caught:
        version_on(club, organiser, 1, draw_pot=1000)
    assert list(caught.value.errors) == ["hand_draw_pot"]
    assert "600" in caught.value.errors["hand_draw_pot"][0]
    with pytest.raises(ServiceError) as caught:
        version_on(club, organiser, 1, yakuman_max=0, honba_ron=150)
    assert set(caught.value.errors) == {"hand_yakuman_max", "hand_honba_ron"}
    assert RulesVersion.objects.filter(club=club).count() == 1


def test_the_form_sets_the_numbers_and_shows_the_presets_in_the_boxes(organiser_client, club):
    url = reverse("rules:rules_new", args=[club.slug])
    page = organiser_client.get(url)
    form = page.context["form"]
    assert form.fields["hand_honba_ron"].widget.attrs["placeholder"] == "300"
    assert form.fields["hand_draw_pot"].widget.attrs["placeholder"] == "3,000"
    body = page.content.decode()
    assert "ノーテン罰符" in body and "流し満貫" in body and "頭ハネ" in body
    version = saved(
        organiser_client,
        club,
        hand_kazoe="yakuman",
        hand_honba_ron="６００",
        hand_length="tonpuu",
        hand_chombo="each",
        hand_chombo_points="4,000",
        hand_pao="two",
    )
    rules = services.hand_rules_for(version)
    assert (rules.honba_ron, rules.length, rules.chombo.points, rules.pao) == (
        600,
        "tonpuu",
        4000,
        ("daisangen", "daisuushii"),
    )
    bad = post_rules(organiser_client, club, rules_post(hand_draw_pot="1000"))
    assert bad.status_code == 200 and "hand_draw_pot" in bad.context["form"].errors
