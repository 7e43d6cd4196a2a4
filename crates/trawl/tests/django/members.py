"""A members' site on Django, for trawl's login test (crates/trawl/tests/login.rs).

Django's own LoginView (its CSRF token in a hidden field and a cookie), flatpages that need a login
(`registration_required`: a visitor without a session is redirected to the login page), and on every member
page the ways out a logged-in crawler must not take: a sign-out link (a GET view that ends the session) and a
"delete this page" link carrying the CSRF token. Both write to STATE/events.log when requested; /_state
(linked from nowhere) tells the pages as they are now, so the test can see the site unchanged.

Usage: python members.py STATE_DIR PASSWORD   (prints "ready PORT" when it serves, on a free loopback port)
"""

import json
import os
import sys

import django
from django.conf import settings

STATE = sys.argv[1]
PASSWORD = sys.argv[2]

TEMPLATES = {
    "registration/login.html": """<!DOCTYPE html>
<html><head><title>Log in</title></head><body><h1>Members' login</h1>
{% if form.errors %}<p class="errornote">Please enter a correct username and password.</p>{% endif %}
<form method="post" action="{% url 'login' %}">{% csrf_token %}
{{ form.as_p }}
<input type="hidden" name="next" value="{{ next }}">
<p><label><input type="checkbox" name="remember" value="1"> Remember me</label></p>
<button type="submit">Log in</button>
</form>
<p><a href="/accounts/password_reset/">Lost password?</a></p>
</body></html>""",
    "flatpages/default.html": """<!DOCTYPE html>
<html><head><title>{{ flatpage.title }}</title></head><body>
<nav>Logged in as {{ user.username }} | <a href="/members/">All pages</a> |
<a href="/accounts/signout/">Sign out</a>
<form method="post" action="{% url 'logout' %}">{% csrf_token %}<button>Log out</button></form></nav>
<main>{{ flatpage.content }}</main>
<p><a href="/members/delete/{{ flatpage.id }}/?csrfmiddlewaretoken={{ csrf_token }}">Delete this page</a></p>
</body></html>""",
    "members/index.html": """<!DOCTYPE html>
<html><head><title>Members</title></head><body><h1>Member pages</h1>
<ul>{% for p in pages %}<li><a href="/members{{ p.url }}">{{ p.title }}</a></li>{% endfor %}</ul>
<a href="/accounts/signout/">Sign out</a></body></html>""",
}

settings.configure(
    DEBUG=False,
    SECRET_KEY="trawl-test-only-not-a-secret",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    SITE_ID=1,
    INSTALLED_APPS=[
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.sessions",
        "django.contrib.sites",
        "django.contrib.flatpages",
    ],
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    ],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.path.join(STATE, "db.sqlite3"),
        }
    },
    TEMPLATES=[
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "OPTIONS": {
                "loaders": [("django.template.loaders.locmem.Loader", TEMPLATES)],
                "context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                ],
            },
        }
    ],
    LOGIN_URL="/accounts/login/",
    LOGIN_REDIRECT_URL="/members/",
    USE_TZ=True,
    LOGGING_CONFIG=None,
)
django.setup()

from django.contrib.auth import logout  # noqa: E402
from django.contrib.auth import views as auth_views  # noqa: E402
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.flatpages.models import FlatPage  # noqa: E402
from django.contrib.sites.models import Site  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.servers.basehttp import run  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import HttpResponse, JsonResponse  # noqa: E402
from django.shortcuts import redirect, render  # noqa: E402
from django.urls import include, path  # noqa: E402


def event(what):
    with open(os.path.join(STATE, "events.log"), "a") as f:
        f.write(what + "\n")


def signout(request):
    """A sign-out link as many sites have one: a GET that ends the session."""
    event("signout " + request.get_full_path())
    logout(request)
    return redirect("/")


@login_required
def delete_page(request, pk):
    """An action link with the CSRF token in its query: deletes the page."""
    event("delete %s" % pk)
    FlatPage.objects.filter(pk=pk).delete()
    return redirect("/members/")


@login_required
def index(request):
    return render(request, "members/index.html", {"pages": FlatPage.objects.order_by("url")})


def state(request):
    pages = [
        {"url": p.url, "title": p.title, "content": p.content}
        for p in FlatPage.objects.order_by("url")
    ]
    return JsonResponse({"pages": pages})


def home(request):
    return HttpResponse('<!DOCTYPE html><html><body><a href="/members/">Members</a></body></html>')


urlpatterns = [
    path("", home),
    path("_state", state),
    path("accounts/signout/", signout),
    path("accounts/", include("django.contrib.auth.urls")),
    path("members/", index),
    path("members/delete/<int:pk>/", delete_page),
    path("members/", include("django.contrib.flatpages.urls")),
]


def main():
    call_command("migrate", verbosity=0, interactive=False)
    if not User.objects.filter(username="archivist").exists():
        User.objects.create_user("archivist", password=PASSWORD)
    site = Site.objects.get(pk=1)
    for n in range(1, 6):
        page, _ = FlatPage.objects.get_or_create(
            url="/p%d/" % n,
            defaults={
                "title": "Member page %d" % n,
                "content": '<h1>Member page %d</h1><p>Secret text %d.</p>%s'
                % (n, n, '<a href="/members/p%d/">next</a>' % (n + 1) if n < 5 else ""),
                "registration_required": True,
            },
        )
        page.sites.add(site)
    run(
        "127.0.0.1",
        0,
        get_wsgi_application(),
        threading=True,
        on_bind=lambda port: print("ready", port, flush=True),
    )


if __name__ == "__main__":
    main()
