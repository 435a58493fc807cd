"""The change a Korean request asks for with an English verb before its verbal ending
("booking create 해줘", "티켓 delete 해 주세요", "list 해줘"): planned before a route that
does another.

Retrieval reads a Korean clause's verb from its Korean stems only, so an English verb
written before 해줘 names no change there, and ranking (left as it is) may put another
route first: trial Z3's "booking create 해줘" planned ``delete_booking``, a destructive
change where a booking was to be made. Here, where the one English verb before such an
ending is a change and the best eligible route does another (or only reads), the first of the
:data:`~schemarouter.planning.refusals.READ_DEPTH` best that does it is planned first; where
it is a read verb and the best is a change, the first read is; the plan's warnings say so.

A create never stands for a change of a thing the request names by its id ("Close the
ticket T-9 of customer C-1" planned ``create_ticket``, ranked first, T-9 unused): where the
best route creates, the request asks for no creation, and names an id the create does not
take, the first of the next best changes of its provider that takes it and needs nothing
else open is planned first (:func:`existing_thing_first`): the id must name a thing of the
kind the create makes ("ticket T-9" beside ``create_ticket``; "Open a ticket for order
O-5001" keeps the create).

Nor does a delete stand for a change the request asks that destroys nothing ("Close a
ticket" planned ``delete_ticket``, ranked first, where ``update_ticket`` closes it, trial
Z3): where the best route is destructive, the request asks for changes but no deletion, and
the route's own name and summary name none of the request's verbs ("Cancel booking B-2"
keeps ``delete_booking``, "Delete (cancel) a room booking"), the first of the next best
writes of its provider that changes the same thing (takes the same identifier) and creates
nothing is planned first (:func:`no_unasked_destruction`). Its id is then taken from no list
the request does not pick from (:mod:`~schemarouter.planning.chained_needs`).

Neither stands in a change of a verb of its own that the request does not ask
(:func:`does_asked`): user trial 14's "Transfer part of the balance of ACC-1001 to
ACC-1002" planned ``unfreeze_account`` in place of ``close_account`` (ranked first, no
transfer near). Where no route near does the change asked, nor may (an update), a read of
the thing the delete takes is planned before it, else nothing is."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from schemarouter.contracts import Effect, Route
from schemarouter.planning.arguments import fill_arguments, missing_parameters
from schemarouter.planning.asked_changes import (
    asked_change_first,
    asked_verbs,
    does_change,
    no_change_asked,
    no_refused_change,
    read_for,
    thing_first,
    things_blanked,
)
from schemarouter.planning.asked_things import asked_list_first, read_thing
from schemarouter.planning.chained_needs import names_one
from schemarouter.planning.empty_changes import EDIT_VERBS
from schemarouter.planning.keyed_routes import most_keyed_first
from schemarouter.planning.links import created
from schemarouter.planning.message_text import texted
from schemarouter.planning.named_lookup import has_every
from schemarouter.planning.named_states import named_state_first
from schemarouter.planning.opposite_verbs import no_opposite_change, says_not_to
from schemarouter.planning.phone_numbers import written_phones
from schemarouter.planning.questions import asks_whether
from schemarouter.planning.refusals import READ_DEPTH, planned_first, unquoted
from schemarouter.planning.signed_counts import adjusts_count
from schemarouter.planning.stated_values import stated_change_first
from schemarouter.planning.sub_resources import entry_itself_first
from schemarouter.planning.switches import switched_in_place
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.actions import (
    action_of,
    is_read_verb,
    name_words,
    request_verbs,
    verb_forms,
    verb_of,
    verb_of_route,
)
from schemarouter.retrieval.analysis import NAMED_IDENTIFIER, BoundValue
from schemarouter.retrieval.identifiers import needed_parameters, stem, things_of

__all__ = [
    "asked_verb_first",
    "existing_thing_first",
    "no_unasked_destruction",
    "runnable_list_first",
]

#: An English word right before a Korean verbal ending ("create 해줘", "delete 해 주세요",
#: "create 좀 해줘", "create 하기", "create 요청").
_MIXED = re.compile(
    r"(?<![A-Za-z])([A-Za-z]{3,})\s*(?=(?:좀\s*)?(?:해|하|할|합|시켜|부탁|요청|진행))"
)


def asked_verb_first(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    warnings: list[str],
    values: Sequence[BoundValue] = (),
) -> list[str]:
    """``eligible`` (best first), with the route that does the change the request's one
    mixed English verb names (:data:`_MIXED`) first, where the best does not do it; before
    that :func:`~schemarouter.planning.asked_changes.no_change_asked` and
    :func:`~schemarouter.planning.asked_changes.asked_change_first` (so that the rules
    after it see the route asked for first, and say nothing of another),
    :func:`existing_thing_first`, :func:`no_unasked_destruction`,
    :func:`~schemarouter.planning.opposite_verbs.no_opposite_change`, and last
    :func:`~schemarouter.planning.sub_resources.entry_itself_first` (a change of the entry,
    not of a part of it the request does not name: its ``/trash``)."""
    things = snapshot.derived("query.things", _things)  # "Unfreeze ACC-1003" asks it
    read_as = thing_first(query, values, things)  # "order O-1 refund history": no "order" verb
    top = snapshot.routes[eligible[0]] if eligible else None
    # "take 2 off the stock of PED-0107" asks adjust_stock's change (trial 22), though "take 2"
    # reads as a thing and its id, blanked below; "SKU-77 재고 20개 추가할까?" asks whether
    counts = adjusts_count(top, query) and not asks_whether(query) if top is not None else False
    if top is not None and not says_not_to(query, top) and not counts:
        # "티켓 T-1 닫지 마" asks no read either: its change stays, taking no entry
        opens = read_as != query
        # "refund of order O-1": the thing before its id is no verb here either
        blanked = things_blanked(read_as, values)
        eligible = no_change_asked(blanked, snapshot, eligible, warnings, thing_first=opens)
    # an id the analysis reads, or a code no kind names that a parameter's pattern takes
    # ("SKU-77 재고 20개 추가": sku of adjust_stock; trial 19)
    named = {v.value for v in values if v.kind.startswith("identifier.")} | _codes(query)
    if (said := texted(query)) is not None:  # "ping +15551234567: ...": the route that texts it
        # the text's ids are what it says ("Text ...: transfer 50 EUR from AC-1 to AC-2")
        named = set(written_phones(query[:said])) | {
            v.value for v in values if v.kind.startswith("identifier.") and v.end <= said
        }

    def takes(route: Route) -> bool:  # one of the ids the request names
        return bool(_given(fill_arguments(route, query, values)) & named)

    blanked = things_blanked(read_as, values)
    eligible = asked_change_first(blanked, snapshot, eligible, warnings, takes if named else None)
    eligible = no_refused_change(query, snapshot, eligible, values, warnings)
    eligible = existing_thing_first(query, snapshot, eligible, values, warnings)
    eligible = no_unasked_destruction(query, snapshot, eligible, warnings)
    eligible = switched_in_place(query, snapshot, eligible, values, warnings)  # "turn off"
    eligible = named_state_first(query, snapshot, eligible, warnings, takes if named else None)
    eligible = most_keyed_first(query, snapshot, eligible, warnings)  # "the x flag in project y"
    eligible = no_opposite_change(query, snapshot, eligible, warnings)
    eligible = asked_list_first(query, snapshot, eligible, values, warnings)
    eligible = runnable_list_first(query, snapshot, eligible, values, warnings)  # "주문만"
    eligible = stated_change_first(query, snapshot, eligible, warnings, takes)  # "12 lb now"
    eligible = entry_itself_first(query, snapshot, eligible, warnings)  # not its /trash
    words = {m.group(1).lower() for m in _MIXED.finditer(query)}
    if query.isascii() or len(words) != 1 or not eligible:
        return list(eligible)
    word = next(iter(words))
    routes = snapshot.routes
    verb = verb_of(word)
    top = routes[eligible[0]]
    if verb is not None:
        done = verb_of_route(top)
        if done == verb or (done is None and top.endpoint.effect is not Effect.READ):
            return list(eligible)  # it does that change, or may (its name says no verb)
        doing = [r for r in eligible[:READ_DEPTH] if verb_of_route(routes[r]) == verb]
    elif is_read_verb(word) and top.endpoint.effect is not Effect.READ:
        doing = [r for r in eligible[:READ_DEPTH] if routes[r].endpoint.effect is Effect.READ]
    else:
        return list(eligible)
    if not doing:
        return list(eligible)
    passed = eligible[: eligible.index(doing[0])]
    warnings.append(
        f"the request asks to {word} ('{word}' before its Korean ending), so {doing[0]} is "
        f"planned before {', '.join(passed)}, ranked above it"
    )
    return [doing[0], *(r for r in eligible if r != doing[0])]


#: A code a request writes: letters and a digit, joined by ``-`` / ``_`` ("SKU-77", "ORD_9"),
#: a Korean particle after it left off ("SKU-77의").
_CODE = re.compile(r"(?<![\w\-.:/])(?=[\w\-]*\d)(?=[\w\-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_\-]*")


def _codes(query: str) -> set[str]:
    """The codes (:data:`_CODE`) ``query`` writes outside quotes."""
    return {m.group(0).rstrip("-_") for m in _CODE.finditer(unquoted(query))}


def runnable_list_first(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    values: Sequence[BoundValue],
    warnings: list[str],
) -> list[str]:
    """``eligible`` (best first), with the list of the things the best route reads one of
    first, where the request asks no change and names no id, the best is a read that needs
    an id the request leaves open, and that list (a read of the same provider among the
    :data:`READ_DEPTH` best, whose entries hold every field the lookup returns:
    :func:`~.named_lookup.has_every`) needs nothing open and takes a value the request
    states (trial 19: "결제 완료된 주문만 보여줘" planned ``get_order`` with its ``order_id``
    missing, where ``list_orders(status="paid")`` ranked third)."""
    if not eligible or asked_verbs(query) or _codes(query):
        return list(eligible)
    if any(v.kind.startswith("identifier.") for v in values):
        return list(eligible)
    routes = snapshot.routes
    top = routes[eligible[0]]
    if top.endpoint.effect is not Effect.READ or names_one(query, read_thing(top)):
        return list(eligible)  # "the oldest ticket": the list gives the get its id (a chain)
    if not missing_parameters(top, fill_arguments(top, query, values)):
        return list(eligible)
    for route_id in eligible[1:READ_DEPTH]:
        route = routes[route_id]
        if route.endpoint.effect is not Effect.READ or route.provider.id != top.provider.id:
            continue
        if read_thing(route) != read_thing(top):
            continue
        # its entries hold what the lookup returns (a page of fewer fields stands in for no
        # lookup: test_page_sibling, trial X3)
        names = {field.name for field in top.endpoint.output_fields}
        if not has_every({field.name for field in route.endpoint.output_fields}, names):
            continue
        arguments = fill_arguments(route, query, values)
        if _given(arguments) and not missing_parameters(route, arguments):
            why = (
                f"{eligible[0]} needs an id the request does not give; {route_id}, which lists "
                "them by what the request states,"
            )
            return planned_first(eligible, route_id, warnings, why)
    return list(eligible)


def _things(snapshot: RegistrySnapshot) -> frozenset[str]:
    """The words naming a thing a registered parameter takes the id of (as the query
    analysis reads them, under the same key)."""
    return things_of(snapshot.routes.values())


def _given(arguments: Mapping[str, Any]) -> set[str]:
    """The values of ``arguments`` as text, a JSON body's top-level ones too."""
    body = arguments.get("body")
    inner = body.values() if isinstance(body, Mapping) else ()
    return {str(v) for v in [*arguments.values(), *inner] if not isinstance(v, Mapping)}


def _takes(route: Route, query: str, values: Sequence[BoundValue], named: set[str]) -> bool:
    """Whether ``route`` takes one of the ``named`` ids from the request and then needs
    nothing else open."""
    arguments = fill_arguments(route, query, values)
    return bool(_given(arguments) & named) and not missing_parameters(route, arguments)


def existing_thing_first(
    query: str,
    snapshot: RegistrySnapshot,
    eligible: Sequence[str],
    values: Sequence[BoundValue],
    warnings: list[str],
) -> list[str]:
    """``eligible`` (best first), with a change that takes the id of a thing the request
    names first, where the best creates that kind of thing (:func:`~.links.created`), the
    request asks for a change but no creation, and the create does not take the id."""
    verbs = request_verbs(query)
    if not eligible or not verbs or "create" in verbs:
        return list(eligible)
    routes = snapshot.routes
    top = routes[eligible[0]]
    made = created(top)
    named = {
        v.value
        for v in values
        if v.kind == NAMED_IDENTIFIER and v.of and made and stem(v.of) == stem(made[0])
    }
    if not named or _given(fill_arguments(top, query, values)) & named:
        return list(eligible)
    for route_id in eligible[1:READ_DEPTH]:
        route = routes[route_id]
        same = route.provider.id == top.provider.id and route.endpoint.effect is not Effect.READ
        if (
            same
            and created(route) is None
            and _takes(route, query, values, named)
            and does_asked(route, verbs, query)
        ):
            why = (
                f"the request changes {made[0] if made else 'a thing'} {', '.join(sorted(named))}"
                f" and asks for no creation, so {route_id}, which takes it,"
            )
            return planned_first(eligible, route_id, warnings, why)
    return list(eligible)


def _named_verbs(route: Route) -> set[str]:
    """The changes ``route``'s name and summary name (:func:`verb_of` of each word)."""
    text = f"{route.endpoint.name} {route.endpoint.summary}"
    words = re.findall(r"[A-Za-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text))
    return {verb for word in words if (verb := verb_of(word)) is not None}


def no_unasked_destruction(
    query: str, snapshot: RegistrySnapshot, eligible: Sequence[str], warnings: list[str]
) -> list[str]:
    """``eligible`` (best first), with a write that changes the same thing first, where the
    best is destructive and the request asks for no deletion (see the module docstring)."""
    verbs = request_verbs(query)
    if not eligible or "delete" in verbs:
        return list(eligible)
    if not verbs:
        return _nothing_destroyed(query, snapshot, eligible, warnings)
    routes = snapshot.routes
    top = routes[eligible[0]]
    if top.endpoint.effect is not Effect.DESTRUCTIVE or verbs & _named_verbs(top):
        return list(eligible)
    things = {thing for _, thing in needed_parameters(top)}
    for route_id in eligible[1:READ_DEPTH]:
        route = routes[route_id]
        same = route.provider.id == top.provider.id and route.endpoint.effect is Effect.WRITE
        if (
            same
            and created(route) is None
            and things & {t for _, t in needed_parameters(route)}
            and does_asked(route, verbs, query)
        ):
            why = (
                f"the request asks to {', '.join(sorted(verbs))}, not to delete, so {route_id}, "
                "which destroys nothing,"
            )
            return planned_first(eligible, route_id, warnings, why)
    # no change of another verb stands for the one asked, the delete ranked first least of
    # all (user trial 14: "Transfer part of the balance of ACC-1001 to ACC-1002" planned
    # unfreeze_account in place of close_account): a read of the same thing, else nothing
    if verb_of_route(top) in {verb_of(w) for w in re.findall(r"[A-Za-z]+", unquoted(query))}:
        return list(eligible)  # its verb is written, if not read ("no need to confirm: delete")
    read = read_for(snapshot, eligible)
    said = f"the request asks to {', '.join(sorted(verbs))}, and {eligible[0]}, ranked first,"
    if read is None:
        warnings.append(
            f"{said} deletes, as no route near it does what is asked: nothing is planned; "
            "name the change a route does, or plan that route with Plan.with_arguments"
        )
        return []
    warnings.append(f"{said} deletes: {read}, a read of it, is planned before it")
    return [read, *(r for r in eligible if r != read)]


_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _nothing_destroyed(
    query: str, snapshot: RegistrySnapshot, eligible: Sequence[str], warnings: list[str]
) -> list[str]:
    """``eligible`` without its destructive routes where the best is one and the request asks
    no change by any reading (:func:`~.asked_changes.asked_verbs`) and writes no verb of
    change at all: a deletion is asked by name or not at all. Trial 22's "lower the price of
    listing 77001 to 119 USD" ("lower" no verb then) planned ``DELETE
    /sales/{sale_id}/listings``, ranked first; only its missing ``sale_id`` kept it from
    being sent."""
    routes = snapshot.routes
    if routes[eligible[0]].endpoint.effect is not Effect.DESTRUCTIVE or asked_verbs(query):
        return list(eligible)
    # a verb written anywhere, one a condition holds back too ("delete customer C-1 if order
    # O-1 is refunded": the condition's check is planned, the deletion withheld), or Korean
    text = unquoted(query)
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    if _HANGUL.search(text) or any(verb_of(w) for w in words):
        return list(eligible)
    lead = next(iter(name_words(routes[eligible[0]].endpoint.name)), "").lower()
    if lead in words:  # "Decommission equipment B-2": decommission_equipment, by its name
        return list(eligible)
    kept = [r for r in eligible if routes[r].endpoint.effect is not Effect.DESTRUCTIVE]
    passed = eligible[: eligible.index(kept[0])] if kept else list(eligible)
    shown = ", ".join(passed[:3]) + (f" and {len(passed) - 3} more" if len(passed) > 3 else "")
    planned = f"{kept[0]} is planned before them" if kept else "nothing is planned"
    warnings.append(
        f"the request names no change, and {shown}, ranked first, destroy: {planned}; a "
        "deletion is planned where the request asks it by name"
    )
    return kept


def does_asked(route: Route, verbs: frozenset[str], query: str) -> bool:
    """Whether ``route`` may do a change of ``verbs`` that ``query`` asks: it does one
    (:func:`~.asked_changes.does_change`), or it is an update that may make any change (named
    by no verb, nor as a read, or by an edit verb: ``update_ticket`` closes a ticket); never a
    change of a verb of its own not asked (``unfreeze_account`` for a transfer)."""
    if any(does_change(route, verb, query) for verb in verbs):
        return True
    verb = verb_of_route(route)
    edits = any(EDIT_VERBS & set(verb_forms(w)) for w in name_words(route.endpoint.name))
    # a write named as a read (``get_statement`` with no read-only hint) makes no change asked
    return (verb is None and action_of(route) != "read") or (verb == "update" and edits)
