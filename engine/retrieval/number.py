"""One thing or many: the request's number picks between a route and its plural twin.

Catalogs often hold an operation for one thing beside one for all of them, their names alike
but for the last word's plural (``get_crawler`` / ``get_crawlers``, ``DescribeBudget`` /
``DescribeBudgets``, ``GetJobRun`` / ``GetJobRuns``). Their texts share nearly every word, so
fusion puts them side by side in either order. The request says which it wants by the number
of that noun: "list all crawlers" asks for many, "how much of the marketing-q3 budget has been
spent" for one.

:func:`agree_in_number` swaps such a pair (same provider, within the first
:data:`~.actions.ACTION_WINDOW`) where the route whose number the request disagrees with
stands above the one it agrees with. The request agrees with the plural when it holds the
plural noun and not the singular one, with the singular when it holds the singular noun
alone and no word of quantity ("all", "every", "list" ...). Nothing else moves; no route
enters or leaves the list, and a request holding both or neither form changes nothing.
"""

from __future__ import annotations

import re

from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import ACTION_WINDOW, name_words
from schemarouter.retrieval.candidates import Ranked

__all__ = ["agree_in_number", "plural_twin"]

_WORD = re.compile(r"[a-z]+")
#: words that ask for many of a thing written in the singular ("every crawler", "list job")
_MANY = frozenset(["all", "every", "each", "list", "any", "multiple", "several"])


def plural_twin(one: str, other: str) -> tuple[str, str] | None:
    """``(singular, plural)`` of the last word where operation names ``one`` and ``other``
    differ only by that word's plural (``get_crawler`` / ``get_crawlers`` ->
    ``("crawler", "crawlers")``), else ``None``."""
    a, b = name_words(one), name_words(other)
    if len(a) < 2 or len(a) != len(b) or a[:-1] != b[:-1]:
        return None
    for singular, plural in ((a[-1], b[-1]), (b[-1], a[-1])):
        if plural in (singular + "s", singular + "es") or (
            singular.endswith("y") and plural == singular[:-1] + "ies"
        ):
            return singular, plural
    return None


def _wants_plural(words: set[str], singular: str, plural: str) -> bool | None:
    """True (many), False (one) or None (the request does not say)."""
    if plural in words and singular not in words:
        return True
    if singular in words and plural not in words and not words & _MANY:
        return False
    return None


def agree_in_number(
    query: str, ranked: list[Ranked], snapshot: RegistrySnapshot, *, window: int = ACTION_WINDOW
) -> list[Ranked]:
    """``ranked`` with each plural pair within ``window`` in the order the request's number
    asks (the agreeing route takes the higher of the two places); the rest in place."""
    words_of_query = set(_WORD.findall(query.lower()))
    head = ranked[:window]
    if len(head) < 2 or not words_of_query:
        return ranked
    out = list(ranked)
    # routes whose names share all but their last word, per provider: the only candidates
    groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for i, item in enumerate(head):
        route = snapshot.routes.get(item.route_id)
        if route is not None:
            words = name_words(route.endpoint.name)
            groups.setdefault((route.provider.id, words[:-1]), []).append(i)
    for places in groups.values():
        done: set[int] = set()
        for n, i in enumerate(places):
            if i in done:
                continue
            upper = snapshot.routes[head[i].route_id].endpoint.name
            for j in places[n + 1 :]:
                lower = snapshot.routes[head[j].route_id].endpoint.name
                pair = None if j in done else plural_twin(upper, lower)
                if pair is None:
                    continue
                wants = _wants_plural(words_of_query, *pair)
                if wants is not None and wants != (name_words(upper)[-1] == pair[1]):
                    out[i], out[j] = out[j], out[i]
                done.update((i, j))
                break
    return out
