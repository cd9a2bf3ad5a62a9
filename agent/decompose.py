"""The parse-based planner: the descriptions inside a question become one-hop questions.

"Where was the place of death of the director of film X?" holds two descriptions, one inside the
other. The innermost is read first and replaced by its placeholder: "the director of film X" →
hop 1 "Who is the director of X?" (person); "the place of death of #1" → hop 2 (place); what is
left, "Where was #2", asks nothing more, so hop 2 answers the question. The readings:

- of-descriptions with a relational noun: "the director of X", "the place of birth of #1";
- possessives: "X's father", "X's paternal grandfather" (father of father, `relations.KINSHIP`);
- a relational noun after a name: "the Oh Yeah performer";
- relative clauses, from the parse: "the city where X died", "the school that owns X";
- comparisons of two options ("Which film came out first, A or B?"), through a bridge when the
  options are compared by someone of theirs ("Which film has the director born later, A or B?");
- "the same country" questions, "both" yes/no questions and "in common" questions.

Each hop carries its subject (a name or `#k`), its relation phrase and the answer type it
expects; a computed hop combines its dependencies' answers without retrieval. A question none of
these fits is not decomposed (the caller keeps it as one hop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.questions import question_options
from agent.relations import (
    KINSHIP,
    AnswerType,
    is_relational,
    relation_head,
    relation_type,
    wh_type,
)
from agent.state import MAX_PARSED_HOPS, Compute, Hop
from indexes.nlp_extraction import load_pipeline

# Words that may join the capitalized words of one name ("Palau de la Generalitat").
_CONNECTORS = frozenset(
    "of the and de la le du des del di da von van der den y e on in for a an to at & with".split()
)
# A work's kind written before its title: "the director of film X" asks about X.
_KIND_WORDS = re.compile(
    r"^(?:the )?(?:(?:film|movie|song|album|novel|book|series|show|band|single|play|opera|"
    r"poem|painting|game|video game|tv series|television series|magazine|newspaper) )"
)
# Place classes that stand in apposition before a name ("the city of Paris" is Paris).
_APPOSITIVE = frozenset(
    "city town state village county province region island river country place".split()
)
_PLACEHOLDER = re.compile(r"#\d+")
_RELATIVES = ("where", "in which", "that", "which", "who", "whom", "whose")
_DEGENERATE = re.compile(r"^(?:who|what|where|when|which) (?:is|was|are|were) (#\d+)$", re.I)
_AUX = r"(?:are|were|is|was|do|did|does)"


def _is_name_word(token: str) -> bool:
    """Does this word start or continue a name ("Sabines", "(1945", "#2", "3Rd", a quoted title)?"""
    core = token.lstrip("(\"'“‘")
    return bool(core) and (core[0].isupper() or core[0].isdigit() or core[0] == "#")


def entity_end(words: list[str], start: int) -> int:
    """The index after the name that starts at `words[start]`, or `start` when none starts there."""
    end = start
    i = start
    while i < len(words):
        word = words[i]
        if _is_name_word(word):
            i += 1
            end = i
            possessive = word.endswith(("'s", "'S", "’s"))
            if _PLACEHOLDER.fullmatch(word) or (
                possessive and not (i < len(words) and _is_name_word(words[i]))
            ):
                break  # a placeholder closes the name, and so does a possessive ("X's father")
        elif word.lower() in _CONNECTORS and end > start and i + 1 < len(words):
            # up to two joining words ("Romulus and the Sabines", "Thrill of a Lifetime")
            nxt = i + 1 + (words[i + 1].lower() in _CONNECTORS and i + 2 < len(words))
            if not _is_name_word(words[nxt]):
                break
            i = nxt
        else:
            break
    return end


def _entity_start(words: list[str], end: int) -> int:
    """The index where the name ending just before `words[end]` starts (leftwards)."""
    i = end - 1
    start = end
    while i >= 0:
        if _is_name_word(words[i]):
            start = i
        elif not (words[i].lower() in _CONNECTORS and i > 0 and _is_name_word(words[i - 1])):
            break
        i -= 1
    return start


@dataclass
class _Plan:
    """Hops as they are read, innermost first."""

    hops: list[Hop] = field(default_factory=list)

    def add(
        self,
        question: str,
        subject: str,
        relation: str,
        answer_type: AnswerType,
        compute: Compute = "",
        depends_on: list[int] | None = None,
        options: list[str] | None = None,
    ) -> str:
        refs = [int(r[1:]) for r in _PLACEHOLDER.findall(f"{question} {subject}")]
        hop = Hop(
            id=len(self.hops) + 1,
            question=" ".join(question.split()),
            depends_on=sorted(set(depends_on or refs)),
            subject=subject,
            relation=relation,
            answer_type=answer_type,
            compute=compute,
            options=options or [],
        )
        self.hops.append(hop)
        return f"#{hop.id}"

    def relation_hop(self, relation: str, subject: str) -> str:
        """One hop per relation ("father-in-law" is two): its placeholder."""
        ref = subject
        for part in KINSHIP.get(relation.lower(), (relation,)):
            kind = relation_type(part)
            wh = "Who" if kind == "person" else "What"
            ref = self.add(f"{wh} is the {part} of {ref}?", ref, part, kind)
        return ref


def _strip_kind(words: list[str], start: int) -> int:
    """Skip "the film" / "song" before a title."""
    rest = " ".join(words[start:]) + " "
    found = _KIND_WORDS.match(rest.lower())
    if found and start + len(found.group(0).split()) < len(words):
        skipped = start + len(found.group(0).split())
        if _is_name_word(words[skipped]):
            return skipped
    return start


_STOP_LEFT = frozenset("the a an what which who whose where when how".split())


def _described_after(words: list[str], end: int) -> bool:
    """Does a relational noun follow the name ("the X songwriter", "X's manufacturer")?"""
    word = words[end].lower()
    possessive = words[end - 1].endswith(("'s", "'S", "’s"))
    return (possessive or end == len(words) - 1 or not words[end + 1 : end + 2] == ["of"]) and (
        _after_name(word) or possessive and is_relational(word)
    )


def _after_name(word: str) -> bool:
    """A relational noun that may follow a name: "the Oh Yeah performer", "the FA Cup winner"."""
    head = relation_head(word)
    return bool(head) and head not in _APPOSITIVE and relation_type(head) not in ("work", "date")


def _of_description(words: list[str], plan: _Plan) -> list[str] | None:
    """Replace the first "the REL of NAME" (REL relational, NAME a name or #k) by its hop."""
    for i, word in enumerate(words):
        if word != "of" or i == 0 or i + 1 >= len(words):
            continue
        left = i
        while left > 0 and re.fullmatch(r"[a-z][a-z-]*", words[left - 1]) and i - left < 4:
            if words[left - 1] in _STOP_LEFT or words[left - 1] in _CONNECTORS - {"of"}:
                break
            left -= 1
        name_at = i + 1
        if words[name_at] == "the" and name_at + 1 < len(words):
            name_at += 1
        name_at = _strip_kind(words, name_at)
        end = entity_end(words, name_at)
        if end == name_at or (end < len(words) and _described_after(words, end)):
            continue  # no name here, or the name's own description is read first
        for start in range(left, i):  # the longest relational phrase first
            relation = " ".join(words[start:i])
            if relation_head(relation) in _APPOSITIVE or not is_relational(relation):
                continue
            begin = start - 1 if start > 0 and words[start - 1] in ("the", "a", "an") else start
            name = " ".join(words[name_at:end])
            name = name[:-2] if name.endswith(("'s", "'S", "’s")) else name
            ref = plan.relation_hop(relation, name)
            tail = ["'s"] if words[end - 1].endswith(("'s", "'S", "’s")) else []
            return words[:begin] + [ref + "".join(tail)] + words[end:]
    return None


def _possessive(words: list[str], plan: _Plan) -> list[str] | None:
    """Replace the first "NAME's REL" by its hop(s)."""
    for i, word in enumerate(words):
        if not word.endswith(("'s", "'S", "’s", "s'")) or i + 1 >= len(words):
            continue
        for size in (3, 2, 1):
            relation = " ".join(words[i + 1 : i + 1 + size])
            known = relation in KINSHIP or is_relational(relation)
            if (
                len(words) >= i + 1 + size
                and re.fullmatch(r"[a-z][a-z -]*", relation)
                and relation not in _STOP_LEFT | _CONNECTORS
                and known
            ):
                start = _entity_start(words, i + 1)
                name = " ".join(words[start : i + 1])
                name = re.sub(r"['’][sS]?$", "", name)
                if not name:
                    break
                begin = start - 1 if start > 0 and words[start - 1] == "the" else start
                ref = plan.relation_hop(relation, name)
                return words[:begin] + [ref] + words[i + 1 + size :]
    return None


def _noun_after_name(words: list[str], plan: _Plan) -> list[str] | None:
    """Replace "the NAME REL" ("the Oh Yeah performer") by its hop."""
    for i, word in enumerate(words[:-2]):
        if word != "the" or not _is_name_word(words[i + 1]):
            continue
        end = entity_end(words, i + 1)
        if end < len(words) and _after_name(words[end]):
            name = " ".join(words[i + 1 : end])
            ref = plan.relation_hop(words[end], name)
            return words[:i] + [ref] + words[end + 1 :]
    return None


def _relative(words: list[str], plan: _Plan) -> list[str] | None:
    """Replace the first "the N where/that/who CLAUSE" whose clause names a name or #k by its hop.

    The clause belongs to the noun just before its relative word (English puts it there; the
    small parser often attaches it further up); it ends where the parse's clause ends.
    """
    doc = load_pipeline()(" ".join(words))
    for rel in doc:
        opener = rel.lower_
        if opener not in _RELATIVES or rel.i < 2:
            continue
        if opener == "which" and doc[rel.i - 1].lower_ == "in":
            continue  # "in which" is read at "in"
        noun = doc[rel.i - 1]
        if noun.lower_ == "in" and opener == "which":
            noun = doc[rel.i - 2]
        if noun.pos_ not in ("NOUN", "PROPN") or not noun.is_lower:
            continue
        start = next((t.i for t in doc[max(0, noun.i - 3) : noun.i] if t.lower_ == "the"), None)
        if start is None:
            continue
        clause_start = noun.i + 1
        ends = [
            max(t.i for t in tok.subtree)
            for tok in doc[clause_start:]
            if tok.dep_ in ("relcl", "acl", "advcl", "ccomp")
            and min(t.i for t in tok.subtree) == clause_start
        ]
        clause_end = max(ends) if ends else len(doc) - 1
        if doc[clause_end].is_punct:
            clause_end -= 1
        clause = doc[clause_start : clause_end + 1].text.split()
        named = [j for j, w in enumerate(clause) if _is_name_word(w)]
        if not named:
            continue
        head = doc[start + 1 : noun.i + 1].text
        kind = relation_type(noun.lower_)
        if opener == "where" and kind == "other":
            kind = "place"
        if opener in ("who", "whom") and kind == "other":
            kind = "person"
        wh = "Who" if kind == "person" else "What"
        refs = [w for w in clause if _PLACEHOLDER.fullmatch(w.rstrip("'s"))]
        first = named[0]
        subject = refs[0] if refs else " ".join(clause[first : entity_end(clause, first)])
        relation = " ".join(
            w for w in clause if w.lower() not in _RELATIVES and not _is_name_word(w)
        )
        ref = plan.add(f"{wh} is the {head} {' '.join(clause)}?", subject, relation, kind)
        before = doc[:start].text.split()
        after = doc[clause_end + 1 :].text.split()
        return [*before, ref, *after]
    return None


def _in_placeholder(words: list[str], plan: _Plan) -> list[str] | None:
    """Replace "the [ADJ] NOUN in/of #k" inside a longer question ("the majority party in #1")."""
    for i, word in enumerate(words):
        if not _PLACEHOLDER.fullmatch(word) or i < 3 or words[i - 1] not in ("in", "of", "from"):
            continue
        start = next((j for j in range(i - 2, max(-1, i - 5), -1) if words[j] == "the"), None)
        if start is None or start == 0 and i == len(words) - 1:
            continue
        phrase = words[start + 1 : i - 1]
        if not phrase or not all(re.fullmatch(r"[a-z][a-z-]*", w) for w in phrase):
            continue
        if _DEGENERATE.match(" ".join([*words[:start], word])) and i == len(words) - 1:
            continue  # "What is the busiest airport in #1": the question itself
        noun = " ".join(phrase)
        kind = relation_type(noun)
        wh = "Who" if kind == "person" else "What"
        ref = plan.add(f"{wh} is the {noun} {words[i - 1]} {word}?", word, noun, kind)
        return words[:start] + [ref] + words[i + 1 :]
    return None


def _prep_description(words: list[str], plan: _Plan) -> list[str] | None:
    """Replace "the REL in/on/from NAME" ("the actor in X", "the rapper on X") by its hop."""
    for i, word in enumerate(words[:-3]):
        if word != "the" or relation_type(words[i + 1]) != "person":
            continue
        if words[i + 2] not in ("in", "on", "from", "for", "at", "with"):
            continue
        name_at = _strip_kind(words, i + 3)
        end = entity_end(words, name_at)
        if end > name_at and not (end < len(words) and _described_after(words, end)):
            name = " ".join(words[name_at:end])
            ref = plan.add(
                f"Who is the {words[i + 1]} {words[i + 2]} {name}?", name, words[i + 1], "person"
            )
            return words[:i] + [ref] + words[end:]
    return None


def _chain(question: str, plan: _Plan) -> bool:
    """Read the question's descriptions innermost first; True when it makes at least one hop."""
    words = question.split()
    for _ in range(MAX_PARSED_HOPS):
        nxt = (
            _of_description(words, plan)
            or _possessive(words, plan)
            or _noun_after_name(words, plan)
            or _prep_description(words, plan)
            or _relative(words, plan)
            or _in_placeholder(words, plan)
        )
        if nxt is None or len(plan.hops) > MAX_PARSED_HOPS:
            break
        words = nxt
    if not plan.hops:
        return False
    rest = " ".join(words)
    degenerate = _DEGENERATE.match(rest)
    last = f"#{plan.hops[-1].id}"
    if degenerate and degenerate.group(1) == last:
        return True
    refs = _PLACEHOLDER.findall(rest)
    subject = refs[-1] if refs else last
    relation = " ".join(w for w in rest.split() if not _PLACEHOLDER.fullmatch(w.rstrip("'s")))
    plan.add(f"{rest}?", subject, _main_relation(relation), wh_type(wh_words(rest)))
    return True


def wh_words(text: str) -> str:
    """The question's opening words, from its question word on ("In which port" → "which port")."""
    words = text.lower().split()
    for i, w in enumerate(words[:3]):
        if w in ("who", "whom", "whose", "what", "which", "where", "when", "how"):
            return " ".join(words[i : i + 4])
    return ""


def _main_relation(text: str) -> str:
    """The words of a question that say what is asked, without its question word and auxiliaries."""
    drop = {"who", "whom", "what", "which", "where", "when", "how", "is", "was", "are", "were"}
    drop |= {"did", "does", "do", "the", "a", "an", "in", "of"}
    return " ".join(w for w in text.lower().split() if w not in drop)


# --- comparisons and yes/no ----------------------------------------------------------------------
_BORN = re.compile(r"\b(?:born|birth|younger|youngest|older|oldest)\b")
_DIED = re.compile(r"\b(?:died|die|death)\b")
_PERSON_LEAD = re.compile(r"^(?:who|whom|whose)\b|\bborn\b|\bperson\b|\bpeople\b")
_LONGER = re.compile(r"\blived (?:longer|the longest)\b|\blonger life\b")
_LATEST = re.compile(
    r"\b(?:later|latest|last|more recent(?:ly)?|most recent(?:ly)?|newer|newest|younger|youngest|"
    r"after)\b"
)
_EARLIEST = re.compile(r"\b(?:first|earlier|earliest|sooner|older|oldest|before|predates?)\b")
_EVENT = re.compile(
    r"\b(?:released|came out|come out|published|founded|established|formed|built|opened|"
    r"created|made|launched|premiered|aired|written|started|began|introduced|produced)\b"
)


def _option_ref(option: str, plan: _Plan) -> str:
    """An option as a hop subject: a name, or the placeholder of its description's hop."""
    words = option.split()
    nxt = _of_description(words, plan) or _possessive(words, plan)
    if nxt is not None and len(nxt) == 1 and _PLACEHOLDER.fullmatch(nxt[0]):
        return nxt[0]
    if words[0].lower() in ("director", "composer", "performer", "author", "creator", "producer"):
        rest = words[1:]
        if rest and rest[0] == "of":
            rest = rest[1:]
        start = _strip_kind(rest, 0)
        return plan.relation_hop(words[0].lower(), " ".join(rest[start:]))
    return option


def _bridge_noun(lead: str) -> str:
    """The person the options are compared by: "Which film has the director who …" → director."""
    found = re.search(r"\b(?:has|with|whose|by|of) (?:the )?([a-z]+?)s?\b(?! of\b)", lead)
    if found and relation_type(found.group(1)) == "person" and found.group(1) not in ("person",):
        return found.group(1)
    return ""


_OPTIONS_AFTER = re.compile(r"^([^,]+?),? (?:out of|between|among) (.+?) and (.+)$")
_OPTIONS_INSIDE = re.compile(rf"^({_AUX}) (.+?) or (.+?) ((?:[a-z]+ ?)+)$")


def compared_options(question: str) -> tuple[str, list[str]]:
    """A comparison's lead words and its two options ('', [] when it names none).

    "Which came out first, A or B?", "Was A or B born first?", "Who was born first out of A
    and B?". Titles may hold commas, colons and capitalized "Or": the lead is what precedes the first
    comma, and the options split at the first lower-case "or".
    """
    inside = _OPTIONS_INSIDE.match(question[:1].lower() + question[1:])
    if inside and _is_name_word(inside.group(2)) and _is_name_word(inside.group(3)):
        return f"{inside.group(1)} {inside.group(4)}".lower(), [inside.group(2), inside.group(3)]
    after = _OPTIONS_AFTER.match(question)
    if after and _is_name_word(after.group(2)):
        return after.group(1).lower(), [after.group(2), after.group(3)]
    if ", " in question and " or " in question.split(", ", 1)[1]:
        lead, rest = question.split(", ", 1)
        first, second = rest.split(" or ", 1)
        if first.strip() and second.strip():
            return lead.lower(), [first.strip(), second.strip()]
    options = question_options(question)
    if len(options) == 2:
        return question.lower().split(options[0].lower())[0], options
    return "", []


def _comparison(question: str, plan: _Plan) -> bool:
    """A comparison: "Which came out first, A or B?", through a bridge ("A's director")."""
    lead, options = compared_options(question)
    if not options:
        return False
    if _LONGER.search(lead):
        measure: Compute = "longest"
    elif _LATEST.search(lead):
        measure = "latest"
    elif _EARLIEST.search(lead):
        measure = "earliest"
    else:
        return False
    bridge = _bridge_noun(lead)
    event = _EVENT.search(lead)
    if _DIED.search(lead):
        attributes = [("died", "When did {} die?")]
    elif event:
        attributes = [(event.group(0), "When was {} " + event.group(0) + "?")]
    elif _BORN.search(lead) and (bridge or _PERSON_LEAD.search(lead)) or measure == "longest":
        attributes = [("born", "When was {} born?")]
    else:  # "Which is older, the dam or the mill?": whenever each came to be
        attributes = [("began", "When did {} begin?")]
    if measure == "longest":
        attributes = [("born", "When was {} born?"), ("died", "When did {} die?")]
    deps: list[int] = []
    for option in options:
        ref = plan.relation_hop(bridge, option) if bridge else option
        for relation, template in attributes:
            deps.append(int(plan.add(template.format(ref), ref, relation, "date")[1:]))
    plan.add(question + "?", "", measure, "other", measure, deps, options)
    return True


_SAME = re.compile(
    r"^(?:are|were|is|was|do|did|does) (.+?),? (?:both )?(?:(?:from|located in|based in|in|"
    r"of|founded in|have|had|share|sharing|with) )?(?:the )?same (\w+)(?: as (.+))?$"
)
_LEAD_BRIDGE = re.compile(r"^(?:both )?(?:the )?([a-z]+?)s? of (?:both )?(.+)$")
_TAIL_BRIDGE = re.compile(
    r"^(.+) (?:have|had) (?:the )?([a-z]+?)s?(?: (?:that|who))?(?: from| be)?$"
)
_KINDS_LEAD = re.compile(
    r"^(?:both )?(?:the )?(?:(?:films?|movies?|songs?|albums?|bands?|magazines?)"
    r",? )?(?:both )?"
)


def _same(question: str, plan: _Plan) -> bool:
    """A sameness question: "Are A and B from the same country?" (each one's, then compared)."""
    found = _SAME.match(question[:1].lower() + question[1:])
    if not found:
        return False
    pair, noun, other = found.group(1), found.group(2).lower(), found.group(3)
    bridge = ""
    tail = _TAIL_BRIDGE.match(pair)  # "Do both films A and B have the directors from …"
    if tail and relation_type(tail.group(2)) == "person":
        pair, bridge = tail.group(1), tail.group(2)
    lead = _LEAD_BRIDGE.match(pair)  # "Are the directors of both films A and B from …"
    if lead and relation_type(lead.group(1)) == "person":
        bridge, pair = lead.group(1), lead.group(2)
    pair = _KINDS_LEAD.sub("", pair)
    if other:  # "Does A have the same nationality as B?"
        first, second = re.sub(r" (?:have|has|had)$", "", pair), other
    elif " and " in pair:
        first, second = pair.split(" and ", 1)
    else:
        return False
    second = re.sub(r",? both$", "", second)
    noun = "country" if noun in ("nationality", "citizenship") else noun
    deps = []
    for option in (first, second):
        ref = plan.relation_hop(bridge, option) if bridge else _option_ref(option, plan)
        hop = plan.add(f"Which {noun} is {ref} from?", ref, noun, relation_type(noun))
        deps.append(int(hop[1:]))
    plan.add(question + "?", "", f"same {noun}", "other", "same", deps, [first, second])
    return True


_BOTH = re.compile(rf"^({_AUX}) (?:both )?(.+?) and (.+?) both (.+)$", re.I)
_BOTH_FIRST = re.compile(rf"^({_AUX}) both (.+)$", re.I)


def _both(question: str, plan: _Plan) -> bool:
    """A both-question: "Are A and B both Z?" is yes only when A is Z and B is Z."""
    found = _BOTH.match(question)
    if found:
        aux, first, second, claim = found.groups()
    else:
        lead = _BOTH_FIRST.match(question)
        if not lead:
            return False
        aux, rest = lead.groups()
        words = rest.split()
        if " and " not in rest:
            return False
        split = words.index("and") if "and" in words else -1
        end = entity_end(words, split + 1)
        if split < 1 or end == split + 1 or end >= len(words):
            return False
        first, second, claim = " ".join(words[:split]), " ".join(words[split + 1 : end]), ""
        claim = " ".join(words[end:])
    deps = []
    for option in (first, second):
        ref = _option_ref(option.strip(" ,"), plan)
        hop = plan.add(f"{aux.capitalize()} {ref} {claim}?", ref, claim, "other")
        deps.append(int(hop[1:]))
    plan.add(question + "?", "", claim, "other", "all", deps, [first, second])
    return True


_COMMON = re.compile(
    r"^(?:which|what|who) ((?:\w+ ){0,2}\w+?) (?:do|did|does) (?:both )?(.+?) and (.+?) "
    r"(?:have in common|share|both \w+)$",
    re.I,
)


def _common(question: str, plan: _Plan) -> bool:
    """An intersection: "Which actor do A and B have in common?" (each one's, then shared)."""
    found = _COMMON.match(question)
    if not found:
        return False
    noun, first, second = found.groups()
    kind = relation_type(noun)
    deps = [int(plan.add(f"Which {noun} is in {o}?", o, noun, kind)[1:]) for o in (first, second)]
    plan.add(question + "?", "", noun, kind, "common", deps, [first, second])
    return True


def decompose(question: str) -> list[Hop]:
    """The hops a question's parse gives, dependencies first; [] when it gives no decomposition."""
    text = " ".join(question.strip().rstrip("?.! ").split())
    if not text:
        return []
    for reader in (_comparison, _same, _both, _common, _chain):
        plan = _Plan()
        if reader(text, plan) and len(plan.hops) <= MAX_PARSED_HOPS:
            return plan.hops
    return []


def describe_hop(question: str) -> tuple[str, str, AnswerType]:
    """A one-hop question's subject (a name or `#k`), relation phrase and answer type.

    For hops a model wrote ("Who directed #1?"): a description in it is read as the planner
    reads one ("the director of X"); otherwise the subject is its placeholder or first name.
    """
    text = " ".join(question.strip().rstrip("?.! ").split())
    words = text.split()
    plan = _Plan()
    rest = (
        _of_description(words, plan)
        or _possessive(words, plan)
        or _noun_after_name(words, plan)
        or _prep_description(words, plan)
    )
    if rest is not None and len(plan.hops) == 1 and _DEGENERATE.match(" ".join(rest)):
        hop = plan.hops[0]
        return hop.subject, hop.relation, hop.answer_type
    refs = _PLACEHOLDER.findall(text)
    subject = refs[0] if refs else ""
    if not subject:
        starts = [i for i, w in enumerate(words) if i > 0 and _is_name_word(w)]
        if starts:
            subject = " ".join(words[starts[0] : entity_end(words, starts[0])])
    relation = _main_relation(" ".join(w for w in words if w not in subject.split()))
    return subject, relation, wh_type(wh_words(text))
