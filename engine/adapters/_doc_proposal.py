"""The data :func:`schemarouter.adapters.inspect.inspect` proposes: plain, frozen models.

Nothing here is registered, bound or callable; :func:`~schemarouter.adapters.inspect.approve`
turns a :class:`ContractProposal` into routes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from schemarouter import contracts

__all__ = ["ContractProposal", "ProposedEndpoint", "ProposedField", "ProposedParameter"]

_READ = ("GET", "HEAD")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProposedParameter(_Model):
    name: str
    location: Literal["path", "query", "body"] = "query"
    json_type: str | None = None
    required: bool = False
    description: str = ""
    passage: str
    grounding: float


class ProposedField(_Model):
    name: str
    path: str
    json_type: str | None = None
    unit: str | None = None
    description: str = ""
    passage: str
    grounding: float


class ProposedEndpoint(_Model):
    method: str
    path: str
    summary: str = ""
    parameters: tuple[ProposedParameter, ...] = ()
    fields: tuple[ProposedField, ...] = ()
    passage: str
    grounding: float

    @field_validator("method")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.strip().upper()

    @property
    def effect(self) -> contracts.Effect:
        """From the HTTP method, in any case (``model_copy(update=...)`` skips validators, so
        an edited ``"delete"`` is read here as ``DELETE``): GET / HEAD read, DELETE
        destructive, any other method a write."""
        method = self.method.strip().upper()
        if method in _READ:
            return contracts.Effect.READ
        return contracts.Effect.DESTRUCTIVE if method == "DELETE" else contracts.Effect.WRITE


class ContractProposal(_Model):
    """What the docs suggest. Plain data: never registered, bound or executed by itself."""

    base_url: str | None = None
    base_url_passage: str = ""
    endpoints: tuple[ProposedEndpoint, ...] = ()
