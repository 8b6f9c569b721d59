"""Re-settling years of games under a rules version, by a worker (`manage.py db_worker`): the
organiser confirms the summarised preview, `resettle_run` re-settles the games in batches
(league.rules.services.resettle_apply) and writes how far it has got onto its ResettleRun row,
which any app server shows."""

from __future__ import annotations

from django.utils import timezone

from league.core.actions import action
from league.core.tasks import enqueue_on_commit, task
from league.models import ResettleRun, RulesVersion
from league.models.audit import User
from league.rules import services as rules_services


@task()
def resettle_run(run_id: int) -> int:
    """Re-settle the games of a ResettleRun's version; returns how many moved."""
    started = ResettleRun.objects.filter(pk=run_id, status=ResettleRun.QUEUED).update(
        status=ResettleRun.RUNNING, touched=timezone.now()
    )
    run = ResettleRun.objects.select_related("version__club", "user").filter(pk=run_id).first()
    if not started or run is None:
        return 0

    def progress(state: rules_services.ResettleProgress) -> None:
        ResettleRun.objects.filter(pk=run_id).update(
            games_total=max(state.total, state.done),
            games_done=state.done,
            games_moved=state.moved,
            games_failed=state.failed,
            touched=timezone.now(),
        )

    try:
        moved = rules_services.resettle_apply(version=run.version, user=run.user, progress=progress)
    except Exception as e:
        ResettleRun.objects.filter(pk=run_id).update(
            status=ResettleRun.FAILED, error=type(e).__name__, touched=timezone.now()
        )
        raise
    now = timezone.now()
    ResettleRun.objects.filter(pk=run_id).update(status=ResettleRun.DONE, finished=now, touched=now)
    return moved


def resettle_start(*, version: RulesVersion, user: User) -> ResettleRun:
    """The action behind an organiser's confirmation: the run's row and its audit entry
    (rules_services.resettle_queue), and the worker's job once they are committed."""
    with action():
        run = rules_services.resettle_queue(version=version, user=user)
        enqueue_on_commit(resettle_run, run.pk)
    return run
