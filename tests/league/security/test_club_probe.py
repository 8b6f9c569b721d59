"""Unknown club addresses are throttled per client (issue 39): a member walking the address
space gets 404s, then 429s, while their own club keeps opening; an unknown address and another
club's address are counted alike, so the count tells nothing either."""

from __future__ import annotations

from django.test import Client

from league.throttle import CLUB_PROBE
from tests.support.clubs import client_for, make_club


def test_a_member_probing_club_addresses_is_slowed_and_their_club_still_opens(
    member_client, club, other_club
):
    codes = [member_client.get(f"/c/no-such-club-{i}/").status_code for i in range(CLUB_PROBE.pair)]
    assert codes == [404] * CLUB_PROBE.pair
    refused = member_client.get("/c/no-such-club-x/", HTTP_ACCEPT_LANGUAGE="ja")
    assert refused.status_code == 429
    assert "しばらく" in refused.content.decode()
    # Another club's address, which exists, is refused the same way: nothing told.
    assert member_client.get(f"/c/{other_club.slug}/").status_code == 429
    # The member's own club opens as before.
    assert member_client.get(f"/c/{club.slug}/").status_code == 200


def test_another_club_counts_like_an_unknown_one(member_client, other_club):
    for _ in range(CLUB_PROBE.pair):
        assert member_client.get(f"/c/{other_club.slug}/").status_code == 404
    assert member_client.get("/c/no-such-club/").status_code == 429


def test_another_network_and_user_is_not_affected(member_client, stranger, other_club):
    for i in range(CLUB_PROBE.pair + 1):
        member_client.get(f"/c/no-such-club-{i}/")
    assert member_client.get("/c/no-such-club/").status_code == 429
    other = client_for(stranger)
    other.defaults["REMOTE_ADDR"] = "192.0.2.10"
    assert other.get("/c/no-such-club/").status_code == 404
    assert other.get(f"/c/{other_club.slug}/").status_code == 200


def test_logged_out_visitors_get_404_and_nothing_is_counted(db):
    make_club("kept-secret")
    anonymous = Client()
    for _ in range(CLUB_PROBE.pair + 5):
        assert anonymous.get("/c/kept-secret/").status_code == 404


def test_the_api_is_counted_too_and_answers_429(member_client, club):
    for i in range(CLUB_PROBE.pair):
        assert member_client.get(f"/api/clubs/no-such-club-{i}/standings").status_code == 404
    assert member_client.get("/api/clubs/no-such-club/standings").status_code == 429
    assert member_client.get(f"/api/clubs/{club.slug}/standings").status_code == 200
