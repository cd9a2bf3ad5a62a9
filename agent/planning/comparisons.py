"""Comparisons of options, "the same" questions, "both" yes/no questions and intersections."""

from __future__ import annotations

import re

from resin.agent.language.choices import question_options
from resin.agent.language.relations import relation_type
from resin.agent.planning.descriptions import (
    is_nationality,
    of_description,
    possessive,
    strip_kind,
)
from resin.agent.planning.names import AUX, PLACEHOLDER, Plan, entity_end, is_name_word
from resin.agent.planning.quantities import quantity
from resin.agent.state import Compute
from resin.indexes.nlp_extraction import load_pipeline

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


def _option_ref(option: str, plan: Plan) -> str:
    """An option as a hop subject: a name, or the placeholder of its description's hop."""
    words = option.split()
    nxt = of_description(words, plan) or possessive(words, plan)
    if nxt is not None and len(nxt) == 1 and PLACEHOLDER.fullmatch(nxt[0]):
        return nxt[0]
    if words[0].lower() in ("director", "composer", "performer", "author", "creator", "producer"):
        rest = words[1:]
        if rest and rest[0] == "of":
            rest = rest[1:]
        start = strip_kind(rest, 0)
        return plan.relation_hop(words[0].lower(), " ".join(rest[start:]))
    return option


def _bridge_noun(lead: str) -> str:
    """The person the options are compared by: "Which film has the director who …" → director."""
    found = re.search(r"\b(?:has|with|whose|by|of) (?:the )?([a-z]+?)s?\b(?! of\b)", lead)
    if found and relation_type(found.group(1)) == "person" and found.group(1) not in ("person",):
        return found.group(1)
    return ""


# "Between the two film makers A and B, who was born earlier?": the kind's words, then the names.
_OPTIONS_BEFORE = re.compile(
    r"^[Bb]etween (?:[a-z-]+,? )*?([A-Z][^,]*?) and ([^,]+?), ((?:who|which|what)\b.+)$"
)
_OPTIONS_AFTER = re.compile(r"^([^,]+?),? (?:out of|between|among) (.+?) and (.+)$")
_OPTIONS_INSIDE = re.compile(rf"^({AUX}) (.+?) or (.+?) ((?:[a-z]+ ?)+)$")
# "Is A older than B", "Was A built before B", "Does A have more members than B": a comparison
# asked as yes or no, A the claimed one.
_ARTICLE = re.compile(r"^(?:the|a|an) ")
_CLAIM = (
    r"((?:[a-z]+ ){0,2}(?:[a-z]+er than|before|after|prior to)|"
    r"(?:[a-z]+ ){0,2}(?:more|fewer|less|[a-z]+er) [a-z]+(?: [a-z]+)? than) (.+)$"
)
# The predicate after options set off by commas: a lower-case word that opens no apposition.
_TOLD_AFTER = re.compile(
    r"^(.+?), (?!(?:the|a|an|its|his|her|their|this|that|these|those|one|both|each|which|who|"
    r"whose|and|or|also|respectively)\b)([a-z][\w'-]* .+)$"
)
_CLAIMED = re.compile(rf"^((?:is|was|are|were|did|does|do|has|have|had) )(.+?) {_CLAIM}")
_CLAIM_REST = re.compile(rf"^{_CLAIM}")


def compared_options(question: str) -> tuple[str, list[str]]:
    """A comparison's lead words and its two options ('', [] when it names none).

    "Which came out first, A or B?", "Was A or B born first?", "Who was born first out of A
    and B?"; asked as yes or no, "Is A older than B?" (A first, the one the question claims).
    Titles may hold commas, colons and capitalized "Or": the lead is what precedes the first
    comma, and the options split at the first lower-case "or".
    """
    claimed = _CLAIMED.match(question[:1].lower() + question[1:])
    if claimed and all(is_name_word(_ARTICLE.sub("", claimed.group(i))) for i in (2, 4)):
        aux, first, compared, second = claimed.groups()
        words = f"{first} {compared} {second}".split()
        end = entity_end(words, len(_ARTICLE.findall(first)))
        runs_on = _CLAIM_REST.match(" ".join(words[end:]))
        if end > len(first.split()) and runs_on:  # "Does La fida ninfa have …": the name runs on
            first, compared, second = " ".join(words[:end]), runs_on.group(1), runs_on.group(2)
        return aux + compared, [first, second]
    inside = _OPTIONS_INSIDE.match(question[:1].lower() + question[1:])
    if inside and is_name_word(inside.group(2)) and is_name_word(inside.group(3)):
        return f"{inside.group(1)} {inside.group(4)}".lower(), [inside.group(2), inside.group(3)]
    before = _OPTIONS_BEFORE.match(question)
    if before:
        return before.group(3).lower(), [before.group(1), before.group(2)]
    after = _OPTIONS_AFTER.match(question)
    if after and is_name_word(after.group(2)):
        return after.group(1).lower(), [after.group(2), after.group(3)]
    if ", " in question and " or " in question.split(", ", 1)[1]:
        lead, rest = question.split(", ", 1)
        first, second = rest.split(" or ", 1)
        told = _TOLD_AFTER.match(second)  # "Which film, A or B, was released first?"
        if told:
            second, lead = told.group(1), f"{lead} {told.group(2)}"
        if first.strip() and second.strip():
            return lead.lower(), [first.strip(), second.strip()]
    options = question_options(question)
    if len(options) == 2:
        return question.lower().split(options[0].lower())[0], options
    return "", []


def comparison(question: str, plan: Plan) -> bool:
    """A comparison: "Which came out first, A or B?", through a bridge ("A's director").

    A lead that compares no dates may compare a count or a measure ("more members", "taller").
    """
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
        return _by_quantity(question, lead, options, plan) or _by_claim(
            question, lead, options, plan
        )
    bridge = _bridge_noun(lead)
    event = _EVENT.search(lead)
    if _DIED.search(lead):
        attributes = [("died", "When did {} die?")]
    elif event and event.group(0) in ("came out", "come out"):
        attributes = [("came out", "When did {} come out?")]
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


def _by_quantity(question: str, lead: str, options: list[str], plan: Plan) -> bool:
    """A comparison by a count or a measure: each option's number, then the most or the least."""
    asked = quantity(lead)
    if asked is None:
        return False
    # the lead was read in lower case: its words get the question's case back ("Olympic medals")
    cased = {w.lower(): w for w in re.findall(r"[\w'-]+", question)[1:]}
    template = re.sub(
        r"(?<=\w )[\w'-]+", lambda m: cased.get(m.group(0), m.group(0)), asked.template
    )
    deps = []
    for option in options:
        hop = plan.add(template.format(option), option, asked.relation, "number")
        deps.append(int(hop[1:]))
    plan.add(question + "?", "", asked.relation, "other", asked.compute, deps, options)
    return True


# Tags and words that rank the options: a comparison, not a claim one option makes true.
_RANKED_TAGS = frozenset("JJR RBR JJS RBS".split())
_RANKED_WORDS = frozenset("more most less least fewer first last".split())
_FINITE_TAGS = frozenset("VBD VBZ VBP".split())
_BE, _HAVE = frozenset("is was are were".split()), frozenset("has have had".split())


def _by_claim(question: str, lead: str, options: list[str], plan: Plan) -> bool:
    """A choice by a claim: "Which musician, A or B, is a member of Fuel?" asks each option.

    Each option gets a yes/no hop ("Is A a member of Fuel?", "Did A write of …?"); the answer is
    the one option its hop says yes to. The claim is the lead's predicate: its first verb with a
    tense on, after the question word and the kind asked about. A claim that ranks the options
    ("is older", "has more members") or denies ("was not animated") is none.
    """
    if not all(_ARTICLE.match(o) or is_name_word(o) for o in options):
        return False
    doc = load_pipeline()(lead)
    if len(doc) < 3 or doc[0].lower_ not in ("which", "what", "who"):
        return False
    verb = next((t for t in doc[1:] if t.tag_ in _FINITE_TAGS or t.pos_ == "VERB"), None)
    if verb is None or verb.tag_ not in _FINITE_TAGS or verb.i > 7 or verb.i + 1 >= len(doc):
        return False
    if any(t.tag_ == "POS" for t in doc[: verb.i]):  # "Which cocktail's name …": not the option
        return False
    start = verb.i
    while start > 1 and doc[start - 1].tag_ == "RB":  # "actually lived": the adverb goes along
        start -= 1
    said = doc[start:]
    if any(t.tag_ in _RANKED_TAGS or t.lower_ in _RANKED_WORDS or t.dep_ == "neg" for t in said):
        return False
    adverbs, rest = doc[start : verb.i].text, doc[verb.i + 1 :].text
    written = re.search(re.escape(rest), question, re.I)  # the question's own case back
    rest = written.group(0).strip() if written else rest
    word = verb.lower_
    if word in _BE:
        ask, claim = ("Is" if word in ("is", "are") else "Was"), f"{adverbs} {rest}"
    elif word in _HAVE and doc[verb.i + 1].tag_ == "VBN":  # "has been making": it stays perfect
        ask, claim = ("Has" if word != "had" else "Had"), f"{adverbs} {rest}"
    elif word in ("do", "does", "did"):  # "Which band did X join": the question word is no subject
        return False
    else:
        ask = "Did" if verb.tag_ == "VBD" else "Does"
        claim = f"{adverbs} {verb.lemma_} {rest}"
    claim = " ".join(claim.split())
    deps = []
    for option in options:
        ref = _option_ref(option, plan)
        deps.append(int(plan.add(f"{ask} {ref} {claim}?", ref, claim, "other")[1:]))
    plan.add(question + "?", "", claim, "other", "chosen", deps, options)
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


def same(question: str, plan: Plan) -> bool:
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


_BOTH = re.compile(rf"^({AUX}) (?:both )?(.+?) and (.+?) both (.+)$", re.I)
_BOTH_FIRST = re.compile(rf"^({AUX}) both (.+)$", re.I)


def both(question: str, plan: Plan) -> bool:
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
        if end == len(words) and end - split > 3 and is_nationality(words[-1]):
            end -= 1  # "Are both A and B American?": the claim is the nationality
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


def common(question: str, plan: Plan) -> bool:
    """An intersection: "Which actor do A and B have in common?" (each one's, then shared)."""
    found = _COMMON.match(question)
    if not found:
        return False
    noun, first, second = found.groups()
    kind = relation_type(noun)
    asked = [
        plan.add(f"Which {noun} is {o} associated with?", o, noun, kind) for o in (first, second)
    ]
    deps = [int(ref[1:]) for ref in asked]
    plan.add(question + "?", "", noun, kind, "common", deps, [first, second])
    return True
