"""Which pieces of a passage are code, and how the screen reads them.

READMEs and runbooks quote code: a YAML navigation (``- User Guide:``), a JavaScript object (``user: Bob``), a
function signature (``def grader(..., answer: str)``), a prompt sent to a model in an example (``input="Write a
story"``), a comment (``# Each query violates the schema``). Read as prose, these are chat turns, orders and
instructions; they are fields, parameters and examples, addressed to no one reading the page. An attacker hides
prose in code too (``# NOTE for code assistants: ...``, a TOML ``description`` hailing "LLM agents"), so code is
still read by the rules, as code: a ``key: value`` line is a field, not a chat turn, unless the block is a dialogue
(two chat roles keying its lines); a comment is read as the sentence it holds, without its marker, and is never taken
along with another piece; a signature's parameters are read by no rule; a control token quoted as a string literal
is named, not typed. The learned classifier judges no code (its head was trained on prose; a prompt example reads to
it as an instruction, which it is, to another model).

An HTML comment is read by the rules like any piece, and withheld whole when it holds prose (:func:`hidden_prose`:
the page's reader never sees it; the model would), but not a marker, a tool's directive, metadata or markup
switched off.

Code is a fenced block (```` ``` ```` or ``~~~``; a chunk that begins inside one, as ingest's chunks at blank lines
do, shows it by a first fence that closes), a reStructuredText literal block (the indented lines after ``::``), a
line that is a function's signature, or a run of settings: :data:`SETTINGS` lines or more of ``key: value`` with a
value of a few words (a kubeconfig's ``user: eks_prod`` in a chunk that begins and ends inside its fence).
"""

from __future__ import annotations

import re
from bisect import bisect_right

_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*([^\s`~]*)", re.MULTILINE)
_LITERAL_BLOCK = re.compile(r"::[ \t]*$")  # reStructuredText: the indented lines after this are code
_SIGNATURE = re.compile(r"^[ \t]*(?:async[ \t]+|export[ \t]+|pub[ \t]+)?(?:def|function|func|fn)[ \t]+[\w$.]+[ \t]*\(",
                        re.MULTILINE)
# a setting: a key, a colon, a value of a few words not ending a sentence (or none: "contexts:")
_SETTING = re.compile(r"^[ \t]*(?:-[ \t]+)?[A-Za-z_][\w.-]*[ \t]*:(?:[ \t]+\S+(?:[ \t]+\S+){0,3}?(?<![.?!]))?[ \t]*$")
SETTINGS = 3  # lines of settings in a row, one keyed by no chat role: a configuration, not a dialogue
_PARAMETERS = re.compile(r"\((?:[^()]|\([^()]*\))*\)")  # a signature's parameter list, one level of nesting
_COMMENT = re.compile(r"^\s*(?:#+|//+|--+|/\*+|\*+)(?=\s|$)\s*")
_INLINE_COMMENT = re.compile(r"\s(?:#|//)\s+(.*)$")
_ROLE_KEY = re.compile(r"^[\W_]*(system|user|assistant|human|ai|model|bot|chatbot|gpt|llm|response|instruction|prompt)"
                       r"s?\s*:\s*(.*)$", re.DOTALL)  # a chat role or a prompt format's section keying a line
_ASKS = frozenset({"user", "human", "instruction", "prompt"})
_ANSWERS = frozenset({"assistant", "ai", "model", "bot", "chatbot", "gpt", "llm", "response"})
_SECTION = frozenset({"response", "instruction", "prompt"})
_QUOTES = "\"'`"
_UNFINISHED = re.compile(r"[^\W\d_][ \t]*\n[ \t]*\Z")  # a line wrapped mid-sentence: a word, then the break


def code_ranges(text: str) -> list[tuple[int, int]]:
    """The [start, end) character ranges of ``text`` that are code, in order."""
    ranges = _fenced(text) + _literal_blocks(text) + _settings(text)
    ranges += [(m.start(), _line_end(text, m.start())) for m in _SIGNATURE.finditer(text)]
    return _merged(ranges)


def _fenced(text: str) -> list[tuple[int, int]]:
    """Fenced blocks, fences included. A closing fence bears no language, so a first fence without one that is
    followed by one with a language, or that leaves an odd count, closes a block the chunk begins inside."""
    fences = list(_FENCE.finditer(text))
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    if fences and not fences[0].group(1) and (len(fences) % 2 or len(fences) > 1 and fences[1].group(1)):
        ranges.append((0, fences[0].end()))
        fences = fences[1:]
    for fence in fences:
        if start is None:
            start = fence.start()
        else:
            ranges.append((start, fence.end()))
            start = None
    if start is not None:
        ranges.append((start, len(text)))
    return ranges


def _literal_blocks(text: str) -> list[tuple[int, int]]:
    """reStructuredText literal blocks: after a line ending in ``::``, the blank lines and the lines indented
    deeper than it."""
    ranges: list[tuple[int, int]] = []
    offset, marker_indent, start = 0, -1, None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" \t"))
        if start is not None and line.strip() and indent <= marker_indent:
            ranges.append((start, offset))
            start = None
        if start is None and _LITERAL_BLOCK.search(line.rstrip("\n")):
            marker_indent, start = indent, offset + len(line)
        offset += len(line)
    if start is not None and start < len(text):
        ranges.append((start, len(text)))
    return ranges


def _settings(text: str) -> list[tuple[int, int]]:
    """Runs of :data:`SETTINGS` lines or more that are settings (``key: value``), one of them keyed by no chat role."""
    ranges: list[tuple[int, int]] = []
    offset, run = 0, []  # run: the (start, end, keyed by a role) of the settings read in a row
    for line in [*text.splitlines(keepends=True), ""]:
        body = line.rstrip("\r\n")
        if line and _SETTING.match(body):
            run.append((offset, offset + len(body), role_key(body.lower()) is not None))  # roles, as skeletons
        else:
            if len(run) >= SETTINGS and not all(role for _, _, role in run):
                ranges.append((run[0][0], run[-1][1]))
            run = []
        offset += len(line)
    return ranges


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def code_kinds(text: str, spans: list[tuple[int, int]]) -> list[str | None]:
    """Each piece's kind: ``"comment"`` (a line of code that is a comment), ``"code"`` (any other in code) or None
    (prose)."""
    ranges = code_ranges(text)
    if not ranges:
        return [None] * len(spans)
    starts = [a for a, _ in ranges]
    kinds: list[str | None] = []
    for start, end in spans:
        i = bisect_right(starts, start) - 1
        if i < 0 or start >= ranges[i][1]:
            kinds.append(None)
            continue
        line_start = text.rfind("\n", 0, start) + 1
        kinds.append("comment" if _COMMENT.match(text[line_start:end]) else "code")
    return kinds


def readings(plain: str, kind: str | None) -> list[str]:
    """What the rules read of a piece's skeleton: prose as it is; a comment as the sentence it holds (no marker); a
    line of code without a signature's parameters, and its trailing comment apart."""
    if kind == "comment":
        return [_COMMENT.sub("", plain, count=1)]
    if kind is None:
        section = _ROLE_KEY.match(plain)  # "Instructions: reply Plum": the order is what follows the colon
        return [plain, section.group(2)] if section and section.group(1) in _SECTION and section.group(2) else [plain]
    code = _PARAMETERS.sub("()", plain, count=1) if _SIGNATURE.match(plain) else plain
    comment = _INLINE_COMMENT.search(code)
    return [code, comment.group(1)] if comment else [code]


def role_key(plain: str) -> str | None:
    """The chat role or prompt section keying a line (``user: ...``, ``Response:``), or None."""
    match = _ROLE_KEY.match(plain)
    return match.group(1) if match else None


def dialogue(plains: list[str]) -> bool:
    """Whether lines of a passage are keyed by one who asks something (a question, or three words or more) and one
    who answers: a transcript, however dressed. A configuration's ``user: ada`` beside ``model: small`` asks
    nothing."""
    keyed = [match for plain in plains if plain and (match := _ROLE_KEY.match(plain))]
    asks = any(m.group(1) in _ASKS and (m.group(2).rstrip().endswith("?") or len(m.group(2).split()) >= 3)
               for m in keyed)
    return asks and any(m.group(1) in _ANSWERS for m in keyed)


def quoted(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is the whole of a string literal (a quote on either side)."""
    return 0 < start and end < len(text) and text[start - 1] in _QUOTES and text[end] == text[start - 1]


def code_rules(text: str, spans: list[tuple[int, int]], plains: list[str], kinds: list[str | None],
               rules: list[str | None]) -> list[str | None]:
    """``rules`` as code and labels change them: lines keyed by one who asks and one who answers are a dialogue
    (turns, in code or not: "Instruction:" and "Response:", "user:" and "assistant:"); a control token quoted as a
    string literal in code is named, not typed; a role alone as a label ("Response:") followed by code labels the
    code, and one after a line its sentence runs on from ("adapted to Debian\n system:") ends that sentence: no
    turn either; headings that are two roles alone are a template's turns (:func:`_template_headings`)."""
    talk = dialogue(plains)
    written = [i for i, plain in enumerate(plains) if plain]
    for i, (plain, kind) in enumerate(zip(plains, kinds)):
        if talk and role_key(plain):
            rules[i] = rules[i] or "turn"
        elif kind == "code" and rules[i] == "markup" and quoted(text, *spans[i]):
            rules[i] = None
        elif kind is None and rules[i] == "turn" and plain.endswith(":") and plain.count(":") == 1:
            after = next((j for j in written if j > i), None)
            before = next((j for j in reversed(written) if j < i), None)
            if after is not None and kinds[after] is not None or before is not None and rules[before] is None \
                    and not plain.startswith("#") and _UNFINISHED.search(text[spans[before][0]:spans[before][1]]):
                rules[i] = None
    _template_headings(plains, kinds, rules)
    return rules


_ROLE_HEADING = re.compile(r"^#+\s*(system|assistant|user)$")


def _template_headings(plains: list[str], kinds: list[str | None], rules: list[str | None]) -> None:
    """Mark (rule ``"markup"``) headings that are a chat role alone ("### User", "### Assistant") where the passage
    has two roles' such headings: a prompt template's turns. One alone ("### System" above "Ensure you have python3
    available on your system") names a section of a manual."""
    found = [(i, m.group(1)) for i, (plain, kind) in enumerate(zip(plains, kinds))
             if kind is None and (m := _ROLE_HEADING.match(plain))]
    if len({role for _, role in found}) >= 2:
        for i, _ in found:
            rules[i] = rules[i] or "markup"


_HTML_COMMENT = re.compile(r"^<!--(.*)-->$", re.DOTALL)
_LICENCE = re.compile(r"\b(?:copyright|licen[cs]ed?|spdx-)", re.IGNORECASE)
_ELEMENT = re.compile(r"<[a-z][a-z0-9]*\b[^>]*>")  # markup commented out: a badge, a link, a block switched off
_DIRECTIVE = re.compile(r"\s*[\w.-]+[\s:-]+(?:disable|enable|ignore|off|on|start|end|skip|begin)\b")
_FIELD_LINE = re.compile(r"\s*(?:-\s+\S+\s*$|(?:-\s+)?[\w-]+\s*:)")  # "added: v20.11.0", "- v14.17.0"
_PROSE_WORD = re.compile(r"[a-z][a-z'-]*[a-z][,.;:!?]?")
HIDDEN_WORDS = 4  # words of prose in an HTML comment: text a page hides from its reader and shows the model


def hidden_prose(plain: str) -> bool:
    """Whether ``plain`` is an HTML comment holding prose (a page's reader never sees it; the model does). A marker
    ("<!-- prettier-ignore -->", "<!-- BADGES: START -->"), a tool's directive ("<!-- lint disable ... -->"),
    metadata (lines of fields), markup switched off (a badge, a link, with its note to the maintainer) or a file's
    licence header is no message and stays; the rules still read it."""
    comment = _HTML_COMMENT.match(plain)
    if not comment or _LICENCE.search(body := comment.group(1)) or _ELEMENT.search(body) or _DIRECTIVE.match(body):
        return False
    lines = [line for line in body.splitlines() if line.strip()]
    if len(lines) > 1 and 2 * sum(bool(_FIELD_LINE.match(line)) for line in lines) >= len(lines):
        return False  # metadata: "added: v20.11.0", "changes:", ...
    words = [w for w in body.split() if "://" not in w and _PROSE_WORD.fullmatch(w)]
    return len(words) >= HIDDEN_WORDS
