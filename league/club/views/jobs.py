"""The one progress view of every background job (league.jobs): how a job of this club stands,
as JSON, from any app server. A re-settle's job is the club's (its page is every member's);
any other job (an export, an import) is its maker's alone: anyone else gets a 404."""

from __future__ import annotations

from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from league.access import club_for
from league.jobs import job_state
from league.models import Job


@require_GET
def job_progress(request: HttpRequest, slug: str, job_id: int) -> JsonResponse:
    club = club_for(request, slug)
    job = get_object_or_404(Job, pk=job_id, club=club)
    if job.kind != Job.RESETTLE and job.user_id != request.user.pk:
        raise Http404
    state = job_state(job)
    assert state is not None
    return JsonResponse(
        {
            "kind": job.kind,
            "status": state.status,
            "done": job.done,
            "total": job.total,
            "counts": job.message,
            "started": state.started.isoformat() if state.started else None,
            "finished": state.finished.isoformat() if state.finished else None,
        }
    )
