"""The app's URLs and /bench/bare/: a Django view that returns a few bytes, through the same
middleware, served by the same gunicorn as the pages it is the yardstick of."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from league.urls import urlpatterns as app_urlpatterns


def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [path("bench/bare/", bare), *app_urlpatterns]
