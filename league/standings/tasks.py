"""Rating replays too long for a request, run by a worker (`manage.py db_worker`).

An edit or void of an old game (or a merge of two members) in a long history notes the game
to replay from on the club's ClubChronicle (league.standings.kept.replay_or_defer) and enqueues
`replay_ratings` on commit; until it has run, the pages show the ratings as they were and say
that they are being recomputed."""

from __future__ import annotations

from league.core.actions import action
from league.core.tasks import enqueue_on_commit, task
from league.standings import kept


@task()
def replay_ratings(club_id: int) -> int:
    """Replay the club's rating from the game a writer left; returns the member games written."""
    with action():
        return kept.replay_pending(club_id)


def enqueue_replay(club_id: int) -> None:
    """Queue `replay_ratings` for when the writer's transaction commits."""
    enqueue_on_commit(replay_ratings, club_id)
