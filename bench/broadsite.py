#!/usr/bin/env python3
"""A simulated web for bench/broad (issue 24): the model of N hosts, and the server process that plays it.

The model (stdlib only, imported by bench/broad for its analysis) is drawn from a seeded RNG, so a seed gives the
same web every time. Host i is named hNNNNN.web.test and has:
  - a kind: ok (most), timeout (accepts, reads the request, never answers), refuse (resolves to an address in
    127.2.0.0/16 where nothing listens: connection refused), nxdomain (the name does not resolve), error (robots.txt
    404, every page 500 or 502) or busy (pages answer 429 or 503 with Retry-After for RA seconds after the host's
    first page request, then normally; a third of them ask for 3600 s, so they never serve within a run);
  - a latency per response (log-normal, median 80 ms, 10-800 ms; 2% of hosts are slow, 1-2 s), varied per URL
    by a factor of 0.75-1.25 that is fixed per URL (so a retry takes as long as the first try); or, with
    --latency-ms, the same for every response;
  - a scheme: 15% are served over HTTPS (the harness's self-signed certificate, *.web.test);
  - a robots.txt: 10% 404, 15% disallow /private/, 3% add Crawl-delay: 2, the rest allow everything;
  - pages: "/" and /p1.html ... /p{n-1}.html, n from a Pareto tail (most hosts 2-5, a few at the cap); page k
    links to pages 2k+1 and 2k+2 (so a FIFO crawler takes them in index order), back to "/", the home page to
    /private/ (a real page where robots.txt allows it); 5% of pages link to a missing /gone/K.html (404); 1% of
    leaf pages answer 500 always (one broken URL on an otherwise healthy host); 10-60 KB of HTML (word text that
    compresses like real pages, about 3x);
  - links to other hosts' home pages, in --generations generations (20): the first generation (5% of the hosts)
    are the seeds; a host of generation g is linked from one of the first four pages of an ok host of generation
    g-1, so it is found only once that page is fetched, and the crawl discovers hosts in a wave over its first
    minute or so (as a broad crawl's frontier grows), not all at once; home pages link 1-3 more random hosts, and
    10% of other pages one, of generations up to g+1.

Addresses: the hosts share --addresses loopback addresses 127.1.A.B (name-based virtual hosting by the Host
header, as on the real web). The server listens on each of them on the HTTP and the HTTPS port, and answers DNS
on 127.0.0.1:--dns-port (A records, TTL 3600; AAAA: no data; unknown names: NXDOMAIN), each answer after a
per-name latency of 5-60 ms.

`python3 broadsite.py --hosts N ... --log FILE` serves until SIGTERM, then writes its log (every connection,
request and DNS query, with times) as JSON to FILE and exits. It prints "ready" once it listens, and a progress
line to stderr every 10 s. Loopback only: it binds 127.1.0.0/16 and 127.0.0.1 and nothing else.
"""

import argparse
import hashlib
import heapq
import json
import math
import os
import random
import resource
import signal
import socket
import sys
import time
from collections import deque

DOMAIN = "web.test"
KINDS = ("ok", "timeout", "refuse", "nxdomain", "error", "busy")
SERVED = ("ok", "busy")  # kinds whose pages are served (a busy host after its Retry-After window)


def unit(*parts):
    """A uniform float in [0, 1) fixed by its arguments (per-URL draws, the same in server and analysis)."""
    d = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(d, "big") / 2.0 ** 64


def is_page(status):
    """A final answer that counts as a page fetched: 2xx-4xx but 429 (a 429 or 5xx is to be tried again)."""
    return 200 <= status < 500 and status != 429


def address(a):
    return "127.1.%d.%d" % (a // 250, a % 250 + 1)


class Host:
    __slots__ = ("i", "name", "kind", "https", "ip", "lat", "n", "robots", "crawl_delay", "retry_after",
                 "status", "seed", "gen", "cross", "broken", "flaky")

    def path(self, k):
        return "/" if k == 0 else "/p%d.html" % k


class Web:
    """The model: hosts, their pages and links, and what each URL answers."""

    def __init__(self, n, seed=1, max_pages=30, generations=20, ports=(18480, 18443), addresses=256,
                 latency=None):
        self.ports = ports
        self.fixed_latency = latency
        self.addresses = max(1, min(addresses, n))
        rng = random.Random("broad:%d:%d" % (seed, n))
        hosts = []
        for i in range(n):
            h = Host()
            h.i = i
            h.name = "h%05d.%s" % (i, DOMAIN)
            r = rng.random()
            h.kind = ("timeout" if r < 0.02 else "refuse" if r < 0.04 else "nxdomain" if r < 0.05
                      else "error" if r < 0.08 else "busy" if r < 0.11 else "ok")
            if i == 0:
                h.kind = "ok"
            h.https = rng.random() < 0.15
            if rng.random() < 0.02:
                h.lat = rng.uniform(1.0, 2.0)
            else:
                h.lat = min(0.8, max(0.01, rng.lognormvariate(math.log(0.08), 0.7)))
            if latency is not None:
                h.lat = latency  # drawn above all the same, so the rest of the web is the seed's
            h.n = min(max_pages, max(1, int(rng.paretovariate(1.1) * 2.2) - 1))
            r = rng.random()
            h.robots = "404" if r < 0.10 else "private" if r < 0.25 else "delay" if r < 0.28 else "allow"
            if h.kind == "error":
                h.robots = "404"
            h.crawl_delay = 2.0 if h.robots == "delay" else 0.0
            h.retry_after = 3600 if rng.random() < 1 / 3 else rng.randint(5, 30)
            h.status = (rng.choice((429, 503)) if h.kind == "busy" else rng.choice((500, 502)) if h.kind == "error"
                        else 200)
            h.gen = i * generations // n
            h.seed = h.gen == 0
            h.ip = ("127.2.%d.%d" % (i // 250 % 250, i % 250 + 1) if h.kind == "refuse"
                    else address(i % self.addresses))
            h.cross = {}  # page -> [target host index]
            h.broken = {k for k in range(h.n) if rng.random() < 0.05}
            h.flaky = set()
            hosts.append(h)
        ok = [[] for _ in range(generations)]  # ok hosts by generation
        for h in hosts:
            if h.kind == "ok":
                ok[h.gen].append(h)
        for h in hosts:
            if h.seed:
                continue
            # linked from an ok host of the generation before (or the nearest earlier one that has any)
            g = h.gen - 1
            while g >= 0 and not ok[g]:
                g -= 1
            if g < 0:
                h.seed = True
                continue
            p = rng.choice(ok[g])
            p.cross.setdefault(rng.randrange(min(p.n, 4)), []).append(h.i)
        ends = [max(1, min(n, (g + 2) * n // generations)) for g in range(generations)]  # hosts of generations <= g+1
        for h in hosts:
            for _ in range(rng.randint(1, 3)):
                h.cross.setdefault(0, []).append(rng.randrange(ends[h.gen]))
            for k in range(1, h.n):
                if rng.random() < 0.10:
                    h.cross.setdefault(k, []).append(rng.randrange(ends[h.gen]))
            if h.kind == "ok":  # 1% of leaf pages without cross links answer 500 always
                h.flaky = {k for k in range(1, h.n) if 2 * k + 1 >= h.n and k not in h.cross and rng.random() < 0.01}
        self.hosts = hosts
        self.by_name = {h.name: h for h in hosts}

    # ---- URLs -------------------------------------------------------------------------------------------------

    def base(self, h):
        return "%s://%s:%d" % ("https" if h.https else "http", h.name, self.ports[1] if h.https else self.ports[0])

    def seeds(self):
        return [self.base(h) + "/" for h in self.hosts if h.seed]

    def page_index(self, h, path):
        if path == "/":
            return 0
        if path.startswith("/p") and path.endswith(".html"):
            try:
                k = int(path[2:-5])
            except ValueError:
                return None
            if 0 < k < h.n and path == "/p%d.html" % k:
                return k
        return None

    def links(self, h, k):
        """Page k's links in document order: (href, same-host path or None, cross target index or None)."""
        out = []
        for j in (2 * k + 1, 2 * k + 2):
            if j < h.n:
                # relative, root-relative and absolute spellings of the same host's pages
                v = j % 3
                href = ("p%d.html" % j if v == 0 else "/p%d.html" % j if v == 1
                        else self.base(h) + "/p%d.html" % j)
                out.append((href, "/p%d.html" % j, None))
        if k == 0:
            out.append(("/private/", "/private/", None))
        else:
            out.append(("/", "/", None))
            out.append(("./" + h.path(k - 1).lstrip("/"), h.path(k - 1), None))
        if k in h.broken:
            out.append(("/gone/%d.html" % k, "/gone/%d.html" % k, None))
        for t in h.cross.get(k, ()):
            out.append((self.base(self.hosts[t]) + "/", None, t))
        return out

    def latency(self, h, path):
        if self.fixed_latency is not None:
            return self.fixed_latency
        return h.lat * (0.75 + 0.5 * unit(h.i, path))

    def disallowed(self, h, path):
        return h.robots == "private" and path.startswith("/private/")

    def robots_txt(self, h):
        if h.robots == "404":
            return None
        text = "User-agent: *\n"
        text += "Disallow: /private/\n" if h.robots == "private" else "Disallow:\n"
        if h.robots == "delay":
            text += "Crawl-delay: %d\n" % h.crawl_delay
        return text

    def answer(self, h, path, busy):
        """(status, page index or None) for a GET of path on h; busy: within the host's Retry-After window."""
        if path == "/robots.txt":
            return (200 if self.robots_txt(h) is not None else 404), None
        if h.kind == "error":
            return h.status, None
        if h.kind == "busy" and busy:
            return h.status, None
        if path == "/private/":
            return 200, None
        k = self.page_index(h, path)
        if k is None:
            return 404, None
        if k in h.flaky:
            return 500, None
        return 200, k

    # ---- the ideal schedule -------------------------------------------------------------------------------------

    def plan(self, h, delay, retry_delay, max_retries, ra_cap):
        """What a crawler keeping exactly to politeness does on host h, from the moment it starts it: robots.txt,
        then the pages in FIFO (discovery) order, each request taking the URL's latency and followed by the host's
        delay (max of the politeness delay and its Crawl-delay); a 5xx is retried up to max_retries times, each
        retry due retry_delay after the failure (the host goes on meanwhile); a Retry-After (capped at ra_cap)
        holds the whole host. Returns a dict: requests [(start, end, path, status)], links [(time, target)] found
        in 200 pages, pages (distinct URLs answered 2xx-4xx, robots.txt excluded) as a set, and end."""
        d = max(delay, h.crawl_delay)
        reqs, found = [], []
        lat = self.latency(h, "/robots.txt")
        reqs.append((0.0, lat, "/robots.txt", 200 if self.robots_txt(h) is not None else 404))
        t = lat + d
        queue, seen, later = deque(["/"]), {"/"}, []
        tries = {}
        busy_from = None
        final = {}
        while queue or later:
            if queue:
                path = queue.popleft()
                start = t
            else:
                due, _, path = heapq.heappop(later)
                start = max(t, due)
            if busy_from is None and h.kind == "busy":
                busy_from = start
            busy = busy_from is not None and start < busy_from + h.retry_after
            status, k = self.answer(h, path, busy)
            end = start + self.latency(h, path)
            reqs.append((start, end, path, status))
            final[path] = status
            wait = d
            if status in (429, 503) and h.kind == "busy":
                wait = max(d, min(h.retry_after, ra_cap))
            if status >= 500 or status == 429:
                n = tries.get(path, 0)
                if n < max_retries:
                    tries[path] = n + 1
                    heapq.heappush(later, (end + (wait if status == 429 or h.kind == "busy" else retry_delay),
                                           len(reqs), path))
            if k is not None:
                for _, p, target in self.links(h, k):
                    if target is not None:
                        found.append((end, target))
                    elif p not in seen and not self.disallowed(h, p):
                        seen.add(p)
                        queue.append(p)
            t = end + wait
        pages = {p for p, s in final.items() if is_page(s)}
        return {"requests": reqs, "links": found, "pages": pages, "end": reqs[-1][1], "delay": d}

    def ideal(self, delay, retry_delay, max_retries, ra_cap):
        """Every host's plan, started when the ideal crawl first finds a link to it (seeds at 0): a Dijkstra
        over hosts, a link counting from the end of the response that carries it. Returns {host index: (start,
        plan)} for the hosts that answer HTTP (ok, busy, error, timeout), reachable from the seeds."""
        plans = {}
        start = {h.i: 0.0 for h in self.hosts if h.seed}
        heap = [(0.0, i) for i in start]
        heapq.heapify(heap)
        done = {}
        while heap:
            s, i = heapq.heappop(heap)
            if i in done:
                continue
            h = self.hosts[i]
            if h.kind in ("refuse", "nxdomain"):
                done[i] = (s, None)
                continue
            if h.kind == "timeout":
                done[i] = (s, None)
                continue
            p = plans.get(i) or self.plan(h, delay, retry_delay, max_retries, ra_cap)
            plans[i] = p
            done[i] = (s, p)
            for off, t in p["links"]:
                if t not in done and s + off < start.get(t, math.inf):
                    start[t] = s + off
                    heapq.heappush(heap, (s + off, t))
        return done


# ---------------------------------------------------------------------------------------------------------------
# the server

WORDS = ("the of and to in is that for it as was with be by on not he this are or his from at which but have an "
         "they you were her she there been one all we their has would when if so what more will can about other "
         "archive crawler politeness frontier harvest record collection library museum history network server "
         "between under after before through during without within against among across toward upon").split()


def filler(size=300_000):
    rng = random.Random(7)
    out, n = [], 0
    while n < size:
        para = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 120)))
        s = "<p>%s.</p>\n" % para.capitalize()
        out.append(s)
        n += len(s)
    return "".join(out).encode()


class Server:
    def __init__(self, web, args):
        self.web = web
        self.args = args
        self.fill = filler()
        self.conns = []  # [id, local ip, tls, opened, closed, host index of its first request]
        self.reqs = []  # [arrived, ended, host index (-1 unknown), path, status, conn id, body bytes, flags]
        self.dns = []  # [time, name, qtype, rcode]
        self.busy_from = {}
        self.open = {}
        self.next_id = 1
        self.max_open = 0
        self.udp_drops = 0
        self.t_start = time.time()
        self.date = b""
        self.date_t = 0

    def http_date(self):
        now = int(time.time())
        if now != self.date_t:
            self.date_t = now
            self.date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(now)).encode()
        return self.date

    def page(self, h, k):
        web = self.web
        body = ["<!doctype html>\n<html><head><meta charset=utf-8><title>%s - page %d</title></head><body>\n"
                "<h1>%s</h1>\n<nav>" % (h.name, k, h.name)]
        for href, _, _ in web.links(h, k):
            body.append('<a href="%s">%s</a>\n' % (href, href))
        body.append("</nav>\n<main>\n")
        head = "".join(body).encode()
        size = int(min(60_000, max(10_000, 25_000 * math.exp(0.5 * (unit(h.i, k, "size") * 2 - 1) * 2.2))))
        off = int(unit(h.i, k, "off") * (len(self.fill) - size))
        return head + self.fill[off:off + size] + b"</main></body></html>\n"

    def respond(self, h, path, now):
        """(status, content type, body, extra headers) for a request on host h."""
        web = self.web
        busy = False
        if h.kind == "busy" and path != "/robots.txt":
            if h.i not in self.busy_from:
                self.busy_from[h.i] = now
            busy = now < self.busy_from[h.i] + h.retry_after
        status, k = web.answer(h, path, busy)
        extra = b""
        if path == "/robots.txt" and status == 200:
            return 200, b"text/plain", web.robots_txt(h).encode(), extra
        if status in (429, 503) and h.kind == "busy":
            extra = b"Retry-After: %d\r\n" % h.retry_after
            return status, b"text/html", b"<html><body>busy, come back later</body></html>\n", extra
        if status >= 500:
            return status, b"text/html", b"<html><body>server error</body></html>\n", extra
        if status == 404:
            return 404, b"text/html", b"<html><body>not found</body></html>\n", extra
        if k is None:  # /private/
            return 200, b"text/html", ("<html><head><title>private</title></head><body>%s private</body></html>\n"
                                       % h.name).encode(), extra
        return 200, b"text/html; charset=utf-8", self.page(h, k), extra


REASONS = {200: b"OK", 404: b"Not Found", 421: b"Misdirected Request", 429: b"Too Many Requests",
           500: b"Internal Server Error", 502: b"Bad Gateway", 503: b"Service Unavailable"}


def make_protocol(asyncio):
    class Conn(asyncio.Protocol):
        def __init__(self, srv, loop, ip, tls):
            self.srv, self.loop, self.ip, self.tls = srv, loop, ip, tls
            self.buf = b""
            self.pending = False
            self.closed = False
            self.close_after = False

        def connection_made(self, transport):
            srv = self.srv
            self.tr = transport
            self.id = srv.next_id
            srv.next_id += 1
            self.rec = [self.id, self.ip, self.tls, time.time(), None, -1]
            self.last = self.rec[3]
            srv.conns.append(self.rec)
            srv.open[self.id] = self
            srv.max_open = max(srv.max_open, len(srv.open))

        def connection_lost(self, exc):
            self.closed = True
            self.rec[4] = time.time()
            self.srv.open.pop(self.id, None)

        def data_received(self, data):
            self.buf += data
            if not self.pending:
                self.process()

        def process(self):
            while not self.pending and not self.closed:
                i = self.buf.find(b"\r\n\r\n")
                if i < 0:
                    if len(self.buf) > 65536:
                        self.tr.close()
                    return
                head = self.buf[:i].decode("latin-1")
                self.buf = self.buf[i + 4:]
                self.handle(head)

        def handle(self, head):
            srv, web = self.srv, self.srv.web
            now = time.time()
            lines = head.split("\r\n")
            parts = lines[0].split(" ")
            method = parts[0]
            target = parts[1] if len(parts) > 1 else "/"
            host = ""
            for line in lines[1:]:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                if name == "host":
                    host = value.strip().lower()
                elif name == "connection" and "close" in value.lower():
                    self.close_after = True
                elif name == "content-length":  # no request bodies expected; drop any
                    try:
                        self.buf = self.buf[int(value.strip()):]
                    except ValueError:
                        pass
            hostname = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
            path = target
            if "://" in path:  # absolute form
                path = "/" + path.split("://", 1)[1].partition("/")[2]
            path = path.split("#", 1)[0]
            h = web.by_name.get(hostname)
            rec = [now, None, h.i if h else -1, path, 0, self.id, 0, ""]
            srv.reqs.append(rec)
            if self.rec[5] < 0 and h:
                self.rec[5] = h.i
            self.pending = True
            if h is None or h.https != self.tls or h.kind in ("refuse", "nxdomain"):
                rec[7] = "misdirected"
                self.send(rec, 421, b"text/plain", b"no such host here\n", b"", method)
                return
            if h.kind == "timeout":
                rec[7] = "silent"
                return  # accepted, read, never answered: the crawler's timeout ends it
            status, ctype, body, extra = srv.respond(h, path, now)
            self.loop.call_later(web.latency(h, path), self.send, rec, status, ctype, body, extra, method)

        def send(self, rec, status, ctype, body, extra, method):
            rec[4] = status
            if self.closed:
                rec[7] = "gone"  # the client closed before the answer
                return
            hdr = b"HTTP/1.1 %d %s\r\nServer: broadsite\r\nDate: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s" % (
                status, REASONS.get(status, b"X"), self.srv.http_date(), ctype, len(body), extra)
            if self.close_after:
                hdr += b"Connection: close\r\n"
            # the end is stamped before the write: the client cannot have the whole answer sooner, so a gap the
            # server sees (next arrival, stamped once read, minus this) is never shorter than the client's
            rec[1] = time.time()
            self.tr.write(hdr + b"\r\n" + (body if method != "HEAD" else b""))
            rec[6] = len(body)
            self.last = rec[1]
            self.pending = False
            if self.close_after:
                self.tr.close()
            elif self.buf:
                self.process()

    class Dns(asyncio.DatagramProtocol):
        def __init__(self, srv, loop):
            self.srv, self.loop = srv, loop
            import dnslib
            self.d = dnslib

        def connection_made(self, transport):
            self.tr = transport

        def datagram_received(self, data, addr):
            d = self.d
            try:
                q = d.DNSRecord.parse(data)
            except Exception:
                return
            name = str(q.q.qname).rstrip(".").lower()
            try:
                qtype = d.QTYPE[q.q.qtype]
            except Exception:
                qtype = str(q.q.qtype)
            reply = q.reply()
            h = self.srv.web.by_name.get(name)
            if h is None or h.kind == "nxdomain":
                reply.header.rcode = d.RCODE.NXDOMAIN
            elif q.q.qtype == d.QTYPE.A:
                reply.add_answer(d.RR(q.q.qname, d.QTYPE.A, rdata=d.A(h.ip), ttl=3600))
            self.srv.dns.append([time.time(), name, qtype, int(reply.header.rcode)])
            lat = 0.005 + 0.055 * unit("dns", name)
            self.loop.call_later(lat, self.tr.sendto, reply.pack(), addr)

    return Conn, Dns


def udp_rcvbuf_errors():
    try:
        lines = [l.split() for l in open("/proc/net/snmp") if l.startswith("Udp:")]
        return int(lines[1][lines[0].index("RcvbufErrors")])
    except (OSError, ValueError, IndexError):
        return 0


def serve(args):
    import asyncio
    import ssl
    try:
        import uvloop
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        print("[web] uvloop missing: plain asyncio", file=sys.stderr)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    web = Web(args.hosts, args.seed, args.max_pages, args.generations, (args.port, args.https_port),
              args.addresses, None if args.latency_ms is None else args.latency_ms / 1000)
    srv = Server(web, args)
    Conn, Dns = make_protocol(asyncio)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness stops us (SIGTERM) after it stopped the crawler

    async def main():
        loop = asyncio.get_running_loop()
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
        tls.set_alpn_protocols(["http/1.1"])
        servers = []
        for a in range(web.addresses):
            ip = address(a)
            servers.append(await loop.create_server(lambda ip=ip: Conn(srv, loop, ip, False), ip, args.port,
                                                    backlog=4096, reuse_address=True))
            servers.append(await loop.create_server(lambda ip=ip: Conn(srv, loop, ip, True), ip, args.https_port,
                                                    ssl=tls, backlog=4096, reuse_address=True))
        dns_tr, _ = await loop.create_datagram_endpoint(lambda: Dns(srv, loop),
                                                        local_addr=("127.0.0.1", args.dns_port))
        # a crawl's first lookups come in a burst (every seed at once): the default receive buffer (about 230
        # queries) would drop some, and the crawler's resolver would wait out its timeout for them
        sock = dns_tr.get_extra_info("socket")
        for opt in (getattr(socket, "SO_RCVBUFFORCE", None), socket.SO_RCVBUF):
            try:
                sock.setsockopt(socket.SOL_SOCKET, opt, 16 << 20)
                break
            except (OSError, TypeError):
                pass
        udp0 = udp_rcvbuf_errors()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        print("ready", flush=True)
        last_n, last_t, last_print = 0, time.time(), time.time()
        status = args.log + ".status"
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), 1)
            except asyncio.TimeoutError:
                pass
            now = time.time()
            # for the harness: how many requests so far, and when the last came
            with open(status + ".tmp", "w") as f:
                json.dump({"requests": len(srv.reqs), "last": srv.reqs[-1][0] if srv.reqs else None,
                           "open": len(srv.open)}, f)
            os.replace(status + ".tmp", status)
            if now - last_print < 10:
                continue
            last_print = now
            # servers close keep-alive connections idle for --keepalive s, as real servers do
            for c in list(srv.open.values()):
                if not c.pending and now - c.last > args.keepalive:
                    c.tr.close()
            if not stop.is_set() and srv.reqs:
                n = len(srv.reqs)
                print("[web] %4.0fs: %d requests (%.0f/s), %d connections open (max %d), %d DNS queries"
                      % (now - srv.reqs[0][0], n, (n - last_n) / (now - last_t), len(srv.open), srv.max_open,
                         len(srv.dns)), file=sys.stderr, flush=True)
                last_n, last_t = n, now
        for s in servers:
            s.close()
        srv.udp_drops = udp_rcvbuf_errors() - udp0  # machine-wide: datagrams dropped for a full buffer
        now = time.time()
        for c in srv.open.values():
            if c.rec[4] is None:
                c.rec[4] = now

    asyncio.run(main())
    tmp = args.log + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"conns": srv.conns, "reqs": srv.reqs, "dns": srv.dns, "max_open": srv.max_open,
                   "udp_drops": srv.udp_drops,
                   "cpu": sum(resource.getrusage(resource.RUSAGE_SELF)[:2])}, f)
    os.replace(tmp, args.log)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-pages", type=int, default=30)
    ap.add_argument("--generations", type=int, default=20)
    ap.add_argument("--addresses", type=int, default=256)
    ap.add_argument("--port", type=int, default=18480)
    ap.add_argument("--https-port", type=int, default=18443)
    ap.add_argument("--dns-port", type=int, default=15353)
    ap.add_argument("--keepalive", type=float, default=60)
    ap.add_argument("--latency-ms", type=float, help="every response after this latency (default: per host, as above)")
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--log", required=True)
    serve(ap.parse_args())


if __name__ == "__main__":
    main()
