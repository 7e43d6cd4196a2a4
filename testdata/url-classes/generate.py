#!/usr/bin/env python3
"""Regenerate classes.toml and cases.json in this folder from hydrus network's own code.

    python3 testdata/url-classes/generate.py HYDRUS_SOURCE_DIR [--out DIR]

HYDRUS_SOURCE_DIR is a source tree of hydrus network (github hydrusnetwork/hydrus) at tag v665, the last
version that ships its default URL classes (static/default/url_classes/*.png; v666 deleted them), e.g.

    git clone https://github.com/hydrusnetwork/hydrus && git -C hydrus archive v665 | tar -x -C /tmp/hydrus-v665

Nothing but the Python 3 standard library is needed: hydrus's optional and GUI dependencies (Qt, numpy, OpenCV,
PIL, yaml, ...) are replaced by inert stubs, and the one thing OpenCV does here, reading a PNG's pixels, is done
by a small pure-Python PNG reader. Everything else is hydrus's own code, unchanged:

- the classes are loaded by ClientDefaults.GetDefaultURLClasses() (ClientSerialisable.LoadFromPNG ->
  LoadFromNumPyImage -> HydrusSerialisable.CreateFromNetworkBytes);
- the class a URL gets is NetworkDomainManager.GetURLClass() of a domain manager holding exactly the classes
  written to classes.toml (SetURLClasses), so hydrus's own class ordering decides;
- normalised = URLClass.Normalise(url), for_server = URLClass.Normalise(url, for_server = True),
  api_url = URLClass.GetAPIURL(url) when the class UsesAPIURL() (one step, as trawl's api_url),
  next_page = URLClass.GetNextGalleryPage(url) when CanGenerateNextGalleryPage(); null when hydrus raises.

ClientNetworkingFunctions.ConvertPathTextToList reads the client option 'remove_leading_url_double_slashes'; the
stub controller answers it (and any other boolean option) with the default written in hydrus's ClientOptions.py
(False: only one leading '/' is dropped).

The Rust tests read only the generated files; this script is not needed to build or test trawl.
"""

import argparse
import importlib.abc
import importlib.machinery
import json
import os
import re
import struct
import sys
import tempfile
import types
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------------------------
# 1. import hydrus with inert stubs for the modules that are not needed to load and apply URL classes

STUBBED_TOP_LEVEL_MODULES = {
    'yaml', 'numpy', 'qtpy', 'PyQt6', 'PySide6', 'cv2', 'PIL', 'psutil', 'lz4', 'send2trash', 'mpv', 'dateparser',
    'dateutil', 'requests', 'urllib3', 'twisted', 'html5lib', 'lxml', 'bs4', 'chardet', 'olefile', 'pillow_heif',
    'cbor2', 'show_in_file_manager', 'qtawesome', 'pympler', 'av', 'socks', 'certifi',
}


class _Anything:
    """Stands for any attribute of a stubbed module: callable, subclassable, attribute-rich and inert."""

    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return _Anything()

    def __call__(self, *a, **k):
        return _Anything()

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __iter__(self):
        return iter(())

    def __mro_entries__(self, bases):
        return (object,)


class _StubModule(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return _Anything()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in STUBBED_TOP_LEVEL_MODULES:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        pass


class _Image:
    """The little of a numpy array that ClientSerialisable.LoadFromNumPyImage uses."""

    def __init__(self, width, height, channels, data):
        self.shape = (height, width) if channels == 1 else (height, width, channels)
        self._data = data

    def tobytes(self):
        return self._data

    def __getitem__(self, key):  # numpy_image[:,:,0]
        (height, width, channels) = self.shape
        return _Image(width, height, 1, self._data[0::channels])

    def copy(self):
        return self


def read_png(path, flags=None):
    """cv2.imread(path, IMREAD_UNCHANGED) for the 8-bit, non-interlaced PNGs hydrus writes."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        return None
    i = 8
    idat = b''
    while i < len(data):
        (length,) = struct.unpack('>I', data[i:i + 4])
        chunk_type = data[i + 4:i + 8]
        body = data[i + 8:i + 8 + length]
        if chunk_type == b'IHDR':
            (width, height, depth, colour_type, _, _, interlace) = struct.unpack('>IIBBBBB', body)
        elif chunk_type == b'IDAT':
            idat += body
        i += 12 + length
    if depth != 8 or interlace != 0 or colour_type not in (0, 2, 4, 6):
        return None
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    raw = zlib.decompress(idat)
    stride = width * channels
    out = bytearray()
    prev = bytearray(stride)
    p = 0
    for _ in range(height):
        filter_type = raw[p]
        line = bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if filter_type == 1:
                line[x] = (line[x] + a) & 255
            elif filter_type == 2:
                line[x] = (line[x] + b) & 255
            elif filter_type == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif filter_type == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return _Image(width, height, channels, bytes(out))


def import_hydrus(hydrus_dir):
    sys.path.insert(0, hydrus_dir)
    sys.meta_path.insert(0, _StubFinder())

    import cv2
    cv2.imread = read_png
    cv2.IMREAD_UNCHANGED = -1

    options_source = open(os.path.join(hydrus_dir, 'hydrus', 'client', 'ClientOptions.py'), encoding='utf-8').read()

    class Options:
        def GetBoolean(self, name):
            m = re.search(r"'" + re.escape(name) + r"'\s*:\s*(True|False)", options_source)
            if m is None:
                raise KeyError(name)
            return m.group(1) == 'True'

    class ClientController:
        new_options = Options()

    class Controller:
        def GetHydrusTempDir(self):
            return tempfile.gettempdir()

        def GetDBDir(self):
            return os.path.join(tempfile.gettempdir(), 'no-such-hydrus-db-dir')  # so the install's static dir is used

    from hydrus.core import HydrusGlobals as HG
    from hydrus.client import ClientGlobals as CG
    HG.controller = Controller()
    CG.client_controller = ClientController()

    from hydrus.core import HydrusConstants as HC
    from hydrus.client import ClientDefaults, ClientStrings
    from hydrus.client.networking import ClientNetworkingURLClass as UC
    from hydrus.client.networking import ClientNetworkingDomain as ND

    return types.SimpleNamespace(HC=HC, ClientDefaults=ClientDefaults, CS=ClientStrings, UC=UC, ND=ND,
                                 version=HC.SOFTWARE_VERSION)


# ---------------------------------------------------------------------------------------------------------------
# 2. hydrus class -> trawl [[url_class]] table


class NotExpressible(Exception):
    pass


# Python regex syntax that neither the regex crate nor fancy-regex reads the same way.
PYTHON_ONLY_REGEX = [
    (r'\\Z', r'\Z (the regex crate spells it \z)'),
    (r'\(\?P=', '(?P=name) back-reference'),
    (r'\(\?\(', 'conditional group'),
    (r'\(\?>', 'atomic group'),
    (r'[*+?}][+]', 'possessive quantifier'),
    (r'\(\?[aLu]', 'Python-only inline flag'),
    (r'\\[<>]', r'\< or \> (literal in Python, word boundaries in the regex crate)'),
]


def check_regex(pattern, field):
    for (syntax, what) in PYTHON_ONLY_REGEX:
        if re.search(syntax, pattern):
            raise NotExpressible(f'{field}: regex {pattern!r} uses {what}')
    try:
        re.compile(pattern)
    except re.error as e:
        raise NotExpressible(f'{field}: regex {pattern!r} does not compile: {e}')


def python_repl_to_rust(repl, field):
    """Python re.sub replacement text -> the regex crate's: \\1 and \\g<..> -> ${..}, '$' -> '$$'."""
    out = []
    i = 0
    simple_escapes = {'n': '\n', 't': '\t', 'r': '\r', 'f': '\f', 'v': '\v', 'a': '\a', 'b': '\b', '\\': '\\'}
    while i < len(repl):
        ch = repl[i]
        if ch == '$':
            out.append('$$')
            i += 1
        elif ch == '\\' and i + 1 < len(repl):
            nxt = repl[i + 1]
            if nxt.isdigit():
                m = re.match(r'\d{1,2}', repl[i + 1:])
                out.append('${' + str(int(m.group(0))) + '}')
                i += 1 + len(m.group(0))
            elif nxt == 'g':
                m = re.match(r'g<([^>]+)>', repl[i + 1:])
                if m is None:
                    raise NotExpressible(f'{field}: bad \\g in replacement {repl!r}')
                name = m.group(1)
                out.append('${' + (str(int(name)) if name.isdigit() else name) + '}')
                i += 1 + len(m.group(0))
            elif nxt in simple_escapes:
                out.append(simple_escapes[nxt])
                i += 2
            elif nxt.isascii() and nxt.isalpha():
                raise NotExpressible(f'{field}: replacement {repl!r} has the escape \\{nxt}')
            else:  # Python leaves other escapes alone: backslash and all
                out.append('\\' + nxt)
                i += 2
        else:
            out.append(ch)
            i += 1
    return ''.join(out)


def rust_expand(template, m):
    """The regex crate's Captures::expand for templates made by python_repl_to_rust, to check the translation."""
    out = []
    i = 0
    while i < len(template):
        if template.startswith('$$', i):
            out.append('$')
            i += 2
        elif template.startswith('${', i):
            j = template.index('}', i)
            name = template[i + 2:j]
            out.append(m.group(int(name) if name.isdigit() else name) or '')
            i = j + 1
        else:
            out.append(template[i])
            i += 1
    return ''.join(out)


def convert_string_match(h, string_match, field):
    CS = h.CS
    (match_type, match_value, min_chars, max_chars, _example) = string_match.ToTuple()
    d = {}
    if match_type == CS.STRING_MATCH_FIXED:
        if '%' in match_value:
            raise NotExpressible(f'{field}: fixed value {match_value!r} has a %, which trawl compares decoded')
        d['match'] = 'fixed'
        d['value'] = match_value
    elif match_type == CS.STRING_MATCH_FLEXIBLE:
        simple = {CS.FLEXIBLE_MATCH_ALPHA: 'alpha', CS.FLEXIBLE_MATCH_ALPHANUMERIC: 'alphanumeric',
                  CS.FLEXIBLE_MATCH_NUMERIC: 'numeric'}
        as_regex = {CS.FLEXIBLE_MATCH_HEX: r'^[\da-fA-F]+$', CS.FLEXIBLE_MATCH_BASE64: r'^[a-zA-Z\d+/]+={0,2}$',
                    CS.FLEXIBLE_MATCH_BASE64_URL_ENCODED: r'^([a-zA-Z\d]|%2B|%2F)+(%3D){0,2}$',
                    CS.FLEXIBLE_MATCH_BASE64URL: r'^[a-zA-Z\d\-_]+={0,2}$'}
        if match_value in simple:
            d['match'] = simple[match_value]
        elif match_value in as_regex:
            d['match'] = 'regex'
            d['value'] = as_regex[match_value]
        else:
            raise NotExpressible(f'{field}: unknown flexible match {match_value!r}')
    elif match_type == CS.STRING_MATCH_REGEX:
        check_regex(match_value, field)
        d['match'] = 'regex'
        d['value'] = match_value
    elif match_type == CS.STRING_MATCH_ANY:
        d['match'] = 'any'
    else:
        raise NotExpressible(f'{field}: unknown string match type {match_type!r}')
    if min_chars is not None:
        d['min_chars'] = min_chars
    if max_chars is not None:
        d['max_chars'] = max_chars
    return d


def convert_converter(h, converter, field):
    CS = h.CS
    steps = []
    encodings = {CS.ENCODING_TYPE_URL_PERCENT: 'percent', CS.ENCODING_TYPE_HEX_UTF8: 'hex',
                 CS.ENCODING_TYPE_BASE64_UTF8: 'base64'}
    for (n, (conversion_type, data)) in enumerate(converter.conversions):
        f = f'{field}[{n}]'
        if conversion_type == CS.STRING_CONVERSION_REMOVE_TEXT_FROM_BEGINNING:
            steps.append({'remove_start': data})
        elif conversion_type == CS.STRING_CONVERSION_REMOVE_TEXT_FROM_END:
            if data == 0:
                raise NotExpressible(f'{f}: hydrus "remove 0 from end" empties the string (s[:-0])')
            steps.append({'remove_end': data})
        elif conversion_type == CS.STRING_CONVERSION_CLIP_TEXT_FROM_BEGINNING:
            steps.append({'keep_start': data})
        elif conversion_type == CS.STRING_CONVERSION_CLIP_TEXT_FROM_END:
            if data == 0:
                raise NotExpressible(f'{f}: hydrus "keep 0 from end" keeps everything (s[-0:])')
            steps.append({'keep_end': data})
        elif conversion_type == CS.STRING_CONVERSION_PREPEND_TEXT:
            steps.append({'prepend': data})
        elif conversion_type == CS.STRING_CONVERSION_APPEND_TEXT:
            steps.append({'append': data})
        elif conversion_type in (CS.STRING_CONVERSION_ENCODE, CS.STRING_CONVERSION_DECODE):
            if data not in encodings:
                raise NotExpressible(f'{f}: encoding {CS.encoding_type_str_lookup.get(data, data)!r} is not in trawl')
            key = 'encode' if conversion_type == CS.STRING_CONVERSION_ENCODE else 'decode'
            steps.append({key: encodings[data]})
        elif conversion_type == CS.STRING_CONVERSION_REVERSE:
            steps.append('reverse')
        elif conversion_type == CS.STRING_CONVERSION_REGEX_SUB:
            (pattern, repl) = data
            check_regex(pattern, f)
            steps.append({'regex_sub': {'pattern': pattern, 'replace': python_repl_to_rust(repl, f)}})
        elif conversion_type == CS.STRING_CONVERSION_INTEGER_ADDITION:
            steps.append({'add_integer': int(data)})
        elif conversion_type == CS.STRING_CONVERSION_HASH_FUNCTION:
            steps.append({'hash': data})
        else:
            raise NotExpressible(f'{f}: conversion {CS.conversion_type_str_lookup.get(conversion_type)!r} is not in trawl')
    return steps


def check_converter_translation(converter, steps, sample, field):
    """Replays the translated steps, regex_sub with the regex crate's template semantics, against hydrus's own
    Convert of the same sample, and refuses regexes that can match the empty string (Python's re.sub and the regex
    crate's replace_all place such matches differently)."""
    s = sample
    for (step, conversion) in zip(steps, converter.conversions):
        if isinstance(step, dict) and 'regex_sub' in step:
            pattern = step['regex_sub']['pattern']
            if re.search(pattern, '') is not None or any(m.start() == m.end() for m in re.finditer(pattern, s)):
                raise NotExpressible(f'{field}: regex {pattern!r} can match the empty string, where Python and the '
                                     'regex crate place replacements differently')
            s = re.sub(pattern, lambda m: rust_expand(step['regex_sub']['replace'], m), s)
        else:
            s = type(converter)(conversions=[conversion]).Convert(s)
    want = converter.Convert(sample)
    if s != want:
        raise NotExpressible(f'{field}: translated converter gives {s!r}, hydrus gives {want!r}')


def convert_class(h, uc):
    HC, UC = h.HC, h.UC
    name = uc.GetName()
    kinds = {HC.URL_TYPE_FILE: 'file', HC.URL_TYPE_POST: 'post', HC.URL_TYPE_GALLERY: 'gallery',
             HC.URL_TYPE_WATCHABLE: 'watchable'}
    if uc.GetURLType() not in kinds:
        raise NotExpressible(f'url type {HC.url_type_string_lookup.get(uc.GetURLType(), uc.GetURLType())!r} is not a trawl kind')
    if uc.GetPreferredScheme() not in ('http', 'https'):
        raise NotExpressible(f'preferred scheme {uc.GetPreferredScheme()!r}')
    if uc.GetHeaderOverrides():
        raise NotExpressible(f'header overrides {uc.GetHeaderOverrides()!r} (not in trawl\'s schema)')
    (send_referral, _referral_converter) = uc.GetReferralURLInfo()
    if send_referral != UC.SEND_REFERRAL_URL_ONLY_IF_PROVIDED:
        raise NotExpressible(f'referral rule "{UC.send_referral_url_string_lookup[send_referral]}" (not in trawl\'s '
                             'schema; its URLs are otherwise expressible)')
    (has_svp, _svp_match) = uc.GetSingleValueParameterData()
    if has_svp:
        raise NotExpressible('single-value parameters (not in trawl\'s schema)')

    mask = uc.GetURLDomainMask()
    for r in mask.GetDomainRegexes():
        check_regex(r, 'domain_regexes')
        if '|' in re.sub(r'\([^()]*\)', '', r):
            raise NotExpressible(f'domain regex {r!r} has a top-level |, which hydrus does not group')

    (alphabetise, can_multiple, associate, keep_fragment) = uc.GetURLBooleans()
    d = {
        'name': name,
        'kind': kinds[uc.GetURLType()],
        'example': uc.GetExampleURL(encoded=True),
        'preferred_scheme': uc.GetPreferredScheme(),
        'domains': mask.GetRawDomains(),
    }
    if mask.GetDomainRegexes():
        d['domain_regexes'] = mask.GetDomainRegexes()
    d.update({
        'match_subdomains': bool(mask.match_subdomains),
        'keep_subdomains': bool(mask.keep_matched_subdomains),
        'can_produce_multiple_files': bool(can_multiple),
        'associate_known_url': bool(associate),
        'alphabetise_query': bool(alphabetise),
        'keep_fragment': bool(keep_fragment),
        'keep_extra_query_for_server': bool(uc.KeepExtraParametersForServer()),
        'exact_path': bool(uc.NoMorePathComponentsThanThis()),
        'exact_query': bool(uc.NoMoreParametersThanThis()),
    })

    path = []
    for (i, (string_match, default)) in enumerate(uc.GetPathComponents()):
        c = convert_string_match(h, string_match, f'path[{i}]')
        if default is not None:
            # a default that fails its own match loads in trawl with a warning, as in hydrus
            c['default'] = default
        path.append(c)
    d['path'] = path

    query = []
    for (i, parameter) in enumerate(uc.GetParameters()):
        if not isinstance(parameter, UC.URLClassParameterFixedName):
            raise NotExpressible(f'query[{i}]: parameter type {type(parameter).__name__}')
        if parameter.IsEphemeralToken():
            raise NotExpressible(f'query[{i}] ({parameter.GetName()}): ephemeral token (not in trawl\'s schema)')
        if parameter.GetDefaultValueStringProcessor().MakesChanges():
            raise NotExpressible(f'query[{i}] ({parameter.GetName()}): default value processor')
        c = {'name': parameter.GetName()}
        c.update(convert_string_match(h, parameter.GetValueStringMatch(), f'query[{i}]'))
        if parameter.HasDefaultValue():
            default = parameter.GetDefaultValue()
            # a default that fails its own match loads in trawl with a warning, as in hydrus
            c['default'] = default
        query.append(c)
    d['query'] = query

    if uc.CanGenerateNextGalleryPage():
        (index_type, identifier, delta) = uc.GetGalleryIndexValues()
        if index_type == UC.GALLERY_INDEX_TYPE_PARAMETER:
            if identifier not in [p.GetName() for p in uc.GetParameters()]:
                raise NotExpressible(f'next page parameter {identifier!r} is not one of the class\'s parameters')
            d['next_page'] = {'query': identifier, 'delta': delta}
        elif index_type == UC.GALLERY_INDEX_TYPE_PATH_COMPONENT:
            if not 0 <= identifier < len(uc.GetPathComponents()):
                raise NotExpressible(f'next page path index {identifier!r} is not one of the class\'s components')
            d['next_page'] = {'path': identifier, 'delta': delta}
        else:
            raise NotExpressible(f'gallery index type {index_type!r}')

    if uc.UsesAPIURL():
        converter = uc.GetAPILookupConverter()
        steps = convert_converter(h, converter, 'api')
        check_converter_translation(converter, steps, uc.Normalise(uc.GetExampleURL(), for_server=True), 'api')
        d['api'] = steps
    return d


# ---------------------------------------------------------------------------------------------------------------
# 3. TOML


def toml_str(s):
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == '\\':
            out.append('\\\\')
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append('\\u%04x' % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def toml_value(v):
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return toml_str(v)
    if isinstance(v, list):
        return '[' + ', '.join(toml_value(x) for x in v) + ']'
    if isinstance(v, dict):
        return '{ ' + ', '.join(f'{k} = {toml_value(x)}' for (k, x) in v.items()) + ' }'
    raise TypeError(v)


def class_to_toml(d):
    lines = ['[[url_class]]']
    for (key, value) in d.items():
        if key in ('path', 'query'):
            if value:
                lines.append(f'{key} = [')
                lines.extend(f'  {toml_value(c)},' for c in value)
                lines.append(']')
            else:
                lines.append(f'{key} = []')
        elif key == 'api':
            lines.append('api = [ ' + ', '.join(toml_value(s) for s in value) + ' ]')
        else:
            lines.append(f'{key} = {toml_value(value)}')
    return '\n'.join(lines) + '\n'


# ---------------------------------------------------------------------------------------------------------------
# 4. cases

EXTRA = 'zz_extra=1'

# URLs no class should claim: unknown hosts, look-alike hosts, known hosts with paths no class describes.
NO_MATCH_URLS = [
    'https://example.com/',
    'https://example.com/index.php?page=post&s=view&id=1',
    'https://notgelbooru.com/index.php?page=post&s=view&id=4009146',
    'https://gelbooru.com.example.com/index.php?page=post&s=view&id=4009146',
    'https://gelbooru.com/account.php?page=login',
    'https://danbooru.donmai.us/users/1',
    'https://e621.net/',
    'https://e621.net/wiki_pages/help:api',
    'https://boards.4chan.org/m/catalog',
    'https://twitter.com/karura_4',
    'https://inkbunny.net/',
    'https://sub.i.4cdn.org/m/1512858563140.jpg',
    'https://4cdn.org/m/1512858563140.jpg',
    'https://nijie.info/view.php?id=abc',
    'https://pbs.twimg.com/profile_images/1/x.jpg',
]


def split_url(url):
    """(scheme, host, path, query, fragment) by plain string cutting, so a variant changes only what it means to."""
    (scheme, rest) = url.split('://', 1)
    (rest, hash_, fragment) = rest.partition('#')
    (rest, qmark, query) = rest.partition('?')
    slash = rest.find('/')
    (host, path) = (rest, '') if slash < 0 else (rest[:slash], rest[slash:])
    return [scheme, host, path, query if qmark else None, fragment if hash_ else None]


def join_url(parts):
    (scheme, host, path, query, fragment) = parts
    url = f'{scheme}://{host}{path or "/"}'
    if query is not None:
        url += '?' + query
    if fragment is not None:
        url += '#' + fragment
    return url


def variant(url, **changes):
    parts = split_url(url)
    keys = ['scheme', 'host', 'path', 'query', 'fragment']
    for (k, v) in changes.items():
        parts[keys.index(k)] = v(parts[keys.index(k)]) if callable(v) else v
    return join_url(parts)


def variants(d):
    """The URLs to ask hydrus about for one class: its example and systematic variations of it."""
    example = d['example']
    (scheme, host, path, query, fragment) = split_url(example)
    domain = d['domains'][0]
    urls = [example]
    urls.append(variant(example, scheme='http' if scheme == 'https' else 'https'))
    if host.startswith('www.'):
        urls.append(variant(example, host=host[4:]))
    else:
        urls.append(variant(example, host='www.' + host))
    if d['match_subdomains']:
        urls.append(variant(example, host='sub.' + domain))
    urls.append(variant(example, query=lambda q: EXTRA if not q else q + '&' + EXTRA))
    if fragment is None:
        urls.append(variant(example, fragment='frag'))
    else:
        urls.append(variant(example, fragment=None))
        urls.append(variant(example, fragment='frag'))
    # a trailing slash (a path that already ends in one gets a last component instead)
    urls.append(variant(example, path=lambda p: (p or '/') + ('x' if (p or '/').endswith('/') else '/')))
    # all of the above at once: the other scheme, www toggled, an extra parameter and a fragment
    urls.append(variant(example, scheme='http' if scheme == 'https' else 'https',
                        host=host[4:] if host.startswith('www.') else 'www.' + host,
                        query=EXTRA if not query else query + '&' + EXTRA, fragment='frag'))
    if query and '&' in query:
        urls.append(variant(example, query='&'.join(reversed(query.split('&')))))
    # a parameter with a default, dropped or given
    names_in_query = [kv.split('=', 1)[0] for kv in (query or '').split('&') if kv]
    for q in d['query']:
        if 'default' in q and q['name'] in names_in_query:
            urls.append(variant(example, query='&'.join(kv for kv in query.split('&') if kv.split('=', 1)[0] != q['name'])))
            break
    # the page number of a gallery: a later page, and a page that is not a number
    next_page = d.get('next_page')
    if next_page is not None and 'query' in next_page:
        name = next_page['query']
        kvs = [kv for kv in (query or '').split('&') if kv and kv.split('=', 1)[0] != name]
        for value in (str(3 * abs(next_page['delta'])), 'x'):
            urls.append(variant(example, query='&'.join(kvs + [f'{name}={value}'])))
    elif next_page is not None and 'path' in next_page:
        comps = (path or '/')[1:].split('/')
        while len(comps) <= next_page['path']:
            comps.append(d['path'][len(comps)].get('default', 'x'))
        for value in ('3', 'x'):
            c = list(comps)
            c[next_page['path']] = value
            urls.append(variant(example, path='/' + '/'.join(c)))
    # path components with defaults: give them all explicitly
    if any('default' in p for p in d['path']):
        comps = (path or '/')[1:].split('/')
        if len(comps) < len(d['path']):
            comps += [p.get('default', 'x') for p in d['path'][len(comps):]]
            urls.append(variant(example, path='/' + '/'.join(comps)))
    seen = set()
    return [u for u in urls if not (u in seen or seen.add(u))]


def expectations(dm, url):
    uc = dm.GetURLClass(url)
    if uc is None:
        return {'url': url, 'class': None, 'normalised': None, 'for_server': None, 'api_url': None,
                'next_page': None}
    case = {'url': url, 'class': uc.GetName(), 'normalised': uc.Normalise(url),
            'for_server': uc.Normalise(url, for_server=True), 'api_url': None, 'next_page': None}
    if uc.UsesAPIURL():
        try:
            case['api_url'] = uc.GetAPIURL(url)
        except Exception:
            pass
    if uc.CanGenerateNextGalleryPage():
        try:
            case['next_page'] = uc.GetNextGalleryPage(url)
        except Exception:
            pass
    return case


URL_CRATE_ENCODES = re.compile(r'[\x00-\x20"<>`{}\'\\^|\x7f-\U0010ffff]')


def warn_if_url_crate_would_rewrite(case, warnings):
    for (k, v) in case.items():
        if k != 'class' and isinstance(v, str) and (URL_CRATE_ENCODES.search(v) or '://' not in v):
            warnings.append(f'{case["url"]}: {k} {v!r} may not survive the url crate unchanged')


def self_checks(dm, uc, d, warnings):
    """What trawl's UrlClasses::check_examples will demand, asked of hydrus."""
    name = d['name']
    example = d['example']
    got = dm.GetURLClass(example)
    if got is None or got.GetName() != name:
        warnings.append(f'{name}: hydrus gives its example to {got.GetName() if got else None!r}')
        return
    normalised = uc.Normalise(example)
    if uc.Normalise(normalised) != normalised:
        warnings.append(f'{name}: normalised example {normalised!r} does not normalise to itself')
    if uc.UsesAPIURL():
        api = uc.GetAPIURL(example)
        other = dm.GetURLClass(api)
        if other is None or other.GetName() == name:
            warnings.append(f'{name}: API URL {api!r} is matched by {other.GetName() if other else None!r}')
    if uc.CanGenerateNextGalleryPage():
        try:
            nxt = uc.GetNextGalleryPage(example)
            other = dm.GetURLClass(nxt)
            if other is None or other.GetName() != name:
                warnings.append(f'{name}: next page {nxt!r} is matched by {other.GetName() if other else None!r}')
        except Exception as e:
            warnings.append(f'{name}: next page of the example fails: {e}')


# ---------------------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('hydrus_dir', help='hydrus network source tree at tag v665')
    ap.add_argument('--out', default=HERE, help='where to write classes.toml and cases.json (default: beside this script)')
    args = ap.parse_args()

    h = import_hydrus(os.path.abspath(args.hydrus_dir))
    url_classes = sorted(h.ClientDefaults.GetDefaultURLClasses(), key=lambda u: u.GetName())
    if not url_classes:
        sys.exit('no URL classes loaded: is this a hydrus source tree at v665 (static/default/url_classes)?')

    included = []
    excluded = []
    for uc in url_classes:
        try:
            included.append((uc, convert_class(h, uc)))
        except NotExpressible as e:
            excluded.append((uc.GetName(), str(e)))

    # a domain manager with exactly the classes trawl gets, so that hydrus's own ordering picks among them
    dm = h.ND.NetworkDomainManager()
    dm.SetURLClasses([uc for (uc, _) in included])

    warnings = []
    cases = []
    seen = set()
    for (uc, d) in included:
        self_checks(dm, uc, d, warnings)
        for url in variants(d):
            if url not in seen:
                seen.add(url)
                cases.append(expectations(dm, url))
    for url in NO_MATCH_URLS:
        if url not in seen:
            seen.add(url)
            case = expectations(dm, url)
            if case['class'] is not None:
                warnings.append(f'{url}: meant to match nothing, hydrus gives it to {case["class"]!r}')
            cases.append(case)
    for case in cases:
        warn_if_url_crate_would_rewrite(case, warnings)

    header = (
        f'# {len(included)} real URL class definitions: hydrus network v{h.version}\'s shipped defaults (WTFPL), in trawl\'s\n'
        '# [[url_class]] schema. Generated by generate.py (see SOURCE.md): do not edit by hand.\n'
        '# cases.json holds what hydrus itself computes for URLs of these classes.\n'
    )
    with open(os.path.join(args.out, 'classes.toml'), 'w', encoding='utf-8') as f:
        f.write(header + ''.join('\n' + class_to_toml(d) for (_, d) in included))
    with open(os.path.join(args.out, 'cases.json'), 'w', encoding='utf-8') as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write('\n')

    matched = sum(1 for c in cases if c['class'] is not None)
    print(f'hydrus v{h.version}: {len(url_classes)} default URL classes; {len(included)} written, '
          f'{len(excluded)} excluded')
    print(f'{len(cases)} cases ({matched} matched, {len(cases) - matched} unmatched, '
          f'{sum(1 for c in cases if c["api_url"])} with an API URL, '
          f'{sum(1 for c in cases if c["next_page"])} with a next page)')
    for (name, reason) in excluded:
        print(f'excluded: {name}: {reason}')
    for w in warnings:
        print(f'warning: {w}')


if __name__ == '__main__':
    main()
