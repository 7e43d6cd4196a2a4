"""Writes hosts.json: IA surt's answers for hosts web archives index (dns:, IPv4, IPv6, percent-escaped and
mixed-case hosts, ports, userinfo) under each combination of its options. Only inputs and outputs are kept.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install surt==0.3.1 && /tmp/v/bin/python make_hosts.py
"""
import itertools, json, os
from surt import surt

URLS = [
    "dns:archive.org", "dns:www.example.com", "dns:EXAMPLE.com",
    "http://[2001:db8::1]/a", "http://[2001:db8::1]:8080/a?b", "https://[::1]/", "http://[2001:DB8::A]/x",
    "https://[2001:db8:0:0:0:0:0:1]/", "http://[fe80::1]:80/",
    "http://%65xample.com/", "http://ex%41mple.com/", "http://www.%65xample.com/p", "http://%77ww.example.com/",
    "http://127.0.0.1/x", "http://127.0.0.1:8080/x", "http://10.1.2.3/", "https://192.168.0.1:443/a",
    "http://Example.COM./", "http://www.example.com:80/a", "https://www.example.com:443/a",
    "http://example.com:8080/a", "http://user:pass@example.com/a", "http://www2.example.com/",
    "http://EXAMPLE.com/A?B=1&a=2", "http://xn--n3h.com/", "http://b\u00fccher.de/",
]
OPTIONS = ["with_scheme", "trailing_comma", "host_massage", "reverse_ipaddr"]

cases = []
for url in URLS:
    for values in itertools.product([False, True], repeat=len(OPTIONS)):
        opts = dict(zip(OPTIONS, values))
        cases.append({"url": url, "options": opts, "surt": surt(url, **opts)})
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "hosts.json"), "w", encoding="utf-8") as f:
    json.dump(cases, f, indent=0, ensure_ascii=False)
    f.write("\n")
print(len(cases), "cases")
