"""Questions that ask for one thing by two facts: each fact is a hop, the answer is shared.

"What film was directed by X and stars Y?" names the film by two predicates joined by "and";
"Which road borders both X and Y?" by one predicate over two names. Either way no single lookup
finds it from one fact alone: each fact gets its own hop ("What film was directed by X?", "What
film stars Y?") and a computed hop names the answer both give.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span, Token

from resin.agent.language.relations import question_type
from resin.agent.planning.declaratives import front, opens_question
from resin.agent.planning.names import Plan, entity_end, is_name_word, main_relation, wh_words
from resin.indexes.nlp_extraction import load_pipeline

_OPENERS = frozenset("what which who".split())
_WH = frozenset("what which who whom where when how".split())
# Verbs that only support another ("did X direct"): the question word is then no subject.
_SUPPORT = frozenset("do does did".split())

# Tags of a verb with a tense of its own.
FINITE = frozenset("VBD VBZ VBP MD".split())
# Words that open a clause inside a predicate: an "and" after one may join the clause's verbs.
_CLAUSE = frozenset("that who whom whose which where when".split())


def _verb(token: Token, *, finite: bool = False) -> bool:
    """A verb, or a plural noun the parse misread for one ("and stars X", "and features the").

    `finite`: a verb with a tense of its own; a bare participle after "and" ("and named after")
    joins the participles of a description, not the question's predicates.
    """
    if token.tag_ in FINITE or not finite and token.tag_.startswith("VB"):
        return True
    nxt = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return (
        token.tag_ == "NNS"
        and token.is_lower
        and nxt is not None
        and (nxt.tag_ in ("DT", "NNP", "NNPS") or nxt.lower_ == "both" or nxt.text[:1] in "\"'“")
    )


def _asking(doc: Doc) -> int:
    """Where the predicate opens after the question's subject phrase ("What film" | "was …"), or 0.

    The phrase is the question word and the nouns after it; a predicate that opens with "did"
    asks of another subject, and a verb later in the phrase means there is no clean phrase.
    """
    if not len(doc) or doc[0].lower_ not in _OPENERS:
        return 0
    at = 1
    while at < len(doc) and not _verb(doc[at]):
        if doc[at].is_punct or doc[at].lower_ in ("and", "or", "that", "who", "which"):
            return 0
        at += 1
    if at >= len(doc) or doc[at].lower_ in _SUPPORT or at > 5:
        return 0
    return at


def fact(phrase: str, predicate: Span, plan: Plan, *, said: str = "") -> int:
    """One fact about the asked thing as its own question; its hop id.

    `said` is the predicate as the hop words it ("is in film X" for the modifier "in film X").
    """
    return _ask(phrase, " ".join((said or predicate.text).split()), subject_of(predicate), plan)


def subject_of(predicate: Span) -> str:
    """The first proper name a predicate holds, or "".

    A number, a date or a nationality ("in 1901", "a Danish master") modifies or dates the
    fact, and a capitalized verb or adjective opens a title's words, not a name of its own.
    """
    words = predicate.text.split()
    starts = [
        _word_at(predicate.doc.text[predicate.start_char : t.idx])
        for t in predicate
        if is_name_word(t.text)
        and t.tag_ not in ("CD", "JJ")
        and not t.tag_.startswith("VB")
        and t.ent_type_ not in ("NORP", "DATE", "CARDINAL")
    ]
    return " ".join(words[starts[0] : entity_end(words, starts[0])]) if starts else ""


def shared(question: str, phrase: str, deps: list[int], parts: list[str], plan: Plan) -> None:
    """The computed last hop: the answer the facts `deps` (about `parts`) have in common."""
    kind = plan.hops[0].answer_type
    plan.add(question + "?", "", main_relation(phrase), kind, "common", deps, parts)


def _word_at(before: str) -> int:
    """The index of the whitespace word a token opens or sits in ('"Red' for "Red")."""
    count = len(before.split())
    return count - 1 if before and not before[-1].isspace() else count


def _ask(phrase: str, predicate: str, subject: str, plan: Plan) -> int:
    """The hop asking the predicate of the asked thing; its hop id."""
    relation = main_relation(predicate)
    kind = question_type(phrase.lower(), relation)
    return int(plan.add(f"{phrase} {predicate}?", subject, relation, kind)[1:])


def conjoined(question: str, plan: Plan) -> bool:
    """Read "WH-PHRASE PREDICATE and PREDICATE": two facts about the asked thing, then shared.

    The question word opens the subject phrase; the second predicate opens with a verb right
    after the only "and" and has no subject of its own; the first holds no clause the "and" could
    go on in ("Who owns the team that won X and was founded by Y"). Both predicates name something.
    """
    doc = load_pipeline()(question)
    start = _asking(doc)
    if not start:
        return False
    ands = [t for t in doc[start:] if t.lower_ == "and"]
    if len(ands) != 1:
        return False
    split = ands[0].i
    if split + 1 >= len(doc) or not _verb(doc[split + 1], finite=True):
        return False
    if doc[split - 1].lower_ == "," or any(t.lower_ in _CLAUSE for t in doc[start:split]):
        return False
    phrase = doc[:start].text
    end = len(doc) - 1 if doc[-1].is_punct else len(doc)
    first, second = doc[start:split], doc[split + 1 : end]
    if not all(any(is_name_word(t.text) for t in p) for p in (first, second)):
        return False
    deps = [fact(phrase, first, plan), fact(phrase, second, plan)]
    shared(question, phrase, deps, [first.text, second.text], plan)
    return True


def both_objects(question: str, plan: Plan) -> bool:
    """Read "WH-PHRASE VERB both A and B": the verb's fact about each name, then shared.

    "Which road borders both X and Y?" → "Which road borders X?", "Which road borders Y?".
    The names after "both" run to the question's end.
    """
    doc = load_pipeline()(question)
    start = _asking(doc)
    words = doc.text.rstrip("?. ").split()
    lower = [w.lower() for w in words]
    if not start or not doc[start].tag_.startswith("VB") or "both" not in lower:
        return False
    if "and" not in lower:
        return False
    at = lower.index("both")
    split = lower.index("and")
    if not start <= at < split or split == at + 1:
        return False
    first, second = " ".join(words[at + 1 : split]), " ".join(words[split + 1 :])
    if not is_name_word(words[at + 1]) or entity_end(words, split + 1) != len(words):
        return False
    verb = " ".join(words[len(doc[:start].text.split()) : at])
    phrase = doc[:start].text
    deps = [_ask(phrase, f"{verb} {name}", name, plan) for name in (first, second)]
    shared(question, phrase, deps, [first, second], plan)
    return True


_BOTH_SUBJECTS = re.compile(r"^(?:both )?(.+?) and (.+?) (?:(are|were|have|had) )?both (.+)$", re.I)
_SINGULAR = {"are": "is", "were": "was", "have": "has", "had": "had"}


def _named(option: str) -> str:
    """The option as a name ("the Croatan Forest" → "Croatan Forest"), or "" for none."""
    words = option.strip(" ,").split()
    if words and words[0].lower() == "the":
        words = words[1:]
    if not words or not is_name_word(words[0]) or entity_end(words, 0) != len(words):
        return ""
    return " ".join(words)


def _one(rest: str) -> str:
    """The predicate said of one of them: "examples of what" → "an example of what"."""
    doc = load_pipeline()(f"They are {rest}")
    at = 2
    while at < len(doc) and doc[at].tag_ in ("JJ", "HYPH", "NN", "NNP"):
        at += 1
    if at >= len(doc) or doc[at].tag_ != "NNS" or doc[2].tag_ == "DT":
        return rest
    noun = doc[2 : at + 1].text
    one = noun[: len(noun) - len(doc[at].text)] + doc[at].lemma_
    article = "an" if one[:1].lower() in "aeiou" else "a"
    return f"{article} {one} {doc[at + 1 :].text}".strip()


def both_subjects(question: str, plan: Plan) -> bool:
    """Read "A and B are both … what N?": the statement of each name, asked, then shared.

    "X and Y are both located in which state?" → "In which state is X located?", "In which
    state is Y located?"; with no auxiliary the verb takes do-support ("X and Y both specialize
    in what service?" → "In what service does X specialize?"). Each hop must read as a question.
    """
    found = None if opens_question(question) else _BOTH_SUBJECTS.match(question)
    if not found:
        return False
    first, second, aux, rest = found.groups()
    options = [_named(first), _named(second)]
    if not all(options) or not any(w.lower() in _WH for w in rest.split()):
        return False
    if aux:
        statement = (
            f"{_SINGULAR[aux.lower()]} {_one(rest) if aux.lower() in ('are', 'were') else rest}"
        )
    else:
        # the verb as it reads after "they": its tense gives the do-support
        verb = load_pipeline()(f"They {rest}")[1]
        if verb.tag_ not in ("VBP", "VBD") or len(rest.split()) < 2:
            return False
        do = "did" if verb.tag_ == "VBD" else "does"
        statement = f"{do} {verb.lemma_} {rest.split(maxsplit=1)[1]}"
    asked = [front(f"{name} {statement}") for name in options]
    if not all(asked):
        return False
    relation = main_relation(" ".join(w for w in rest.split() if w.lower() not in _WH))
    deps = []
    for name, hop in zip(options, asked, strict=True):
        kind = question_type(wh_words(hop or ""), relation)
        deps.append(int(plan.add(hop or "", name, relation, kind)[1:]))
    plan.add(question + "?", "", relation, plan.hops[0].answer_type, "common", deps, options)
    return True
