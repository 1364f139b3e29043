"""Language tags: the ``lang`` of a case, a corpus document and a labelled pair is any valid BCP 47 tag.

A tag is checked against the IANA language subtag registry by ``langcodes`` (a small, pure-Python
library that carries the registry): ``en``, ``bn``, ``es``, ``de``, ``pt-BR``, ``zh-Hans``, ``ja``,
``th``, ``ar``, ``hi``, ``sr-Latn-RS`` are valid; ``english``, ``xx``, ``en--US`` are not.

A valid tag is kept in its standard form (:func:`standard_tag`): case as RFC 5646 writes it
(``pt-br`` becomes ``pt-BR``, ``ZH-hans`` becomes ``zh-Hans``), ``_`` as ``-``, and a deprecated or
three-letter code replaced by its registered form (``iw`` becomes ``he``, ``eng`` becomes ``en``). So
one language written two ways is one slice in every report. Tags already standard, such as ``en``
and ``bn``, are kept as written (a dataset's hash does not move).

``langcodes`` costs about 0.2 s to import, so it is imported on the first tag checked, and each
distinct tag is checked once per process.

>>> standard_tag("pt-br"), standard_tag("zh-hans"), standard_tag("en")
('pt-BR', 'zh-Hans', 'en')
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

#: What the fix of a bad tag shows.
EXAMPLES = "en, es, de, pt-BR, zh-Hans, ja, th, ar, hi"


@lru_cache(maxsize=1024)
def standard_tag(value: str) -> str | None:
    """The standard form of a valid BCP 47 tag (see the module docstring), or ``None`` when ``value`` is
    not one (not well formed, or a subtag the IANA registry does not hold). Blank text is not a tag.

    >>> standard_tag("iw"), standard_tag("english"), standard_tag("")
    ('he', None, None)
    """
    import langcodes

    text = value.strip()
    if not text or not langcodes.tag_is_valid(text):
        return None
    try:
        return str(langcodes.standardize_tag(text))
    except ValueError:  # langcodes.LanguageTagError: valid per the registry yet not normalisable, refused
        return None


def _check(value: str) -> str:
    tag = standard_tag(value)
    if tag is None:
        raise PydanticCustomError(
            "lang_tag", "{value} is not a BCP 47 language tag",
            {"value": repr(value), "fix": f"write a language tag such as {EXAMPLES} (language, then optional script and "
                                    "region, joined by '-')"})
    return tag


LangTag = Annotated[str, AfterValidator(_check)]
"""A ``lang`` field: any valid BCP 47 tag, stored in its standard form (see the module docstring)."""
