"""What resin reads in English text, shared by planning, hop reading and answering.

`questions.Question` is a question parsed once (spaCy) and passed down; `relations` names what a
relation phrase asks for (a person, a place, a date …); `spans` lists a sentence's candidate
answer spans and caches each sentence's parse.
"""
