"""Re-settling years of games under a rules version, by a worker (`manage.py db_worker`): the
organiser confirms the summarised preview, `resettle_run` re-settles the games a day a step
(league.rules.services.resettle_apply) and writes how far it has got onto its job
(league.jobs), which any app server shows; the task framework keeps its status."""

from __future__ import annotations

from league.core.actions import action
from league.core.tasks import task
from league.jobs import job_enqueue_on_commit, job_progress
from league.models import ResettleRun, RulesVersion
from league.models.audit import User
from league.rules import services as rules_services


@task()
def resettle_run(run_id: int) -> int:
    """Re-settle the games of a ResettleRun's version; returns how many moved."""
    run = ResettleRun.objects.select_related("version__club", "user").filter(pk=run_id).first()
    if run is None:
        return 0
    job_id = run.job_id

    def progress(state: rules_services.ResettleProgress) -> None:  # inside each step's action
        job_progress(job_id, state.done, state.total, moved=state.moved, failed=state.failed)

    return rules_services.resettle_apply(version=run.version, user=run.user, progress=progress)


def resettle_start(*, version: RulesVersion, user: User) -> ResettleRun:
    """The action behind an organiser's confirmation: the run and its job, its audit entry
    (rules_services.resettle_queue), and the worker's task once they are committed."""
    with action():
        run = rules_services.resettle_queue(version=version, user=user)
        job_enqueue_on_commit(run.job, resettle_run, run.pk)
    return run
