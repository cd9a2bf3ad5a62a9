"""What a relation phrase means for a hop: the answer type it expects and the words that write it.

English, not any corpus: a relational noun ("director", "place of birth", "father-in-law") names
the kind of thing its hop answers with, and the verbs and nouns a sentence uses to say it
("directed by", "born in", "married"). The parse-based planner (`resin.agent.planning`) reads these
to type its hops; the hop reader (`resin.agent.reading.hop_answer`) reads them to find the sentence that
answers one.
"""

from __future__ import annotations

import re
from typing import Literal

AnswerType = Literal["person", "place", "date", "number", "organization", "work", "other"]
ANSWER_TYPES: tuple[AnswerType, ...] = (
    "person",
    "place",
    "date",
    "number",
    "organization",
    "work",
    "other",
)

# spaCy (OntoNotes) entity labels an answer of each type may carry. A person is never a
# nationality (NORP), a date never a name.
TYPE_LABELS: dict[AnswerType, frozenset[str]] = {
    "person": frozenset({"PERSON"}),
    "place": frozenset({"GPE", "LOC", "FAC"}),
    "date": frozenset({"DATE"}),
    "number": frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE"}),
    "organization": frozenset({"ORG", "FAC"}),
    "work": frozenset({"WORK_OF_ART", "ORG", "EVENT", "PRODUCT"}),
    "other": frozenset(),
}

# Relational nouns by the type of thing they name, with the words a sentence writes the relation in.
_PEOPLE = {
    "director": "directed director",
    "composer": "composed composer music score",
    "performer": "performed performer sung singer recorded band",
    "singer": "sung singer sang recorded",
    "author": "author wrote written writes book novel",
    "writer": "wrote written writes",
    "screenwriter": "wrote written screenplay",
    "songwriter": "wrote written song",
    "lyricist": "lyrics wrote",
    "creator": "created creator creates",
    "producer": "produced producer",
    "founder": "founded founder",
    "owner": "owns owned owner",
    "designer": "designed designer",
    "architect": "designed architect",
    "editor": "edited editor",
    "presenter": "presented hosted host",
    "star": "starred starring star",
    "actor": "starred starring actor actress cast",
    "cast member": "starred starring actor actress cast",
    "actress": "starred starring actor actress cast",
    "father": "father",
    "mother": "mother",
    "son": "son",
    "daughter": "daughter",
    "spouse": "married marry wife husband spouse",
    "husband": "married marry husband wife",
    "wife": "married marry wife husband",
    "brother": "brother",
    "sister": "sister",
    "child": "son daughter child",
    "sibling": "brother sister",
    "coach": "coach coached",
    "manager": "manager managed",
    "leader": "leader led",
    "president": "president",
    "captain": "captain",
    "mayor": "mayor elected",
    "governor": "governor",
    "chairman": "chairman",
    "chief executive": "chief executive ceo",
    "prime minister": "prime minister",
    "successor": "succeeded successor",
    "predecessor": "preceded predecessor succeeded",
    "rapper": "rapper",
    "player": "played player",
    "winner": "won winner",
    "person": "",
}
_PLACES = {
    "place of birth": "born birth",
    "birthplace": "born birth",
    "birth place": "born birth",
    "birth city": "born birth",
    "place of death": "died die dies death",
    "place of burial": "buried burial",
    "burial place": "buried burial",
    "country of citizenship": "citizen nationality",
    "country of origin": "origin country",
    "country": "country",
    "city": "city",
    "town": "town",
    "state": "state",
    "capital": "capital",
    "headquarters": "headquarters headquartered based",
    "location": "located location",
    "place": "",
    "region": "region",
    "county": "county",
    "district": "district",
    "province": "province",
    "village": "village",
    "port": "port",
    "harbor": "harbor harbour port",
    "continent": "continent",
    "island": "island",
    "river": "river",
    "mountain": "mountain",
}
_DATES = {
    "date of birth": "born birth",
    "birth date": "born birth",
    "birthday": "born birth",
    "date of death": "died die dies death",
    "death date": "died die dies death",
    "release date": "released release",
    "publication date": "published released release",
    "year": "",
    "date": "",
    "inception": "founded established created opened formed built began",
    # when something came to be, whatever it is: a person's birth, a building's completion
    "began": "born birth founded built completed established opened formed created released "
    "started begun first record records recorded dates",
}
_NUMBERS = {
    "population": "population inhabitants",
    "number": "",
    "height": "tall high",
    "age": "age",
}
_ORGS = {
    "record label": "label record",
    "label": "label record",
    "company": "company",
    "university": "university",
    "school": "school",
    "college": "college",
    "team": "team club",
    "club": "club",
    "band": "band",
    "party": "party",
    "publisher": "published publisher",
    "employer": "worked employed",
    "alma mater": "graduated studied educated attended university college",
    "operator": "operated operator operates",
    "network": "network aired",
    "league": "league",
    "manufacturer": "manufactured manufacturer made",
    "maker": "made maker",
    "organization": "",
}
_WORKS = {
    "film": "film",
    "movie": "film movie",
    "album": "album",
    "song": "song",
    "book": "book",
    "novel": "novel",
    "show": "show series",
    "series": "series",
    "magazine": "magazine",
}
_OTHER = {
    "religion": "religion religious faith",
    "genre": "genre",
    "language": "language spoken",
    "instrument": "instrument plays played",
    "occupation": "occupation profession work",
    "sport": "sport plays played",
    "position": "position played",
}
_NATIONALITY = {"nationality": "nationality citizen", "citizenship": "citizen nationality"}

_LEXICON: dict[str, tuple[AnswerType, str]] = {
    **{k: ("person", v) for k, v in _PEOPLE.items()},
    **{k: ("place", v) for k, v in _PLACES.items()},
    **{k: ("place", v) for k, v in _NATIONALITY.items()},
    **{k: ("date", v) for k, v in _DATES.items()},
    **{k: ("number", v) for k, v in _NUMBERS.items()},
    **{k: ("organization", v) for k, v in _ORGS.items()},
    **{k: ("work", v) for k, v in _WORKS.items()},
    **{k: ("other", v) for k, v in _OTHER.items()},
}

# Kin terms that are two relations in a row: "X's paternal grandfather" is X's father's father.
KINSHIP: dict[str, tuple[str, str]] = {
    "paternal grandfather": ("father", "father"),
    "paternal grandmother": ("father", "mother"),
    "maternal grandfather": ("mother", "father"),
    "maternal grandmother": ("mother", "mother"),
    "father-in-law": ("spouse", "father"),
    "father in law": ("spouse", "father"),
    "mother-in-law": ("spouse", "mother"),
    "mother in law": ("spouse", "mother"),
}
# How a sentence writes a kin relation around its answer, on normalized text, "X" standing for the
# answer: "son of X" (the first parent named is the father), "son of A and his wife X" (the second
# is the mother), "his wife X", "X, father of". The words between stop at "and", so the father's
# frame never reaches past the first parent.
_PARENT = r"\b(?:son|daughter|child|children|heir|born) (?:of|to)"
# Words between "and" and the second parent: "and his second wife X", "and the former Lady X".
_ESCORT = r"(?:his|her|their|the|first|second|third|former|late|wife|consort|lady|queen)"
_SPOUSE = (
    r"\b(?:married|marry|marrying|wed|wife|husband|spouse|consort|widow|widower) (?:\w+ ){0,2}X\b",
    r"\bX (?:\w+ ){0,2}(?:married|wed)\b",
)
KIN_FRAMES: dict[str, tuple[str, ...]] = {
    "father": (
        rf"{_PARENT} (?:(?!and )\w+ ){{0,3}}X\b",
        r"\bfather (?:\w+ ){0,2}X\b",
        r"\bX (?:\w+ ){0,2}father of\b",
    ),
    "mother": (
        rf"{_PARENT} (?:(?!and )\w+ ){{1,8}}and (?:{_ESCORT} ){{0,3}}X\b",
        r"\bmother (?:\w+ ){0,2}X\b",
        r"\bX (?:\w+ ){0,2}mother of\b",
    ),
    "spouse": _SPOUSE,
    "husband": _SPOUSE,
    "wife": _SPOUSE,
    "child": (r"\b(?:son|daughter|child|children|sons|daughters) (?:\w+ ){0,2}X\b",),
    "son": (r"\b(?:son|sons|child|children) (?:\w+ ){0,2}X\b",),
    "daughter": (r"\b(?:daughter|daughters|child|children) (?:\w+ ){0,2}X\b",),
    "sibling": (r"\b(?:brother|sister|sibling|siblings) (?:\w+ ){0,2}X\b",),
    "brother": (r"\bbrother (?:\w+ ){0,2}X\b",),
    "sister": (r"\bsister (?:\w+ ){0,2}X\b",),
}


def kin_frame(relation: str, sentence: str, answer: str) -> bool:
    """Does the sentence (normalized) write the answer (normalized) in the relation's kin frame?"""
    frames = KIN_FRAMES.get(relation_head(relation))
    if not frames or not answer:
        return False
    x = re.escape(answer)
    return any(re.search(f.replace("X", x), sentence) for f in frames)


# Words that may stand before a relational noun without changing it ("the busiest airport").
_MODIFIER = re.compile(r"^(?:the |a |an )?(?:(?:first|last|main|current|original|former) )?")


def relation_head(phrase: str) -> str:
    """The lexicon entry a relation phrase ends in ("the film's director" → "director"), or ''."""
    words = _MODIFIER.sub("", phrase.lower().strip()).split()
    for size in (4, 3, 2, 1):
        if len(words) >= size and " ".join(words[-size:]) in _LEXICON:
            return " ".join(words[-size:])
    return ""


def relation_type(phrase: str) -> AnswerType:
    """The answer type a relation phrase expects ("director" → person); 'other' when unknown."""
    head = relation_head(phrase)
    return _LEXICON[head][0] if head else "other"


def relation_words(phrase: str) -> frozenset[str]:
    """Word stems (five letters at most) a sentence writes the relation with, the phrase's own too."""
    head = relation_head(phrase)
    extra = _LEXICON[head][1].split() if head else []
    own = [w for w in re.findall(r"[a-z]+", phrase.lower()) if w not in {"of", "the", "a", "an"}]
    return frozenset(f[:5] for f in [*extra, *(f for w in own for f in inflections(w))])


# A final y after a consonant, which turns i before "-es" and "-ed".
_TURNS_Y = re.compile(r"[^aeiou]y$")


def inflections(word: str) -> list[str]:
    """A short word and its regular inflections: the hop asks "die", the sentence writes "died".

    A stem cut to five letters meets the inflections of a longer word by itself; a shorter one
    ("die", "live", "work", "star") meets them only written out.
    """
    if _TURNS_Y.search(word):  # "study" → "studies", "studied": the y turns i before a suffix
        return [word, f"{word[:-1]}ies", f"{word[:-1]}ied", f"{word}ing"]
    if len(word) >= 5:
        return [word]
    bare = word[:-1] if word.endswith("e") else word
    forms = [word, f"{word}s", f"{bare}ed", f"{bare}ing"]
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwy]", word):  # "star" → "starred", "starring"
        forms += [f"{word}{word[-1]}ed", f"{word}{word[-1]}ing"]
    return forms


def role_words(phrase: str) -> frozenset[str]:
    """The words that write a person's role ("mayor" → mayor, elected), or none for other relations.

    A person linked to the subject in some other way (who lived there, who worked with it) is no
    answer to a role: the hop reader answers a role only from a sentence that writes it.
    """
    head = relation_head(phrase)
    if not head or head not in _PEOPLE:
        return frozenset()
    return frozenset(w[:5] for w in _LEXICON[head][1].split())


def is_relational(phrase: str) -> bool:
    """Does the phrase name a relation the lexicon knows (so 'the X of Y' is a hop, not a name)?"""
    return bool(relation_head(phrase)) or phrase.lower().strip() in KINSHIP


# Lexicon entries too general to type a hop by when its question words do not.
_VAGUE = frozenset({"place", "person", "organization", "number", "date", "year"})
# A relation ending in one of these asks when ("wettest year", "founding date").
_WHEN_NOUNS = frozenset({"year", "decade", "century", "date"})
# Question words → answer type; a "which/what NOUN" reads the noun's type.
_WH_PATTERNS: tuple[tuple[str, AnswerType], ...] = (
    (r"^(?:who|whom|whose)\b", "person"),
    (r"^where\b", "place"),
    (r"^(?:when|what year|which year|what date|what decade|what century)\b", "date"),
    (r"^how (?:many|much|long|old|tall|high|far|big|large)\b", "number"),
    (r"^what nationality\b", "place"),
)
_WH_TYPES = tuple((re.compile(p), t) for p, t in _WH_PATTERNS)


def question_type(wh_phrase: str, relation: str) -> AnswerType:
    """A hop's answer type: its question words', else its relation's first typed noun.

    "What was X's city of birth?" → place; "What instrument did the actor play?" → other.
    """
    kind = wh_type(wh_phrase)
    if kind != "other":
        return kind
    words = re.findall(r"[a-z]+(?:-[a-z]+)?", relation.lower())
    if words and words[-1] in _WHEN_NOUNS:
        return "date"  # "What was the wettest year in Tucson?"
    for i in range(len(words)):
        for size in (3, 2, 1):
            entry = " ".join(words[i : i + size])
            if len(words) >= i + size and entry in _LEXICON and entry not in _VAGUE:
                return _LEXICON[entry][0]
    return "other"


def wh_type(wh_phrase: str) -> AnswerType:
    """The answer type a question's opening words ask for ("which city" → place)."""
    phrase = wh_phrase.lower().strip()
    for pattern, kind in _WH_TYPES:
        if pattern.search(phrase):
            return kind
    noun = re.match(r"^(?:what|which) ((?:\w+ ){0,2}\w+)", phrase)
    if noun:
        words = noun.group(1).split()
        for i in range(len(words)):  # "which record label", "what film", "what kind of"
            kind = relation_type(" ".join(words[: len(words) - i]))
            if kind != "other":
                return kind
    return "other"
