"""A Django site with passkeys (WebAuthn) from django-otp-webauthn, for
tabwire's tests of the WebAuthn virtual authenticator.

One user, alice (password alice-pass-1234). The site's own pages:

- /accounts/login/ ("Sign in"): fields "Username" and "Password", a
  button "Sign in" (password), and a button "Login using a Passkey"
  (the package's script: navigator.credentials.get with no username,
  i.e. a discoverable credential; on success it goes to /);
- / ("Home"): "Signed in as alice" and a button "Register Passkey"
  (navigator.credentials.create; then "Registration successful!" shows
  below it), the list "Passkeys: N", and a button "Sign out"; signed out,
  it reads "Not signed in" with a link "Sign in".

The RP ID is "localhost", so open http://localhost:PORT (an IP address
is not a valid RP ID; Chromium treats http://localhost as a secure
context). The server listens on 127.0.0.1, so http://127.0.0.1:PORT/
answers too (for the readiness poll; passkeys do not work there).

Run: python3 tests/apps/passkeys_app.py PORT [DIR]
(DIR holds the SQLite database; a new temp dir when left out.)
Ready when http://127.0.0.1:PORT/ answers 200.
"""
import os
import sys
import tempfile

import django
from django.conf import settings

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
DIR = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="passkeys-app-")
os.makedirs(DIR, exist_ok=True)

BASE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{% block title %}{% endblock %} - Passkey demo</title></head>
<body><main>{% block content %}{% endblock %}</main></body></html>
"""

LOGIN = """{% extends "base.html" %}{% load otp_webauthn %}
{% block title %}Sign in{% endblock %}
{% block content %}
<h1>Sign in</h1>
{% if form.errors %}<p role="alert">Wrong username or password.</p>{% endif %}
<form method="post" action="{% url 'login' %}">{% csrf_token %}
  <p><label for="id_username">Username</label>
     <input id="id_username" type="text" name="username" autocomplete="username"></p>
  <p><label for="id_password">Password</label>
     <input id="id_password" type="password" name="password" autocomplete="current-password"></p>
  <input type="hidden" name="next" value="{{ next }}">
  <p><button type="submit" id="password-sign-in">Sign in</button></p>
  <span id="passkey-verification-placeholder"></span>
  <template id="passkey-verification-available-template">
    <button type="button" id="passkey-verification-button">Login using a Passkey</button>
    <div id="passkey-verification-status-message"></div>
  </template>
  <template id="passkey-verification-unavailable-template">
    <p>Sorry, your browser has no Passkey support</p>
  </template>
  {% render_otp_webauthn_auth_scripts %}
</form>
{% endblock %}
"""

HOME = """{% extends "base.html" %}{% load otp_webauthn %}
{% block title %}Home{% endblock %}
{% block content %}
<h1>Home</h1>
{% if user.is_authenticated %}
  <p id="who">Signed in as {{ user.username }}</p>
  <span id="passkey-registration-placeholder"></span>
  <template id="passkey-registration-available-template">
    <div>
      <button type="button" id="passkey-register-button">Register Passkey</button>
      <div id="passkey-register-status-message"></div>
    </div>
  </template>
  <template id="passkey-registration-unavailable-template">
    <p>Sorry, your browser has no Passkey support</p>
  </template>
  {% render_otp_webauthn_register_scripts %}
  <h2>Passkeys: {{ passkeys|length }}</h2>
  <ul>{% for key in passkeys %}<li>{{ key.name }}</li>{% endfor %}</ul>
  <form method="post" action="{% url 'logout' %}">{% csrf_token %}
    <button type="submit" id="sign-out">Sign out</button></form>
{% else %}
  <p id="who">Not signed in</p>
  <p><a href="{% url 'login' %}">Sign in</a></p>
{% endif %}
{% endblock %}
"""

settings.configure(
    DEBUG=True,  # runserver serves the package's static JavaScript
    SECRET_KEY="tabwire-passkeys-test-only",
    ALLOWED_HOSTS=["localhost", "127.0.0.1"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.sessions",
        "django.contrib.staticfiles",
        "django_otp",
        "django_otp_webauthn",
    ],
    MIDDLEWARE=[
        "django.middleware.security.SecurityMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django_otp.middleware.OTPMiddleware",
    ],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.path.join(DIR, "passkeys.sqlite3"),
        }
    },
    TEMPLATES=[
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "OPTIONS": {
                "context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                ],
                "loaders": [
                    (
                        "django.template.loaders.locmem.Loader",
                        {"base.html": BASE, "login.html": LOGIN, "home.html": HOME},
                    ),
                    "django.template.loaders.app_directories.Loader",
                ],
            },
        }
    ],
    STATIC_URL="/static/",
    USE_TZ=True,
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    LOGIN_URL="/accounts/login/",
    LOGIN_REDIRECT_URL="/",
    LOGOUT_REDIRECT_URL="/",
    AUTHENTICATION_BACKENDS=[
        "django.contrib.auth.backends.ModelBackend",
        "django_otp_webauthn.backends.WebAuthnBackend",
    ],
    OTP_WEBAUTHN_RP_ID="localhost",
    OTP_WEBAUTHN_RP_NAME="Passkey demo",
    OTP_WEBAUTHN_ALLOWED_ORIGINS=[f"http://localhost:{PORT}"],
)
django.setup()

from django.contrib.auth import views as auth_views  # noqa: E402
from django.shortcuts import render  # noqa: E402
from django.urls import include, path  # noqa: E402


def home(request):
    passkeys = []
    if request.user.is_authenticated:
        from django_otp_webauthn.models import WebAuthnCredential

        passkeys = list(WebAuthnCredential.objects.filter(user=request.user))
    return render(request, "home.html", {"passkeys": passkeys})


urlpatterns = [
    path("", home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("webauthn/", include("django_otp_webauthn.urls", namespace="otp_webauthn")),
]


def main():
    from django.contrib.auth.models import User
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if not User.objects.filter(username="alice").exists():
        User.objects.create_user("alice", "alice@example.org", "alice-pass-1234")
    call_command("runserver", f"127.0.0.1:{PORT}", use_reloader=False, use_threading=True)


if __name__ == "__main__":
    main()
