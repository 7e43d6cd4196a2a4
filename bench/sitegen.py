#!/usr/bin/env python3
"""Deterministic benchmark site generator (stdlib only).

Writes a static site for one host and returns/prints the exact set of URLs a correct crawler fetches from it,
starting at BASE/ with robots.txt obeyed and no other host followed:

- N content pages of 5-20 KB under /sNN/tM/pI.html, each with 20-40 links written as absolute, root-relative,
  relative (`../`), `./`, plus fragment variants (`#x`) and duplicate spellings (`/a/./b`, `/a/zz/../b`);
- about 50 assets under /static/ (CSS, JS, PNG); CSS files reference images with url(), and some images are
  referenced only from CSS;
- /robots.txt disallowing /private/, which is linked from many pages (its pages link to /orphan/ pages that are
  reachable only through /private/);
- links to an outside host (OUTSIDE) that must not be followed;
- URL strings inside inline scripts (they point at pages the document also links normally, so the expected set
  is the same whether or not a crawler extracts URLs from scripts);
- a deep paginated chain /archive/page/K/ (K = 1..chain), each reachable only from its predecessor;
- a few broken links (/missing/...) which a correct crawler fetches once and gets 404.

Usage: sitegen.py OUT_DIR --base http://127.0.0.1:8080 [--outside http://127.0.0.250:8080] [--pages N]
                  [--seed S] [--chain K]          (prints the expected URLs, one a line, sorted)
"""

import argparse
import os
import posixpath
import random
import struct
import zlib

DISALLOWED = "/private/"
WORDS = (
    "archive crawl frontier queue politeness robots harvest record payload digest revisit capture replay index "
    "snapshot heritage collection seed scope hop embed link anchor stylesheet script image fragment canonical "
    "the of and a to in is was for on with as by at from that this it be are or an which"
).split()


def png_bytes(w, h, rgb):
    """A valid RGB PNG of w x h pixels with a little noise so sizes differ."""
    raw = bytearray()
    r0, g0, b0 = rgb
    for y in range(h):
        raw.append(0)
        for x in range(w):
            raw += bytes(((r0 + x * 7) & 255, (g0 + y * 5) & 255, (b0 + x * y) & 255))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(bytes(raw), 6))
        + chunk(b"IEND", b"")
    )


def page_path(i):
    return "/s%02d/t%d/p%d.html" % (i % 16, (i // 16) % 8, i)


def remove_dot_segments(path):
    """RFC 3986 5.2.4 on a path (query/fragment already removed)."""
    out = []
    segs = path.split("/")
    for k, s in enumerate(segs):
        if s == ".":
            if k == len(segs) - 1:
                out.append("")
            continue
        if s == "..":
            if len(out) > 1:
                out.pop()
            if k == len(segs) - 1:
                out.append("")
            continue
        out.append(s)
    r = "/".join(out)
    return r if r.startswith("/") else "/" + r


class Site:
    def __init__(self, base, outside, pages, seed, chain):
        self.base = base.rstrip("/")
        self.outside = outside.rstrip("/") if outside else None
        self.n = pages
        self.rng = random.Random(seed)
        self.chain = chain
        self.files = {}  # path on disk (relative, no leading /) -> bytes
        self.links = {}  # url path -> set of url paths it leads to (links, embeds, css url())
        self.css = ["/static/css/c%d.css" % k for k in range(10)]
        self.js = ["/static/js/j%d.js" % k for k in range(15)]
        self.img = ["/static/img/i%d.png" % k for k in range(25)]
        self.private = ["/private/p%d.html" % k for k in range(20)]
        self.orphans = ["/orphan/o%d.html" % k for k in range(20)]
        self.missing = ["/missing/gone%d.html" % k for k in range(3)]
        rng = random.Random(seed * 7 + 1)
        self.paras = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 120))).capitalize() + "."
            for _ in range(400)
        ]

    # -- link spellings ------------------------------------------------------------------------------------------
    def spell(self, src, dst, form):
        """One way of writing a link from page src to path dst."""
        d = posixpath.dirname(src)
        if dst.endswith("/"):
            rel = posixpath.relpath(dst, d) + "/"
            if rel == "./":
                rel = "./"
        else:
            rel = posixpath.relpath(dst, d)
        if form == "abs":
            return self.base + dst
        if form == "root":
            return dst
        if form == "rel":
            return rel
        if form == "dot":
            return rel if rel.startswith("..") else "./" + rel
        if form == "frag":
            return dst + "#sec%d" % self.rng.randint(1, 9)
        if form == "absfrag":
            return self.base + dst + "#top"
        if form == "dotseg":  # /a/./b
            parts = dst.split("/")
            parts.insert(2, ".")
            return "/".join(parts)
        if form == "dotdot":  # /a/zz/../b
            parts = dst.split("/")
            parts.insert(2, "zz/..")
            return "/".join(parts)
        raise ValueError(form)

    def filler(self, target_bytes):
        out, size = [], 0
        while size < target_bytes:
            p = self.rng.choice(self.paras)
            out.append("<p>%s</p>\n" % p)
            size += len(p) + 8
        return "".join(out)

    def html(self, path, title, targets, embeds, extra="", size=None):
        """Build a page linking to targets (list of paths) and embedding embeds; record its edges."""
        rng = self.rng
        edges = self.links.setdefault(path, set())
        head = []
        body_links = []
        for e in embeds:
            edges.add(e)
            spelled = self.spell(path, e, rng.choice(("abs", "root", "rel", "dot")))
            if e.endswith(".css"):
                head.append('<link rel="stylesheet" href="%s">' % spelled)
            elif e.endswith(".js"):
                head.append('<script src="%s"></script>' % spelled)
            else:
                body_links.append('<img src="%s" alt="img" width="16" height="16">' % spelled)
        forms = ("abs", "root", "rel", "dot", "rel", "root")
        for t in targets:
            edges.add(t)
            body_links.append('<li><a href="%s">%s</a></li>' % (self.spell(path, t, rng.choice(forms)), t))
        # fragment and duplicate variants of a few targets already linked
        for t in rng.sample(targets, min(4, len(targets))):
            if t.endswith("/"):
                continue
            body_links.append(
                '<li><a href="%s">again</a></li>'
                % self.spell(path, t, rng.choice(("frag", "absfrag", "dotseg", "dotdot", "abs")))
            )
        script_targets = [t for t in targets if not t.endswith("/")][:2]
        script = ""
        if script_targets:
            script = (
                '<script>\nvar related = ["%s", "%s"];\nfunction go(i) { window.location.href = related[i]; }\n'
                "var api = '%s';\n</script>\n"
                % (script_targets[0], self.base + script_targets[-1], script_targets[0])
            )
        doc = (
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n%s\n%s</head>\n<body>\n"
            "<h1 id=\"top\">%s</h1>\n<ul>\n%s\n</ul>\n%s"
            % (title, "\n".join(head), script, title, "\n".join(body_links), extra)
        )
        if size:
            doc += self.filler(size - len(doc) - 20)
        doc += "</body></html>\n"
        self.put(path, doc.encode())

    def put(self, path, data):
        rel = path.lstrip("/")
        if rel == "" or rel.endswith("/"):
            rel += "index.html"
        self.files[rel] = data

    # -- the site ------------------------------------------------------------------------------------------------
    def build(self):
        rng = self.rng
        n = self.n
        pages = [page_path(i) for i in range(n)]
        self.put("/robots.txt", ("User-agent: *\nDisallow: %s\n" % DISALLOWED).encode())

        # assets: CSS reference images (i15..i24 only from CSS), JS mention URLs in strings only
        for k, c in enumerate(self.css):
            imgs = [self.img[15 + (k % 10)], self.img[(k * 3) % 15]]
            self.links[c] = set(imgs)
            body = "body { margin: 0; font: 14px sans-serif }\n"
            for j, im in enumerate(imgs):
                ref = posixpath.relpath(im, posixpath.dirname(c)) if j == 0 else im
                body += ".bg%d { background: url('%s') no-repeat }\n" % (j, ref)
            body += "/* %s */\n" % ("x" * (200 + 50 * k))
            self.put(c, body.encode())
        for k, js in enumerate(self.js):
            self.links[js] = set()
            self.put(js, ("/* module %d */\nvar n%d = %d;\n%s\n" % (k, k, k, "// pad\n" * (20 + 10 * k))).encode())
        for k, im in enumerate(self.img):
            self.links[im] = set()
            self.put(im, png_bytes(8 + 4 * k, 8 + 2 * k, (k * 40 % 256, k * 90 % 256, k * 20 % 256)))

        def embeds():
            return (
                rng.sample(self.css, rng.randint(1, 2))
                + rng.sample(self.js, rng.randint(1, 2))
                + rng.sample(self.img[:15], rng.randint(1, 3))
            )

        outside_html = ""
        if self.outside:
            outside_html = '<p>Elsewhere: <a href="%s/">outside</a>, <a href="%s/page.html">more</a></p>\n' % (
                self.outside,
                self.outside,
            )

        # home page
        home_targets = pages[: min(30, n)] + ["/archive/page/1/"] + self.private[:2]
        self.html("/", "Home", home_targets, self.css[:2] + self.js[:1] + self.img[:2], outside_html, 9000)

        for i, p in enumerate(pages):
            k = rng.randint(20, 40)
            targets = {pages[(i + 1) % n]}
            while len(targets) < min(k, n):
                targets.add(pages[rng.randrange(n)])
            targets.discard(p)
            targets = sorted(targets)
            if rng.random() < 0.15:
                targets.append(rng.choice(self.private))
            if rng.random() < 0.01:
                targets.append(rng.choice(self.missing))
            if i % 97 == 0:
                targets.append("/")
            rng.shuffle(targets)
            extra = outside_html if rng.random() < 0.3 else ""
            self.html(p, "Page %d" % i, targets, embeds(), extra, rng.randint(5000, 20000))

        # the missing pages must exist in the graph so they are linked at least once
        first = pages[0]
        for m in self.missing:
            self.links[first].add(m)
        self.files[first.lstrip("/")] = self.files[first.lstrip("/")].replace(
            b"</body>", b"".join(b'<a href="%s">gone</a>' % m.encode() for m in self.missing) + b"</body>"
        )

        # robots-disallowed pages, linking to pages reachable only through them
        for k, pp in enumerate(self.private):
            self.html(pp, "Private %d" % k, [self.orphans[k], pages[k % n]], [], "", 5000)
        for k, o in enumerate(self.orphans):
            self.html(o, "Orphan %d" % k, [pages[(k * 7) % n]], [], "", 5000)

        # deep paginated chain
        for k in range(1, self.chain + 1):
            cur = "/archive/page/%d/" % k
            targets = ["/"]
            if k < self.chain:
                targets.append("/archive/page/%d/" % (k + 1))
            if k > 1:
                targets.append("/archive/page/%d/" % (k - 1))
            targets.append(pages[(k * 13) % n])
            self.html(cur, "Archive page %d" % k, targets, [self.css[0]], "", 5000)

    def expected(self):
        """Paths a correct crawler fetches: BFS from / over links+embeds+css, skipping robots-disallowed paths."""
        seen = {"/"}
        todo = ["/"]
        while todo:
            cur = todo.pop()
            for t in self.links.get(cur, ()):
                if t.startswith(DISALLOWED) or t in seen:
                    continue
                seen.add(t)
                todo.append(t)
        return sorted(seen)

    def write(self, out):
        for rel, data in self.files.items():
            fp = os.path.join(out, rel)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "wb") as f:
                f.write(data)


def generate(out, base, outside=None, pages=1000, seed=1, chain=100):
    """Write the site into out; return the sorted list of expected URL paths (robots.txt not included)."""
    site = Site(base, outside, pages, seed, chain)
    site.build()
    site.write(out)
    exp = site.expected()
    with open(os.path.join(out, "..", os.path.basename(out.rstrip("/")) + ".expected"), "w") as f:
        f.write("".join(base.rstrip("/") + p + "\n" for p in exp))
    return exp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--base", required=True)
    ap.add_argument("--outside")
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chain", type=int, default=100)
    a = ap.parse_args()
    exp = generate(a.out, a.base, a.outside, a.pages, a.seed, a.chain)
    for p in exp:
        print(a.base.rstrip("/") + p)


if __name__ == "__main__":
    main()
