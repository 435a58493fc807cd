"""The card ``schemarouter train-ranking`` writes beside its trees (``card.json``): the
features and settings, what the rows were drawn from, the development figures and how they
were measured, and whether ``SchemaRouter()`` turns the stage on (``router_default``)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from schemarouter.retrieval.window import FEATURES
from schemarouter.training.command import TOOLTRAIN_ATTRIBUTION, versions
from schemarouter.training.ranking_rows import WindowRows

__all__ = [
    "CARD_FORMAT",
    "CARD_NAME",
    "DEVELOPMENT_MEASURED",
    "ranking_card",
    "router_default",
]

CARD_NAME = "schemarouter-ranking"
CARD_FORMAT = 1
#: How the card's ``development`` figures are measured (the card's ``development_measured``):
#: on the rows, not through the router, so the action rule's change is not in them.
DEVELOPMENT_MEASURED = (
    "Recall@5 over each development request's window as its rows hold it (fused as the "
    "training rows are: no reranker, multi-intent or prerequisites), in fusion's order and in "
    "the trees' blended with it at settings.blend, without settings.action_weight (the rows "
    "carry no action-rule change); the router's own Recall@5, the action weight applied: "
    "python -m schemarouter.training.bench.ranking_blend --model FOLDER "
    "--suites write-intent:dev,..."
)


def router_default(dev: dict[str, Any], *, on: str | None, off: str | None) -> dict[str, Any]:
    """The card's ``router_default``: on only where ``--on`` says why, else off, with
    ``--off``'s reason or what the development figures ``dev`` show."""
    if on:
        return {"on": True, "why": on}
    if off:
        why = off
    elif not dev:
        why = "no development set was measured (--dev named none), so nothing shows it beats fusion"
    elif all(v["gain"] > 0 for v in dev.values()):
        why = (
            "it beats fusion on every development set; it ships on only after it does on "
            "every out-of-domain suite too (schemarouter eval --ranking)"
        )
    else:
        why = "it does not beat fusion on every development set"
    return {"on": False, "why": why}


def ranking_card(
    settings: Any,
    *,
    encoder: str,
    drawn: dict[str, Any],
    train: WindowRows,
    excluded: dict[str, str],
    dev: dict[str, Any],
    on: str | None,
    off: str | None,
    seconds: float,
    command: str,
) -> dict[str, Any]:
    """The card of trees fitted with ``settings`` (a ``RankingSettings``) on ``train`` (its
    ``model_sha256`` is added once the trees are written)."""
    return {
        "name": CARD_NAME,
        "format": CARD_FORMAT,
        "features": list(FEATURES),
        "settings": asdict(settings),
        "encoder": encoder,
        "data": {
            "requests": drawn,
            "rows": int(train.X.shape[0]),
            "windows": len(train.needs),
            "positives": int(train.y.sum()),
            "excluded_encoder_triplets": excluded,
            # only rows of tooltrain carry its licenses (``--requests`` alone: none)
            **({"attribution": TOOLTRAIN_ATTRIBUTION} if "corpus" in drawn else {}),
        },
        "development": dev,
        "development_measured": DEVELOPMENT_MEASURED,
        "router_default": router_default(dev, on=on, off=off),
        "training": {"seconds": round(seconds, 1), "command": command},
        "versions": versions(),
    }
