#!/usr/bin/env python3
"""Convert two public robots.txt conformance suites to JSON Lines.

Sources (see README.md for the commits that were used):

  * google/robotstxt, robots_test.cc (Apache-2.0): every
    EXPECT_TRUE/EXPECT_FALSE(IsUserAgentAllowed(robotstxt, agent, url))
    becomes one case. The test bodies are *evaluated* by a small interpreter
    for the subset of C++ they use (string literals with escapes and adjacent
    literal concatenation, std::string / absl::string_view / size_t / int
    variables with block scoping, absl::StrCat, absl::StrAppend, .length(),
    .size(), std::string(...), + - * comparisons and while loops), so bodies
    that are built in code come out byte for byte as the C++ builds them.
    Every other assertion is listed as skipped, with the reason.
  * google/robotstxt-spec-test, src/main/resources/CTC/**/*.textproto
    (Apache-2.0): protobuf text format, message
    specification.RobotsTxtSpecification; every Expectation becomes one case.

Usage:
  python3 convert.py --google PATH --spec PATH [--out DIR]
                     [--google-commit SHA] [--spec-commit SHA]

  --google  a checkout of google/robotstxt, or robots_test.cc itself
  --spec    a checkout of google/robotstxt-spec-test, or its CTC directory
  --out     output directory (default: the directory of this script)
  --*-commit  if given, LICENSE-google / LICENSE-spec-test are (re)written
            from the checkout's LICENSE with a header naming repo and commit

Writes google.jsonl, spec-test.jsonl, skipped.tsv. Python 3 standard library
only. Each JSONL line:
  {"suite", "name", "robots", "agent", "url", "allowed", "google_specific",
   "note", "source"}
"robots" is the exact body as a JSON string. If a body is not valid UTF-8
(only some BOM cases), "robots" is null and "robots_hex" holds the bytes in
lowercase hex.
"""

import argparse
import json
import os
import re
import sys

# ---------------------------------------------------------------------------
# C++ tokenizer

SIMPLE_ESCAPES = {
    "n": 0x0A, "t": 0x09, "r": 0x0D, "v": 0x0B, "f": 0x0C, "a": 0x07,
    "b": 0x08, "\\": 0x5C, "'": 0x27, '"': 0x22, "?": 0x3F,
}


class ConvertError(Exception):
    pass


def decode_literal(body, line, hex_max_digits=None):
    """Decode the inside of a C++ (or protobuf text format) string literal.

    Non-ASCII source characters become their UTF-8 bytes (the files are
    UTF-8, as is the compilers' default execution charset). C++ hex escapes
    take every following hex digit; protobuf's take at most 2
    (hex_max_digits=2)."""
    out = bytearray()
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        i += 1
        if i >= n:
            raise ConvertError("line %d: dangling backslash" % line)
        c = body[i]
        if c in SIMPLE_ESCAPES:
            out.append(SIMPLE_ESCAPES[c])
            i += 1
        elif c in "01234567":
            j = i
            while j < n and j - i < 3 and body[j] in "01234567":
                j += 1
            v = int(body[i:j], 8)
            if v > 0xFF:
                raise ConvertError("line %d: octal escape out of range" % line)
            out.append(v)
            i = j
        elif c == "x":
            j = i + 1
            while j < n and body[j] in "0123456789abcdefABCDEF" and (
                    hex_max_digits is None or j - (i + 1) < hex_max_digits):
                j += 1
            if j == i + 1:
                raise ConvertError("line %d: \\x without digits" % line)
            v = int(body[i + 1:j], 16)
            if v > 0xFF:
                raise ConvertError("line %d: hex escape out of range" % line)
            out.append(v)
            i = j
        elif c in "uU":
            k = 4 if c == "u" else 8
            digits = body[i + 1:i + 1 + k]
            if len(digits) != k or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise ConvertError("line %d: bad \\%s escape" % (line, c))
            out += chr(int(digits, 16)).encode("utf-8")
            i += 1 + k
        else:
            raise ConvertError("line %d: unknown escape \\%s" % (line, c))
    return bytes(out)


class Tok:
    __slots__ = ("kind", "val", "line")

    def __init__(self, kind, val, line):
        self.kind, self.val, self.line = kind, val, line

    def __repr__(self):
        return "Tok(%s,%r,%d)" % (self.kind, self.val, self.line)


PUNCT3 = ("<<=", ">>=", "...", "->*")
PUNCT2 = ("::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
          "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=")


ID_RE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)*")
LEADING_SCOPE_ID_RE = re.compile(r"::[A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)*")
NUM_RE = re.compile(r"(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)")
TP_ID_RE = re.compile(r"[A-Za-z_][A-Za-z_0-9.]*")
TP_NUM_RE = re.compile(r"-?[0-9][0-9a-zA-Z.+-]*")


def tokenize_cpp(src):
    toks = []
    i, n, line = 0, len(src), 1
    at_line_start = True
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:  # preprocessor line
            while i < n and src[i] != "\n":
                if src[i] == "\\" and i + 1 < n and src[i + 1] == "\n":
                    i += 1
                    line += 1
                i += 1
            continue
        at_line_start = False
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            toks.append(Tok("comment", src[i + 2:j].strip(), line))
            i = j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            if j < 0:
                raise ConvertError("unterminated comment at line %d" % line)
            text = src[i + 2:j]
            toks.append(Tok("comment", text.strip(), line))
            line += text.count("\n")
            i = j + 2
            continue
        m = re.match(r"(u8|u|U|L)?R\"", src[i:i + 4])
        if m:
            raise ConvertError("line %d: raw string literals not supported" % line)
        m = re.match(r"(u8|u|U|L)?\"", src[i:i + 3])
        if m:
            if m.group(1):
                raise ConvertError("line %d: prefixed string literal" % line)
            j = i + 1
            while True:
                if j >= n or src[j] == "\n":
                    raise ConvertError("line %d: unterminated string" % line)
                if src[j] == "\\":
                    j += 2
                    continue
                if src[j] == '"':
                    break
                j += 1
            toks.append(Tok("str", decode_literal(src[i + 1:j], line), line))
            i = j + 1
            continue
        if c == "'":
            j = i + 1
            while src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            b = decode_literal(src[i + 1:j], line)
            toks.append(Tok("char", b, line))
            i = j + 1
            continue
        m = ID_RE.match(src, i)
        if m:
            toks.append(Tok("id", m.group(0), line))
            i += len(m.group(0))
            continue
        if c == ":" and src.startswith("::", i):  # leading ::name
            m = LEADING_SCOPE_ID_RE.match(src, i)
            if m:
                toks.append(Tok("id", m.group(0)[2:], line))
                i += len(m.group(0))
                continue
        m = NUM_RE.match(src, i)
        if m:
            toks.append(Tok("num", int(m.group(1), 0), line))
            i += len(m.group(0))
            continue
        for p in PUNCT3 + PUNCT2:
            if src.startswith(p, i):
                toks.append(Tok("op", p, line))
                i += len(p)
                break
        else:
            toks.append(Tok("op", c, line))
            i += 1
    # Translation phase 6: adjacent string literals are concatenated
    # (comments between them are whitespace and are dropped).
    merged = []
    for t in toks:
        if t.kind == "str":
            k = len(merged) - 1
            while k >= 0 and merged[k].kind == "comment":
                k -= 1
            if k >= 0 and merged[k].kind == "str":
                del merged[k + 1:]
                merged[k] = Tok("str", merged[k].val + t.val, merged[k].line)
                continue
        merged.append(t)
    return merged


# ---------------------------------------------------------------------------
# Expression parser / evaluator for the subset used by robots_test.cc


class Unknown:
    """A value the interpreter cannot compute (e.g. a RobotsStatsReporter)."""

    def __init__(self, why):
        self.why = why


class Parser:
    def __init__(self, toks):
        self.toks = [t for t in toks if t.kind != "comment"]
        self.i = 0

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else Tok("eof", None, -1)

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, val):
        t = self.next()
        if t.val != val:
            raise ConvertError("line %d: expected %r, got %r" % (t.line, val, t.val))
        return t

    BINOPS = [("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="),
              ("+", "-"), ("*", "/", "%")]

    def expr(self, level=0):
        if level == len(self.BINOPS):
            return self.unary()
        lhs = self.expr(level + 1)
        while self.peek().kind == "op" and self.peek().val in self.BINOPS[level]:
            op = self.next().val
            rhs = self.expr(level + 1)
            lhs = ("bin", op, lhs, rhs)
        return lhs

    def unary(self):
        t = self.peek()
        if t.kind == "op" and t.val in ("&", "!", "-", "*"):
            self.next()
            return ("unary", t.val, self.unary())
        return self.postfix()

    def postfix(self):
        node = self.primary()
        while True:
            t = self.peek()
            if t.kind == "op" and t.val == "." and self.peek(1).kind == "id":
                self.next()
                name = self.next().val
                args = self.args() if self.peek().val == "(" else None
                node = ("method", node, name, args)
            else:
                return node

    def args(self):
        self.expect("(")
        out = []
        if self.peek().val == ")":
            self.next()
            return out
        while True:
            out.append(self.expr())
            t = self.next()
            if t.val == ")":
                return out
            if t.val != ",":
                raise ConvertError("line %d: expected , or ) got %r" % (t.line, t.val))

    def primary(self):
        t = self.next()
        if t.kind in ("str", "num", "char"):
            return (t.kind, t.val)
        if t.kind == "id":
            if t.val in ("true", "false"):
                return ("num", 1 if t.val == "true" else 0)
            if t.val == "nullptr":
                return ("null",)
            if self.peek().val == "(":
                return ("call", t.val, self.args(), t.line)
            return ("var", t.val)
        if t.val == "(":
            e = self.expr()
            self.expect(")")
            return e
        raise ConvertError("line %d: unexpected token %r" % (t.line, t.val))


def src_text(node):
    """Compact C++-ish rendering of an AST node (for notes / skip lists)."""
    k = node[0]
    if k == "str":
        return json.dumps(node[1].decode("utf-8", "backslashreplace"), ensure_ascii=False)
    if k in ("num", "char"):
        return repr(node[1])
    if k == "var":
        return node[1]
    if k == "null":
        return "nullptr"
    if k == "call":
        return "%s(%s)" % (node[1], ", ".join(src_text(a) for a in node[2]))
    if k == "method":
        a = "" if node[3] is None else "(%s)" % ", ".join(src_text(x) for x in node[3])
        return "%s.%s%s" % (src_text(node[1]), node[2], a)
    if k == "bin":
        return "%s %s %s" % (src_text(node[2]), node[1], src_text(node[3]))
    if k == "unary":
        return node[1] + src_text(node[2])
    return "?"


class Env:
    def __init__(self, parent=None):
        self.vars, self.parent = {}, parent

    def find(self, name):
        e = self
        while e is not None:
            if name in e.vars:
                return e
            e = e.parent
        return None

    def get(self, name):
        e = self.find(name)
        if e is None:
            raise ConvertError("undefined variable %s" % name)
        return e.vars[name]

    def set(self, name, v):
        e = self.find(name)
        if e is None:
            raise ConvertError("assignment to undeclared %s" % name)
        e.vars[name] = v


def as_bytes(v, what):
    if isinstance(v, Unknown):
        raise ConvertError("%s: %s" % (what, v.why))
    if isinstance(v, bytes):
        return v
    raise ConvertError("%s: not a string (%r)" % (what, v))


def evaluate(node, env):
    k = node[0]
    if k == "str":
        return node[1]
    if k == "num":
        return node[1]
    if k == "char":
        return node[1][0] if len(node[1]) == 1 else Unknown("multi-char literal")
    if k == "null":
        return Unknown("nullptr")
    if k == "var":
        return env.get(node[1])
    if k == "unary":
        op, x = node[1], node[2]
        if op == "&":
            if x[0] != "var":
                raise ConvertError("& of non-variable")
            return ("ref", x[1])
        v = evaluate(x, env)
        if isinstance(v, Unknown):
            return v
        if op == "!":
            return int(not v)
        if op == "-":
            return -v
        raise ConvertError("unsupported unary %s" % op)
    if k == "bin":
        op = node[1]
        a, b = evaluate(node[2], env), evaluate(node[3], env)
        for v in (a, b):
            if isinstance(v, Unknown):
                return v
        if op == "+":
            if isinstance(a, bytes) and isinstance(b, bytes):
                return a + b
            if isinstance(a, int) and isinstance(b, int):
                return a + b
            raise ConvertError("+ on mixed types")
        if not (isinstance(a, int) and isinstance(b, int)):
            if op in ("==", "!=") and isinstance(a, bytes) and isinstance(b, bytes):
                return int((a == b) == (op == "=="))
            raise ConvertError("%s on non-integers" % op)
        if op in ("/", "%") and b == 0:
            raise ConvertError("division by zero")
        return {
            "-": lambda: a - b, "*": lambda: a * b, "/": lambda: int(a / b),
            "%": lambda: a % b, "<": lambda: int(a < b), ">": lambda: int(a > b),
            "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
            "==": lambda: int(a == b), "!=": lambda: int(a != b),
            "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
        }[op]()
    if k == "method":
        obj = evaluate(node[1], env)
        name, args = node[2], node[3]
        if isinstance(obj, Unknown):
            return obj
        if name in ("length", "size") and args == [] and isinstance(obj, bytes):
            return len(obj)
        if name == "c_str" and args == [] and isinstance(obj, bytes):
            return obj
        raise ConvertError("unsupported method .%s" % name)
    if k == "call":
        fn, args = node[1], node[2]
        if fn in ("std::string", "absl::string_view"):
            if not args:
                return b""
            if len(args) == 1:
                return as_bytes(evaluate(args[0], env), fn)
            raise ConvertError("%s with %d args" % (fn, len(args)))
        if fn in ("absl::StrCat", "StrCat"):
            return b"".join(piece_bytes(evaluate(a, env)) for a in args)
        if fn in ("absl::StrAppend", "StrAppend"):
            ref = evaluate(args[0], env)
            if not (isinstance(ref, tuple) and ref[0] == "ref"):
                raise ConvertError("StrAppend needs &var")
            cur = as_bytes(env.get(ref[1]), "StrAppend target")
            env.set(ref[1], cur + b"".join(piece_bytes(evaluate(a, env)) for a in args[1:]))
            return None
        raise ConvertError("unsupported call %s" % fn)
    raise ConvertError("unsupported node %s" % k)


def piece_bytes(v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, int):  # absl::StrCat(int) formats in decimal
        return str(v).encode()
    raise ConvertError("StrCat piece %r" % (v.why if isinstance(v, Unknown) else v))


# ---------------------------------------------------------------------------
# robots_test.cc driver

ALLOW_FUNCS = {"IsUserAgentAllowed"}  # file-local wrapper of OneAgentAllowedByRobots
GOOGLE_COMMENT_RE = re.compile(r"google[- ]specific", re.I)

# Tests whose leading comment says "Google specific" about one part of the
# test only. Only cases whose robots.txt argument is the named variable are
# marked google_specific; the others test plain RFC 9309 behaviour.
GOOGLE_SPECIFIC_ONLY_FOR = {
    "ID_LineSyntax_Line": (
        "robotstxt_incorrect_accepted",
        "Google-specific (per the test's comment): a missing colon after "
        "the directive name is assumed"),
}

SKIP_REASONS = [
    (re.compile(r"IsValidUserAgentToObey"),
     "tests RobotsMatcher::IsValidUserAgentToObey (user-agent token validity), not allow/disallow"),
    (re.compile(r"\breport\."),
     "tests parser callbacks via RobotsStatsReporter (directive/line counts, sitemap value), not allow/disallow"),
    (re.compile(r"^TestPath\("),
     "tests internal GetPathParamsQuery (URL to path+params+query extraction), not allow/disallow"),
    (re.compile(r"^TestEscape\("),
     "tests internal MaybeEscapePattern (percent-escaping of patterns), not allow/disallow"),
]


def skip_reason(text):
    for rx, why in SKIP_REASONS:
        if rx.search(text):
            return why
    return "not an allow/disallow assertion"


def split_tests(toks):
    """Yield (name, leading_comment, body_tokens) for each TEST(...) { }."""
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "id" and t.val in ("TEST", "TEST_F") and toks[i + 1].val == "(":
            name = toks[i + 4].val
            if toks[i + 5].val != ")" or toks[i + 6].val != "{":
                raise ConvertError("line %d: odd TEST header" % t.line)
            lead = []
            k = i - 1
            while k >= 0 and toks[k].kind == "comment":
                lead.insert(0, toks[k].val)
                k -= 1
            depth, j = 1, i + 7
            while depth:
                if toks[j].kind == "op" and toks[j].val == "{":
                    depth += 1
                elif toks[j].kind == "op" and toks[j].val == "}":
                    depth -= 1
                j += 1
            yield name, " ".join(lead), toks[i + 7:j - 1], t.line
            i = j
        else:
            i += 1


DECL_QUALS = {"const", "static", "constexpr", "volatile", "unsigned", "signed"}
STRING_TYPES = {"std::string", "absl::string_view", "string", "char"}
INT_TYPES = {"size_t", "int", "long", "short", "bool", "int64_t", "uint64_t"}


class TestRunner:
    def __init__(self, test_name, google_specific, src_name):
        self.test = test_name
        self.gs = google_specific
        self.src_name = src_name
        self.cases = []
        self.skipped = []
        self.pending_comment = []

    def run(self, toks):
        self.block(toks, 0, len(toks), Env())

    def stmt_end(self, toks, i, end):
        depth = 0
        j = i
        while j < end:
            t = toks[j]
            if t.kind == "op" and t.val in "({[":
                depth += 1
            elif t.kind == "op" and t.val in ")}]":
                depth -= 1
            elif t.kind == "op" and t.val == ";" and depth == 0:
                return j
            j += 1
        raise ConvertError("line %d: statement without ;" % toks[i].line)

    def match_brace(self, toks, i):
        depth = 0
        j = i
        while True:
            if toks[j].kind == "op" and toks[j].val == "{":
                depth += 1
            elif toks[j].kind == "op" and toks[j].val == "}":
                depth -= 1
                if depth == 0:
                    return j
            j += 1

    def block(self, toks, i, end, env):
        while i < end:
            t = toks[i]
            if t.kind == "comment":
                self.pending_comment.append(t.val)
                i += 1
                continue
            if t.kind == "op" and t.val == "{":
                j = self.match_brace(toks, i)
                self.block(toks, i + 1, j, Env(env))
                self.pending_comment = []
                i = j + 1
                continue
            if t.kind == "id" and t.val == "while":
                i = self.while_loop(toks, i, end, env)
                continue
            j = self.stmt_end(toks, i, end)
            self.statement(toks[i:j], env)
            i = j + 1

    def while_loop(self, toks, i, end, env):
        # while ( cond ) { body }   (or a single statement body)
        depth, j = 0, i + 1
        while True:
            if toks[j].val == "(":
                depth += 1
            elif toks[j].val == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        cond = Parser(toks[i + 2:j]).expr()
        if toks[j + 1].val == "{":
            b0, b1 = j + 2, self.match_brace(toks, j + 1)
            after = b1 + 1
        else:
            b0 = j + 1
            b1 = self.stmt_end(toks, b0, end) + 1
            after = b1
        for _ in range(10_000_000):
            c = evaluate(cond, env)
            if isinstance(c, Unknown):
                raise ConvertError("while condition unknown: %s" % c.why)
            if not c:
                return after
            self.block(toks, b0, b1, Env(env))
        raise ConvertError("line %d: loop did not terminate" % toks[i].line)

    def statement(self, st, env):
        code = [t for t in st if t.kind != "comment"]
        if not code:
            return
        line = code[0].line
        # declaration?  [quals] Type [*|&] name [ [] ] [= init]
        k = 0
        while k < len(code) and code[k].kind == "id" and code[k].val in DECL_QUALS:
            k += 1
        if (k < len(code) - 1 and code[k].kind == "id"
                and (code[k + 1].kind == "id" or (code[k + 1].val in ("*", "&")
                                                  and k + 2 < len(code)
                                                  and code[k + 2].kind == "id"))):
            typ = code[k].val
            k += 1
            while code[k].val in ("*", "&"):
                k += 1
            name = code[k].val
            k += 1
            if k < len(code) and code[k].val == "[":
                while code[k].val != "]":
                    k += 1
                k += 1
            if k == len(code):
                if typ in STRING_TYPES:
                    val = b""
                else:
                    val = Unknown("%s %s has no computable value" % (typ, name))
            elif code[k].val == "=":
                try:
                    p = Parser(code[k + 1:])
                    val = evaluate(p.expr(), env)
                    if p.peek().kind != "eof":
                        raise ConvertError("trailing tokens")
                except ConvertError as e:
                    val = Unknown("initializer of %s (line %d): %s" % (name, line, e))
            else:
                val = Unknown("%s %s: unsupported declaration" % (typ, name))
            env.vars[name] = val
            return
        if code[0].kind == "id" and code[0].val in ("EXPECT_TRUE", "EXPECT_FALSE",
                                                    "ASSERT_TRUE", "ASSERT_FALSE"):
            expected = code[0].val.endswith("TRUE")
            p = Parser(code[1:])
            p.expect("(")
            inner = p.expr()
            p.expect(")")
            self.assertion(inner, expected, env, line, code[0].val)
            return
        if code[0].kind == "id" and (code[0].val.startswith("EXPECT_")
                                     or code[0].val.startswith("ASSERT_")
                                     or code[0].val in ("TestPath", "TestEscape")):
            text = "%s(...)" % code[0].val
            try:
                text = src_text(Parser(code).expr())
            except ConvertError:
                pass
            self.skip(line, text, skip_reason(text))
            return
        # plain expression statement (StrAppend, assignment, setup calls)
        if len(code) > 2 and code[0].kind == "id" and code[1].val == "=":
            try:
                val = evaluate(Parser(code[2:]).expr(), env)
            except ConvertError as e:
                val = Unknown("assignment line %d: %s" % (line, e))
            env.set(code[0].val, val)
            return
        node = Parser(code).expr()
        if node[0] == "call" and node[1] in ("absl::StrAppend", "StrAppend"):
            try:
                evaluate(node, env)
            except ConvertError as e:
                ref = node[2][0]
                if ref[0] == "unary" and ref[2][0] == "var":
                    env.set(ref[2][1], Unknown("StrAppend line %d: %s" % (line, e)))
            return
        # anything else (e.g. googlebot::ParseRobotsTxt(...)) is setup for
        # skipped assertions; nothing to evaluate.

    def skip(self, line, text, why):
        self.skipped.append({"test": self.test, "source": "%s:%d" % (self.src_name, line),
                             "assertion": text, "reason": why})

    def assertion(self, inner, expected, env, line, macro):
        text = "%s(%s)" % (macro, src_text(inner))
        if not (inner[0] == "call" and inner[1] in ALLOW_FUNCS):
            self.skip(line, text, skip_reason(src_text(inner)))
            return
        args = inner[2]
        if len(args) != 3:
            self.skip(line, text, "unexpected arity")
            return
        try:
            robots = as_bytes(evaluate(args[0], env), "robots.txt argument")
            agent = as_bytes(evaluate(args[1], env), "user-agent argument")
            url = as_bytes(evaluate(args[2], env), "url argument")
        except ConvertError as e:
            self.skip(line, text, "could not evaluate faithfully: %s" % e)
            return
        gs = self.gs
        note_parts = list(self.pending_comment)
        self.pending_comment = []
        if self.test in GOOGLE_SPECIFIC_ONLY_FOR:
            var, why = GOOGLE_SPECIFIC_ONLY_FOR[self.test]
            gs = args[0] == ("var", var)
            if gs:
                note_parts.append(why)
        if any(GOOGLE_COMMENT_RE.search(c) for c in note_parts):
            gs = True
        self.cases.append({
            "robots": robots, "agent": agent, "url": url, "allowed": expected,
            "google_specific": gs, "note": " ".join(note_parts),
            "source": "%s:%d" % (self.src_name, line),
            "_args": [src_text(a) for a in args],
        })


def convert_google(path):
    src = open(path, encoding="utf-8").read()
    toks = tokenize_cpp(src)
    cases, skipped = [], []
    for name, lead, body, line in split_tests(toks):
        gs = name.startswith("GoogleOnly_") or (
            bool(GOOGLE_COMMENT_RE.search(lead)) and name not in GOOGLE_SPECIFIC_ONLY_FOR)
        r = TestRunner(name, gs, os.path.basename(path))
        r.run(body)
        for n, c in enumerate(r.cases, 1):
            c["name"] = "%s#%d" % (name, n)
            c["test"] = name
            cases.append(c)
        skipped += r.skipped
    return cases, skipped


# ---------------------------------------------------------------------------
# protobuf text format (robotstxt-spec-test)


def tokenize_textproto(src, fname):
    toks = []
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif c == "#":
            while i < n and src[i] != "\n":
                i += 1
        elif c in "\"'":
            j = i + 1
            while src[j] != c:
                if src[j] == "\n":
                    raise ConvertError("%s:%d: newline in string" % (fname, line))
                j += 2 if src[j] == "\\" else 1
            b = decode_literal(src[i + 1:j], line, hex_max_digits=2)
            if toks and toks[-1].kind == "str":  # adjacent strings concatenate
                toks[-1] = Tok("str", toks[-1].val + b, toks[-1].line)
            else:
                toks.append(Tok("str", b, line))
            i = j + 1
        elif re.match(r"[A-Za-z_]", c):
            m = TP_ID_RE.match(src, i)
            toks.append(Tok("id", m.group(0), line))
            i += len(m.group(0))
        elif re.match(r"[-0-9]", c):
            m = TP_NUM_RE.match(src, i)
            toks.append(Tok("num", m.group(0), line))
            i += len(m.group(0))
        else:
            toks.append(Tok("op", c, line))
            i += 1
    return toks


def parse_textproto(toks):
    """Returns a message as {field: [values]}; values are bytes (strings),
    str (enum identifiers / numbers) or dicts (messages). Each dict also has
    '__line__'."""
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else Tok("eof", None, -1)

    def nxt():
        t = peek()
        pos[0] += 1
        return t

    def message(close):
        msg = {"__line__": peek().line}
        while True:
            t = peek()
            if (close is None and t.kind == "eof") or (t.kind == "op" and t.val == close):
                nxt()
                return msg
            if t.kind != "id":
                raise ConvertError("line %d: expected field name, got %r" % (t.line, t.val))
            name = nxt().val
            if peek().val == ":":
                nxt()
            vals = msg.setdefault(name, [])
            if peek().val == "[":
                nxt()
                while peek().val != "]":
                    vals.append(value())
                    if peek().val == ",":
                        nxt()
                nxt()
            else:
                vals.append(value())
            if peek().val in (",", ";"):
                nxt()

    def value():
        t = nxt()
        if t.kind == "op" and t.val in ("{", "<"):
            return message("}" if t.val == "{" else ">")
        if t.kind == "str":
            return t.val
        if t.kind in ("id", "num"):
            return t.val
        raise ConvertError("line %d: bad value %r" % (t.line, t.val))

    return message(None)


def convert_spec(ctc_dir):
    files = []
    for root, _, names in os.walk(ctc_dir):
        for f in names:
            if f.endswith(".textproto"):
                files.append(os.path.join(root, f))
    files.sort(key=lambda p: os.path.relpath(p, ctc_dir))
    cases, skipped = [], []
    for path in files:
        rel = os.path.relpath(path, ctc_dir).replace(os.sep, "/")
        name = rel[:-len(".textproto")]
        srcname = "src/main/resources/CTC/" + rel
        spec = parse_textproto(tokenize_textproto(open(path, encoding="utf-8").read(), rel))
        n = 0
        for test in spec.get("tests", []):
            robots = test.get("robotstxt", [b""])[-1]
            for exp in test.get("test_expectations", []):
                n += 1
                outcome = exp.get("expected_outcome", ["UNSPECIFIED"])[-1]
                line = exp["__line__"]
                if outcome not in ("ALLOWED", "DISALLOWED"):
                    skipped.append({"test": name, "source": "%s:%d" % (srcname, line),
                                    "assertion": "expected_outcome: %s" % outcome,
                                    "reason": "no allow/disallow outcome"})
                    continue
                ttype = exp.get("test_type", ["STANDARD"])[-1]
                cases.append({
                    "name": "%s#%d" % (name, n), "test": name,
                    "robots": robots,
                    "agent": exp.get("useragent", [b""])[-1],
                    "url": exp.get("testurl", [b""])[-1],
                    "allowed": outcome == "ALLOWED",
                    "google_specific": ttype == "GOOGLE_SPECIFIC",
                    "note": exp.get("additional_explanation", [b""])[-1].decode(
                        "utf-8", "backslashreplace"),
                    "source": "%s:%d" % (srcname, line),
                })
    return cases, skipped


# ---------------------------------------------------------------------------
# output


def to_json_line(suite, c):
    obj = {"suite": suite, "name": c["name"]}
    try:
        obj["robots"] = c["robots"].decode("utf-8")
    except UnicodeDecodeError:
        obj["robots"] = None
        obj["robots_hex"] = c["robots"].hex()
    # agent and url must be text; fail loudly otherwise
    obj["agent"] = c["agent"].decode("utf-8")
    obj["url"] = c["url"].decode("utf-8")
    obj["allowed"] = c["allowed"]
    obj["google_specific"] = c["google_specific"]
    if c.get("note"):
        obj["note"] = c["note"]
    obj["source"] = c["source"]
    return json.dumps(obj, ensure_ascii=False)


def write_license(src_root, out_path, repo, commit):
    text = open(os.path.join(src_root, "LICENSE"), encoding="utf-8").read()
    with open(out_path, "w", encoding="utf-8", newline="\n") as f:
        f.write("The following licence text is the file LICENSE of https://github.com/%s "
                "at commit %s.\n\n" % (repo, commit))
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--google", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--google-commit")
    ap.add_argument("--spec-commit")
    a = ap.parse_args()

    gpath = a.google
    groot = None
    if os.path.isdir(gpath):
        groot, gpath = gpath, os.path.join(gpath, "robots_test.cc")
    spath = a.spec
    sroot = None
    if os.path.isdir(os.path.join(spath, "src/main/resources/CTC")):
        sroot, spath = spath, os.path.join(spath, "src/main/resources/CTC")

    gcases, gskipped = convert_google(gpath)
    scases, sskipped = convert_spec(spath)

    os.makedirs(a.out, exist_ok=True)
    for fname, suite, cases in (("google.jsonl", "google/robotstxt", gcases),
                                ("spec-test.jsonl", "google/robotstxt-spec-test", scases)):
        with open(os.path.join(a.out, fname), "w", encoding="utf-8", newline="\n") as f:
            for c in cases:
                f.write(to_json_line(suite, c) + "\n")
    with open(os.path.join(a.out, "skipped.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("suite\ttest\tsource\tassertion\treason\n")
        for suite, rows in (("google/robotstxt", gskipped),
                            ("google/robotstxt-spec-test", sskipped)):
            for r in rows:
                f.write("\t".join([suite, r["test"], r["source"],
                                   r["assertion"].replace("\t", " "), r["reason"]]) + "\n")
    if a.google_commit and groot:
        write_license(groot, os.path.join(a.out, "LICENSE-google"),
                      "google/robotstxt", a.google_commit)
    if a.spec_commit and sroot:
        write_license(sroot, os.path.join(a.out, "LICENSE-spec-test"),
                      "google/robotstxt-spec-test", a.spec_commit)

    def summary(label, cases, skipped):
        tests = {}
        for c in cases:
            tests.setdefault(c["test"], [0, 0])
            tests[c["test"]][0] += 1
            tests[c["test"]][1] += c["google_specific"]
        print("%s: %d cases (%d google_specific) from %d tests; %d assertions skipped"
              % (label, len(cases), sum(c["google_specific"] for c in cases),
                 len(tests), len(skipped)))
        for t, (n, g) in tests.items():
            print("  %-45s %4d cases, %4d google_specific" % (t, n, g))
        by = {}
        for s in skipped:
            by.setdefault((s["test"], s["reason"]), 0)
            by[(s["test"], s["reason"])] += 1
        for (t, why), n in by.items():
            print("  skipped %-37s %4d  %s" % (t, n, why))

    summary("google/robotstxt", gcases, gskipped)
    summary("google/robotstxt-spec-test", scases, sskipped)


if __name__ == "__main__":
    try:
        main()
    except ConvertError as e:
        sys.exit("convert.py: %s" % e)
