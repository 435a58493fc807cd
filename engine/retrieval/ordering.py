"""Re-orderings of the ranked list: what the request asks to do and the learned ranking stage
(the fused window, before the cross-encoder), and the prerequisite lift (after it).

- :func:`apply_actions`: a route doing the opposite of what the request asks (a ``GET`` for
  "open a new issue", a ``DELETE`` for "show my issues") loses
  :data:`~.actions.ACTION_PENALTY` of its fused score within the first
  :data:`~.actions.ACTION_WINDOW` (:mod:`.actions`); nothing is learned, nothing is dropped.
  A route doing the change the request names gains :data:`~.actions.VERB_BONUS`; turning a
  thing on or off names an update, a start or a stop where no route of the window names
  ``enable`` / ``disable`` (:func:`settings_change`).
- :func:`apply_request_order`: :func:`apply_actions`, then a route and its plural twin in the
  order the request's number asks (:func:`.number.agree_in_number`: "list all crawlers" puts
  ``get_crawlers`` above ``get_crawler``).
- :func:`learned_order`: the ranking model (:mod:`.learned`) scores each candidate of the
  window from :func:`window_signals` (:mod:`.window`) and the window is re-ordered by it.
- :func:`lift_prerequisites`: after a top-k route that needs an identifier no route above it
  produces, the producer of its own provider the request scores best (:mod:`.prerequisites`).

Both keep the routes a request names ahead of the rest, as :func:`.candidates.apply_analysis`
put them: routes named outright first, then the routes of named providers, then the others;
each group is re-ordered only among itself, and the tail below the window keeps fusion's
order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import (
    ACTION_WINDOW,
    VERB_BONUS,
    action_of,
    action_penalty,
    read_request,
    request_action,
    verb_of_route,
)
from schemarouter.retrieval.candidates import Ranked, coverage
from schemarouter.retrieval.intents import part_scores, split_intents
from schemarouter.retrieval.learned import blended_keys
from schemarouter.retrieval.number import agree_in_number
from schemarouter.retrieval.prerequisites import needs, producer_table
from schemarouter.retrieval.window import WindowSignals

if TYPE_CHECKING:
    from schemarouter.index.tokenize import QueryText

__all__ = [
    "DEFAULT_MAX_LIFTS",
    "apply_actions",
    "apply_request_order",
    "learned_order",
    "lift_prerequisites",
    "reorder_within_tiers",
    "settings_change",
    "window_signals",
]

#: producers lifted for one request at most (:func:`lift_prerequisites`)
DEFAULT_MAX_LIFTS = 2


def reorder_within_tiers(
    ranked: list[Ranked],
    keys: Sequence[float],
    tier: Callable[[Ranked], int],
) -> list[Ranked]:
    """The first ``len(keys)`` of ``ranked`` sorted by ``keys`` (higher first, ties in list
    order) within each tier; the tiers keep their order and the rest its place."""
    n = len(keys)
    window = list(range(n))
    window.sort(key=lambda i: (tier(ranked[i]), -keys[i], i))
    return [ranked[i] for i in window] + ranked[n:]


def settings_change(verbs: frozenset[str], routes: Sequence[str | None]) -> frozenset[str]:
    """``verbs`` (a request's changes) where no route of ``routes`` (the verbs of the window's
    routes) names ``enable`` or ``disable``: turning a thing on or off is then an update of
    it, or starting or stopping it ("turn the dark-mode flag on": ``patch_feature_flag``;
    "워크스페이스 꺼 줘": ``stop_workspaces``)."""
    if not verbs & _SWITCHES.keys() or _SWITCHES.keys() & set(routes):
        return verbs
    return verbs | {"update"} | {_SWITCHES[v] for v in verbs if v in _SWITCHES}


#: Turning on and off, and what it is where no route is named by either.
_SWITCHES = {"enable": "start", "disable": "stop"}


def apply_actions(
    query: str,
    ranked: list[Ranked],
    snapshot: RegistrySnapshot,
    *,
    window: int = ACTION_WINDOW,
) -> list[Ranked]:
    """``ranked`` (fusion order, before the request's named routes are put first) with the
    routes of the opposite action within ``window`` scored down (``scores["action"]`` holds
    the penalty) and the window sorted again by score."""
    asked, verbs = read_request(query)
    if (asked is None and not verbs) or len(ranked) < 2:
        return ranked
    head = ranked[:window]
    verbs = settings_change(verbs, [verb_of_route(snapshot.routes[i.route_id]) for i in head])
    changed = False
    for item in head:
        route = snapshot.routes[item.route_id]
        change = -action_penalty(asked, action_of(route))
        if verbs and verb_of_route(route) in verbs:
            change += VERB_BONUS
        if change:
            item.score += change
            item.scores["action"] = change
            changed = True
    if not changed:
        return ranked
    return reorder_within_tiers(ranked, [item.score for item in head], lambda item: 0)


def apply_request_order(
    query: str, ranked: list[Ranked], snapshot: RegistrySnapshot
) -> list[Ranked]:
    """:func:`apply_actions`, then :func:`.number.agree_in_number` on its order."""
    return agree_in_number(query, apply_actions(query, ranked, snapshot), snapshot)


def window_signals(
    query: str | QueryText,
    items: Sequence[Ranked],
    snapshot: RegistrySnapshot,
    *,
    index: Any,
    factor: float = 1.0,
) -> WindowSignals:
    """What the ranking model reads of ``items`` (the fused window) for ``query`` (its
    text or its :class:`~schemarouter.index.tokenize.QueryText`)."""
    from schemarouter.index.tokenize import QueryText

    text = QueryText.of(query)
    query = text.text
    ids = [item.route_id for item in items]
    routes = [snapshot.routes[r] for r in ids]
    dense = np.array([item.scores.get("dense", 0.0) for item in items], dtype=np.float64)
    endpoint_of = getattr(index, "endpoint_similarity", None)
    if callable(endpoint_of):
        endpoint = np.minimum(np.asarray(endpoint_of(query, ids), dtype=np.float64) * factor, 1.0)
        endpoint = np.where(np.isfinite(endpoint), endpoint, dense)
    else:  # a backend without per-document vectors: the route's dense score stands in
        endpoint = dense.copy()
    parts = split_intents(query)
    part_fused = part_cos = None
    if len(parts) >= 2 and hasattr(index, "rescore_parts"):
        fused_rows, cos_rows = part_scores(index, parts, ids)
        part_fused = np.nan_to_num(np.array(fused_rows, dtype=np.float64), neginf=0.0)
        part_cos = np.nan_to_num(np.array(cos_rows, dtype=np.float64) * factor, neginf=0.0)
    tokens = text.words
    return WindowSignals(
        fused=np.array([item.scores.get("fused", item.score) for item in items]),
        lexical=np.array([item.scores.get("lexical", 0.0) for item in items]),
        dense=dense,
        endpoint=endpoint,
        field_hits=np.array([len(item.field_hits) for item in items], dtype=np.float64),
        coverage=np.array([coverage(tokens, route, index=index) for route in routes]),
        providers=[route.provider.id for route in routes],
        route_actions=[action_of(route) for route in routes],
        request_action=request_action(query),
        query_words=len(query.split()),
        part_fused=part_fused,
        part_cos=part_cos,
    )


def learned_order(
    model: Any,
    query: str | QueryText,
    ranked: list[Ranked],
    snapshot: RegistrySnapshot,
    *,
    index: Any,
    tier: Callable[[Ranked], int],
    factor: float = 1.0,
) -> list[Ranked]:
    """The first ``model.window`` of ``ranked`` re-ordered within their tiers by the ranking
    model's order blended with fusion's (``model.blend``; ``scores["ranking"]`` holds its
    log-odds); the tail as it was. The model's order reads the action rule's change of each
    route (``scores["action"]``) at ``model.action_weight`` log-odds per unit."""
    from schemarouter.retrieval.window import window_features

    head = ranked[: model.window]
    if len(head) < 2:
        return ranked
    rows = window_features(window_signals(query, head, snapshot, index=index, factor=factor))
    weight = getattr(model, "action_weight", 0.0)
    own = []
    for item, value in zip(head, model.score(rows).tolist(), strict=True):
        item.scores["ranking"] = float(value)
        own.append(value + weight * item.scores.get("action", 0.0))
    keys = blended_keys(own, getattr(model, "blend", 1.0))
    return reorder_within_tiers(ranked, keys, tier)


def lift_prerequisites(
    ranked: list[Ranked],
    snapshot: RegistrySnapshot,
    k: int,
    score: Callable[[list[str]], tuple[Sequence[float], Sequence[float]]],
    *,
    given: frozenset[str] = frozenset(),
    carried: frozenset[str] = frozenset(),
    max_lifts: int = DEFAULT_MAX_LIFTS,
) -> list[Ranked]:
    """``ranked`` with, after each top-``k`` route whose needed identifier no route above
    it produces, the producer of the route's own provider that ``score`` (the request's fused
    scores and dense cosines over route ids, as ``HybridIndex.rescore_parts``) rates best
    (identifiers are provider-scoped); an identifier of a kind in
    ``given`` (values the request carries), or of a thing in ``carried`` (the request gives its
    identifier: "contact 12345"), is not needed. At most ``max_lifts`` producers;
    routes below move down, none leaves the list."""
    table = producer_table(snapshot)
    if not table.producers:
        return ranked
    out = list(ranked)
    lifts = 0
    position = 0
    while position < min(k, len(out)) and lifts < max_lifts:
        route = snapshot.routes.get(out[position].route_id)
        if route is None:
            position += 1
            continue
        above = {item.route_id for item in out[: position + 1]}
        for thing in needs(route, given=given):
            # its own provider's producers only: identifiers are provider-scoped
            key = (route.provider.id, thing)
            every = table.by_provider.get(key, ())
            if not every or thing in carried or above.intersection(every):
                continue
            # a lookup where there is one (``every`` lists them first)
            choices = list(every[: table.provider_lookups[key]] or every)
            fused, cosine = score(choices)
            scores = [float(x) for x in fused]
            best = max(range(len(choices)), key=lambda i: (scores[i], -i))
            chosen = choices[best]
            # not above (checked): further down the ranking, or only in the registry
            existing = next((i for i, item in enumerate(out) if item.route_id == chosen), None)
            if existing is not None:
                item = out.pop(existing)
            else:
                value = scores[best]
                item = Ranked(
                    route_id=chosen,
                    score=value,
                    scores={"fused": value, "dense": max(0.0, float(cosine[best]))},
                )
            item.scores["prerequisite"] = 1.0
            out.insert(position + 1, item)
            lifts += 1
            break
        position += 1
    return out
