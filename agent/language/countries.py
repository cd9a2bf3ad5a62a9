"""Countries by their names and the adjectives English makes of them ("Italy", "Italian").

ISO 3166 (`pycountry`) gives every country's names, former ones too; a nationality is read as
the country whose name holds a word its stem opens ("American" → "United States of America",
"British" → "… Great Britain …"). Shared by the hop reader, which tells a country from a
narrower place, and the computed hops, which ask whether two answers name one country.
"""

from __future__ import annotations

from functools import cache

from resin.indexes.units import normalize

# Endings English adds to a country's name to make its adjective.
_ADJECTIVE_ENDINGS = ("ian", "ean", "an", "ese", "ish", "ic", "i", "n")
_MIN_STEM = 4
# Adjectives (and one name) no ending rule reaches: general English, by ISO 3166 code.
_IRREGULAR = {
    "czech": "CZE",
    "danish": "DNK",
    "dutch": "NLD",
    "filipino": "PHL",
    "finnish": "FIN",
    "greek": "GRC",
    "icelandic": "ISL",
    "irish": "IRL",
    "norwegian": "NOR",
    "peruvian": "PER",
    "polish": "POL",
    "scottish": "GB-SCT",
    "spanish": "ESP",
    "swiss": "CHE",
    "thai": "THA",
    "turkey": "TUR",
    "turkish": "TUR",
    "welsh": "GB-WLS",
}
# Letters a country's name may add to the stem ("Germ-an" → "Germ-any", "Brit-ish" → "Brit-ain").
_MAX_ADDED = 3


@cache
def _countries() -> tuple[tuple[str, frozenset[str]], ...]:
    """(code, normalized names) of each country, ISO 3166-2's countries inside one too."""
    import pycountry

    found: dict[str, set[str]] = {}
    for country in [*pycountry.countries, *pycountry.historic_countries]:
        code = getattr(country, "alpha_3", "") or getattr(country, "alpha_4", "")
        for attribute in ("name", "common_name", "official_name"):
            name = getattr(country, attribute, "")
            found.setdefault(code, set()).update({normalize(name), normalize(name.split(",")[0])})
    for part in pycountry.subdivisions:
        if part.type == "Country":
            found.setdefault(part.code, set()).add(normalize(part.name.split("[")[0]))
    return tuple((code, frozenset(names - {""})) for code, names in found.items())


@cache
def country_names() -> frozenset[str]:
    """Countries' names, normalized, as ISO 3166 writes them, each also before its comma.

    "Yugoslavia, (Socialist) Federal Republic of" gives "yugoslavia" too; England, Scotland and
    Wales count as countries.
    """
    return frozenset(name for _, names in _countries() for name in names)


@cache
def countries_of(value: str) -> frozenset[str]:
    """The codes of the countries a name or a nationality names ("American" → the USA's)."""
    key = normalize(value)
    if not key:
        return frozenset()
    named = frozenset(code for code, names in _countries() if key in names)
    if named or " " in key:
        return named
    if key in _IRREGULAR:
        return frozenset({_IRREGULAR[key]})
    # each ending cut, the longest stem first ("Nigerian" is Nigeria's, not Niger's), then the
    # word itself ("French Republic")
    stems = sorted({key[: -len(e)] for e in _ADJECTIVE_ENDINGS if key.endswith(e)}, key=len)
    for stem in [*reversed(stems), key]:
        if len(stem) < _MIN_STEM:
            continue
        found = frozenset(
            code
            for code, names in _countries()
            if any(
                word.startswith(stem) and len(word) - len(stem) <= _MAX_ADDED
                for name in names
                for word in name.split()
            )
        )
        if found:
            return found
    return frozenset()
