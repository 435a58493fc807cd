"""A change the request makes on a condition no step checks, said in the plan's warnings.

"Refund order O-1 unless it shipped" planned ``POST /orders/O-1/refund`` with ``{}`` (a refund
in full: :func:`~schemarouter.planning.body.sent_empty`) and "Close ticket T-1 if it is still
open" the close, as if the condition held, with nothing said: the approval saw a plain
refund (trial V3). Planning stays as it was; :func:`condition_notes` names the condition, so
that the caller checks it (a read first) before approving. A quoted title ("the ticket titled
'what if it breaks'") sets none, and a read changes nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from schemarouter.contracts import Effect

if TYPE_CHECKING:
    from schemarouter.planning.planner import Plan
    from schemarouter.registry.registry import RegistrySnapshot

__all__ = ["condition_notes"]

#: An English condition, to the end of its clause: "unless it shipped", "only if it is open";
#: not a courtesy ("if possible", "if you can").
_ENGLISH = re.compile(
    r"\b(?:only\s+if|if|unless|when(?:ever)?|provided(?:\s+that)?|as\s+long\s+as|in\s+case)"
    r"\b(?!\s+(?:possible|you\s+(?:can|could|please)|you\s+don'?t\s+mind)\b)[^,.;:!?]*",
    re.I,
)
#: A Korean condition: a verb's -면 ("열려 있으면", "배송되지 않았으면", "필요하면") with the word
#: before it, or "... 경우(에만)" ("배송되지 않은 경우에만"); not "-면 안 돼", which forbids, nor a
#: courtesy ("가능하면", "괜찮으면").
_KOREAN = re.compile(
    r"(?:\S+\s+)?(?<!\S)(?!가능하면|괜찮으면|좋으면)\S*(?:있으면|없으면|으면|되면|하면|라면|다면|않으면)"
    r"(?=\s|$)(?!\s*안\s*[돼되됩])"
    r"|(?:\S+\s+)?\S+\s+경우(?:에만|에는|에)?"
)
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’")


def condition_notes(plan: Plan, snapshot: RegistrySnapshot, query: str) -> list[str]:
    """The warning of ``plan``'s first change where ``query`` sets a condition on it (see the
    module docstring); none where it sets none or the plan changes nothing."""
    changes = [
        step.route_id
        for step in plan.steps
        if step.route_id in snapshot.routes
        and snapshot.routes[step.route_id].endpoint.effect is not Effect.READ
    ]
    if not changes:
        return []
    text = _QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    found = _ENGLISH.search(text) or _KOREAN.search(text)
    if found is None:
        return []
    condition = query[found.start() : found.end()].strip()
    return [
        f"the request sets a condition ({condition!r}) that no step checks: {changes[0]} is "
        "planned as if it held; check it (a read first) before you approve the change"
    ]
