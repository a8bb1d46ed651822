#!/bin/sh
# Serves the real pages the big-page benchmarks and the fidelity checker
# use, installed from the package registries (nothing written by us):
#   http://127.0.0.1:8765/  the Python 3 documentation (apt: python3-doc),
#                           library/stdtypes.html is ~0.7 MB, ~30k elements
#   http://127.0.0.1:8766/admin/  Django's admin (pip: django), user
#                           "admin", password "tabwire-bench"
# Run it in the background; it stays until killed.
#   sh bench/real-site.sh &
set -eu
command -v python3 >/dev/null || { echo "real-site: python3 is needed" >&2; exit 1; }
if [ ! -f /usr/share/doc/python3/html/library/stdtypes.html ]; then
  echo "real-site: installing python3-doc from apt" >&2
  apt-get install -y -qq python3-doc >/dev/null
fi
python3 -c 'import django' 2>/dev/null || { echo "real-site: installing django from pip" >&2; pip install -q django; }

work=$(mktemp -d /tmp/tabwire-real-site.XXXXXX)
( cd /usr/share/doc/python3/html && exec python3 -m http.server 8765 --bind 127.0.0.1 ) >"$work/docs.log" 2>&1 &
cd "$work"
django-admin startproject site_ >/dev/null
cd site_
python3 manage.py migrate -v 0
DJANGO_SUPERUSER_PASSWORD=tabwire-bench python3 manage.py createsuperuser --noinput \
  --username admin --email admin@example.org >/dev/null
# A few users, so the change list has rows.
python3 manage.py shell -c "
from django.contrib.auth.models import User
for i in range(40): User.objects.create_user(f'user{i}', f'user{i}@example.org', 'pw')
" >/dev/null
echo "real-site: docs on :8765, Django admin on :8766 (admin / tabwire-bench)" >&2
exec python3 manage.py runserver 127.0.0.1:8766 --noreload >"$work/admin.log" 2>&1
