"""The site bench/distributed crawls: one asyncio process (uvloop when importable) answering HTTP/1.1 for H
hosts on 127.0.1.1 .. 127.0.1.H, one port, every response after a fixed latency (the site is I/O-bound: a
crawler's throughput is its requests in flight divided by the latency).

Per host:
  /robots.txt           User-agent: *  Disallow: /private/
  /  and /p/1 .. /p/P-1  ~10 KB HTML pages; page i links pages i+1 .. i+NEXT of its host, page i of the next
                         host, and /private/i (disallowed: a request there is a robots violation)
  /wide/N               (the memory run) a page linking WIDE new URLs, spread over the hosts: page N of host h
                         links /wide/(N*WIDE+k+1) on host (h+k) mod H, k = 0..WIDE-1 (every link a new URL);
                         answered after --wide-latency-ms
Anything else is a 404.

Every request is recorded: (host index, path, arrival, end of answer, status, connection id), wall-clock
seconds. The control server on 127.0.0.1:CTL answers GET /take (the records since the last take, as JSON, and
forgets them), GET /latency/MS (sets the page latency), GET /ping. Loopback only.

Run: python3 bench/distributed_site.py --port P --ctl-port C [--hosts H --pages P --latency-ms L ...]
"""

import argparse
import asyncio
import json
import signal
import sys
import time

BASE_NET = "127.0.1."

WORDS = ("archive crawler frontier politeness harvest record capture replay seed scope queue host robots "
         "lease worker redis shared heritrix warc digest revisit payload anchor link extract fetch").split()


def host_ip(h):
    """Host index h (0-based) -> its address 127.0.1.(h+1)."""
    return BASE_NET + str(h + 1)


def filler(size):
    out, i = [], 0
    n = 0
    while n < size:
        line = "<p>" + " ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(12)) + ".</p>\n"
        out.append(line)
        n += len(line)
        i += 1
    return "".join(out)


class Site:
    def __init__(self, args):
        self.a = args
        self.log = []
        self.conn_seq = 0
        self.filler = filler(args.page_bytes)
        self.robots = b"User-agent: *\nDisallow: /private/\n"

    def base(self, h):
        return "http://%s:%d" % (host_ip(h % self.a.hosts), self.a.port)

    def page_path(self, i):
        return "/" if i == 0 else "/p/%d" % i

    def page(self, h, i):
        a = self.a
        links = ['<a href="%s">next %d</a>' % (self.page_path(j), j)
                 for j in range(i + 1, min(a.pages, i + 1 + a.next_links))]
        links.append('<a href="%s%s">page %d of host %d</a>' % (self.base(h + 1), self.page_path(i), i,
                                                                 (h + 1) % a.hosts))
        links.append('<a href="/private/%d">private</a>' % i)
        return ("<!doctype html>\n<html><head><title>host %d page %d</title></head><body>\n<h1>Host %d, page %d"
                "</h1>\n<nav>%s</nav>\n%s</body></html>\n" % (h, i, h, i, " ".join(links), self.filler)).encode()

    def wide(self, h, n):
        a = self.a
        links = "\n".join('<a href="%s/wide/%d">w</a>' % (self.base(h + k), n * a.wide_links + k + 1)
                          for k in range(a.wide_links))
        return ("<!doctype html>\n<html><head><title>wide %d</title></head><body>\n%s\n</body></html>\n"
                % (n, links)).encode()

    def answer(self, h, path):
        """(status, content type, body, latency s)"""
        lat = self.a.latency_ms / 1000
        if path == "/robots.txt":
            return 200, "text/plain", self.robots, lat
        if path == "/":
            return 200, "text/html", self.page(h, 0), lat
        if path.startswith("/p/"):
            try:
                i = int(path[3:])
            except ValueError:
                i = -1
            if 0 < i < self.a.pages:
                return 200, "text/html", self.page(h, i), lat
        if path.startswith("/wide/"):
            try:
                n = int(path[6:])
            except ValueError:
                n = -1
            if n >= 0:
                return 200, "text/html", self.wide(h, n), self.a.wide_latency_ms / 1000
        return 404, "text/plain", b"not found\n", lat


def make_protocol(site, loop, h):
    class Http(asyncio.Protocol):
        def connection_made(self, transport):
            self.t = transport
            self.buf = b""
            self.busy = False  # a request is being answered (answers go out in order, one at a time)
            self.closed = False
            site.conn_seq += 1
            self.cid = site.conn_seq

        def connection_lost(self, exc):
            self.closed = True

        def data_received(self, data):
            self.buf += data
            if len(self.buf) > 65536:
                self.t.close()
                return
            self.next()

        def next(self):
            if self.busy or self.closed:
                return
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buf = self.buf[:end], self.buf[end + 4:]
            lines = head.split(b"\r\n")
            parts = lines[0].split()
            if len(parts) < 2:
                self.t.close()
                return
            close = any(l.lower().startswith(b"connection:") and b"close" in l.lower() for l in lines[1:])
            path = parts[1].decode("latin-1").split("#")[0]
            arrival = time.time()
            status, ctype, body, lat = site.answer(h, path.split("?")[0])
            self.busy = True
            loop.call_later(lat, self.respond, path, arrival, status, ctype, body, close)

        def respond(self, path, arrival, status, ctype, body, close):
            site.log.append((h, path, arrival, time.time(), status, self.cid))
            if self.closed:
                return
            reason = b"OK" if status == 200 else b"Not Found"
            self.t.write(b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n"
                         % (status, reason, ctype.encode(), len(body),
                            b"Connection: close\r\n" if close else b"") + body)
            self.busy = False
            if close:
                self.t.close()
                return
            self.next()

    return Http


def make_ctl(site):
    class Ctl(asyncio.Protocol):
        def connection_made(self, transport):
            self.t = transport
            self.buf = b""

        def data_received(self, data):
            self.buf += data
            if b"\r\n\r\n" not in self.buf:
                return
            path = self.buf.split(b" ", 2)[1]
            if path == b"/take":
                body = json.dumps(site.log).encode()
                site.log = []
            elif path.startswith(b"/latency/"):
                site.a.latency_ms = float(path[len(b"/latency/"):])
                body = b"ok\n"
            else:
                body = b"pong\n"
            self.t.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n" % len(body) + body)
            self.t.close()

    return Ctl


async def serve(args):
    loop = asyncio.get_running_loop()
    site = Site(args)
    servers = []
    for h in range(args.hosts):
        servers.append(await loop.create_server(make_protocol(site, loop, h), host_ip(h), args.port,
                                                reuse_address=True, backlog=1024))
    servers.append(await loop.create_server(make_ctl(site), "127.0.0.1", args.ctl_port, reuse_address=True))
    done = asyncio.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, done.set)
    print("ready", flush=True)
    await done.wait()
    for s in servers:
        s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ctl-port", type=int, required=True)
    ap.add_argument("--hosts", type=int, default=64)
    ap.add_argument("--pages", type=int, default=60)
    ap.add_argument("--latency-ms", type=float, default=100)
    ap.add_argument("--next-links", type=int, default=3)
    ap.add_argument("--page-bytes", type=int, default=10000)
    ap.add_argument("--wide-links", type=int, default=200)
    ap.add_argument("--wide-latency-ms", type=float, default=10)
    args = ap.parse_args()
    if not 1 <= args.hosts <= 254:
        sys.exit("--hosts: 1 to 254 (127.0.1.1-254)")
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(args))
        return
    print("site: uvloop %s" % uvloop.__version__, file=sys.stderr, flush=True)
    uvloop.run(serve(args))


if __name__ == "__main__":
    main()
