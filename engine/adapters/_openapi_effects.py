"""What an OpenAPI operation does to its server: its method's effect, the document's own
``x-schemarouter-effect`` (laxer than the method only where the document is trusted), and
the caller's ``effect_overrides`` (names, or patterns of them: :mod:`._overrides`)."""

from __future__ import annotations

from collections.abc import Mapping

from schemarouter.adapters._openapi_reader import OperationRef
from schemarouter.adapters._overrides import override_for
from schemarouter.contracts import Effect
from schemarouter.errors import DocumentError

__all__ = ["EFFECT_EXTENSION", "effect_overrides_of", "method_effect", "operation_effect"]

#: Operation extension that declares the effect (``read`` / ``write`` / ``destructive``).
EFFECT_EXTENSION = "x-schemarouter-effect"


def method_effect(method: str) -> Effect:
    """An HTTP method's effect: GET and HEAD read, DELETE destroys, the rest write."""
    if method in ("get", "head"):
        return Effect.READ
    return Effect.DESTRUCTIVE if method == "delete" else Effect.WRITE


_STRICTNESS = {Effect.READ: 0, Effect.WRITE: 1, Effect.DESTRUCTIVE: 2}


def operation_effect(
    ref: OperationRef,
    name: str,
    endpoint_id: str,
    overrides: Mapping[str, Effect],
    where: str,
    *,
    trusted: bool,
    notes: list[str],
) -> tuple[Effect, set[str]]:
    """(effect, the override keys naming or matching the operation): method, then the
    extension (laxer only when the document is trusted), then the caller."""
    effect = method_effect(ref.method)
    if EFFECT_EXTENSION in ref.operation:
        value = ref.operation[EFFECT_EXTENSION]
        if not isinstance(value, str) or value not in Effect.__members__.values():
            raise DocumentError(
                f"{EFFECT_EXTENSION} {value!r} is not read, write or destructive",
                where=f"{where}: {ref.location}.{EFFECT_EXTENSION}",
                hint="Use one of: read, write, destructive",
            )
        claimed = Effect(value)
        if trusted or _STRICTNESS[claimed] >= _STRICTNESS[effect]:
            effect = claimed
        else:
            notes.append(
                f"{ref.location}: claims {EFFECT_EXTENSION} {claimed.value}, which only a "
                f"trusted document may; kept {effect.value}"
            )
    # a pattern makes laxer only a POST the document does not itself say writes (trial Y1)
    claims = EFFECT_EXTENSION in ref.operation and effect is not Effect.READ
    firm = effect if ref.method != "post" or effect is Effect.DESTRUCTIVE or claims else None
    overridden, keys = override_for(overrides, (name, endpoint_id), firm=firm, notes=notes)
    return (effect if overridden is None else overridden), keys


def effect_overrides_of(raw: Mapping[str, Effect | str] | None, where: str) -> dict[str, Effect]:
    overrides: dict[str, Effect] = {}
    for key, value in (raw or {}).items():
        try:
            overrides[key] = Effect(value)
        except ValueError:
            raise DocumentError(
                f"effect override {value!r} for {key!r} is not read, write or destructive",
                where=f"{where}: effect_overrides",
                hint="Use one of: read, write, destructive",
            ) from None
    return overrides
