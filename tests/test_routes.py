"""Every page's name says its domain (issue 36): each domain's urls.py has its `app_name`, a
route of a namespace shows a view of that domain, and no template or Python module reverses a
name without its namespace."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from django.urls import URLResolver, get_resolver

ROOT = Path(__file__).resolve().parent.parent
# Namespaces that are not a domain's package: the site's own routes (league/urls.py), Django's
# language switch, the API tokens' pages (league/api/urls.py), ninja's API and the admin.
PACKAGES = {"site": "league", "i18n": "django", "tokens": "league.api", "api": "ninja"}
PACKAGES |= {"admin": "django.contrib.admin"}
TEMPLATE_URL = re.compile(r"""\{%-?\s*url\s+(['"])([^'"]+)\1""")
REVERSERS = {"reverse", "reverse_lazy", "redirect", "resolve_url"}


def routes() -> list[tuple[str, str, Any]]:
    """(namespace, name, view) of every named route."""
    found = []

    def walk(patterns: list[Any], namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, pattern.namespace or namespace)
            elif pattern.name:
                found.append((namespace, pattern.name, pattern.callback))

    walk(get_resolver().url_patterns, "")
    return found


def view_module(view: Any) -> str:
    cls = getattr(view, "view_class", None)
    module = getattr(view, "__module__", "") or ""
    return cls.__module__ if cls is not None and module.startswith("django") else module


def test_every_route_has_a_namespace_of_its_domain():
    found = routes()
    assert len(found) > 100
    assert [name for namespace, name, _view in found if not namespace] == []
    strangers = []
    for namespace, name, view in found:
        package = PACKAGES.get(namespace, f"league.{namespace}")
        module = view_module(view)
        django_auth = namespace == "accounts" and module.startswith("django.contrib.auth")
        if namespace in {"api", "admin", "i18n"} or django_auth:
            continue  # ninja's, Django's own views
        if module != package and not module.startswith(package + "."):
            strangers.append(f"{namespace}:{name} shows {module}")
    assert strangers == []


def unnamespaced_template_names(text: str) -> list[str]:
    return [m.group(2) for m in TEMPLATE_URL.finditer(text) if ":" not in m.group(2)]


def unnamespaced_reverses(source: str) -> list[str]:
    """The literal names given to reverse(), reverse_lazy(), redirect() or resolve_url() with no
    namespace (a literal with a slash, a colon or a dot is an address or a namespaced name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
        if name in REVERSERS and literal and re.fullmatch(r"\w+", first.value):
            found.append(first.value)
    return found


def test_templates_and_code_name_every_page_with_its_namespace():
    templates = sorted((ROOT / "templates").rglob("*.*"))
    assert len(templates) > 50
    found = {
        str(p.relative_to(ROOT)): unnamespaced_template_names(p.read_text(encoding="utf-8"))
        for p in templates
    }
    modules = sorted((ROOT / "league").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    found |= {
        str(p.relative_to(ROOT)): unnamespaced_reverses(p.read_text(encoding="utf-8"))
        for p in modules
        if "migrations" not in p.parts
    }
    assert {path: names for path, names in found.items() if names} == {}


def test_the_checks_find_a_planted_name_without_its_namespace():
    # A name of no page (rename_urls.py rewrites the real ones, even in a test's own strings).
    planted = "{% url 'a_page' club.slug day.date %}"
    assert unnamespaced_template_names(planted) == ["a_page"]
    assert unnamespaced_template_names("{% url 'recording:a_page' club.slug d %}") == []
    source = 'redirect("a_page", slug)\nreverse("money:a_page")\nredirect("/")\n'
    assert unnamespaced_reverses(source) == ["a_page"]
