"""Memory sizes as people say them rather than write them: "24 gigs", "a 12 gig card", "64 gigabytes of DDR5",
"16-gig 4060 Ti", "24GBs". They are the same gigabytes every reader here knows as "24GB", so the message is read
with that spelling; the text kept on the parse (ParsedQuery.text) stays as the user typed it. Money said the same way:
"a grand", "2 grand" are $1k, $2k (US usage), read as the "$2k" the money reader knows.
"""

from __future__ import annotations

import re

# a number then gig / gigs / gigabyte(s) / GBs: "24 gigs", "12-gig", "64 gigabytes", "80GBs"; not "gigabit" or
# "gigaflops" (other units), nor a word that only starts with them ("gigantic")
_SPOKEN_GB = re.compile(r"(?<![\w.])(\d{1,4}(?:\.\d{1,2})?)\s*-?\s*(?:gigabytes?|gigs?|gbs)(?![a-z])", re.I)


# "a grand", "2 grand", "1.5 grand": thousands of dollars; not "a grand total" or "Grand Theft Auto"
_GRAND = re.compile(r"(?<![\w.$])(a|one|\d{1,3}(?:\.\d)?)\s+grand(?![a-z])(?!\s+total)", re.I)


def _thousands(m: re.Match[str]) -> str:
    n = m.group(1).lower()
    return f"${'1' if n in ('a', 'one') else n}k"


def written_gb(text: str) -> str:
    """The message with every spoken memory size written as "<n>GB" (and "2 grand" as "$2k")."""
    return _GRAND.sub(_thousands, _SPOKEN_GB.sub(r"\1GB", text))
