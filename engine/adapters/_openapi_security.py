"""OpenAPI security schemes -> :class:`AuthRequirement` with credential *names*.

Credential names are derived from the provider id, upper-cased: ``apiKey`` ->
``<P>_API_KEY``; HTTP bearer -> ``<P>_TOKEN``; HTTP basic -> ``<P>_USERNAME`` and
``<P>_PASSWORD``; OAuth 2 and OpenID Connect -> ``<P>_ACCESS_TOKEN``; mutual TLS ->
``<P>_CLIENT_CERTIFICATE``; any other HTTP scheme -> ``<P>_<SCHEME>_CREDENTIALS``. Where
two declared schemes would get the same name, both carry their scheme name
(``<P>_<SCHEME_NAME>_API_KEY``). A requirement that names several schemes needs them all:
the first scheme's placement is the requirement's own, the others' are its ``combined``.
Values never appear anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.adapters._openapi_reader import OpenAPIReader
from schemarouter.contracts import AuthRequirement, CredentialPlacement, ParameterLocation
from schemarouter.errors import DanglingReferenceError, DocumentError
from schemarouter.registry.compile import slugify

__all__ = ["SecuritySchemes"]

_LOCATIONS = {
    "query": ParameterLocation.QUERY,
    "header": ParameterLocation.HEADER,
    "cookie": ParameterLocation.COOKIE,
}


class SecuritySchemes:
    """The schemes a document declares, and the requirement of each operation."""

    def __init__(self, reader: OpenAPIReader, *, provider_id: str) -> None:
        self.reader = reader
        if reader.dialect == "oas2":
            location = "securityDefinitions"
            raw = reader.doc.get("securityDefinitions") or {}
        else:
            location = "components.securitySchemes"
            components = reader.mapping(reader.doc.get("components") or {}, "components")
            raw = components.get("securitySchemes") or {}
        self.schemes: dict[str, tuple[Mapping[str, Any], str]] = {}
        for name, node in reader.mapping(raw, location).items():
            scheme, where = reader.deref(node, f"{location}.{name}")
            self.schemes[name] = (reader.mapping(scheme, where), where)
        self.kinds = {name: self._kind(name) for name in self.schemes}
        self.credentials = self._credential_names(provider_id)

    def _kind(self, name: str) -> tuple[str, tuple[str, ...]]:
        """(scheme label, credential suffixes) of a declared scheme."""
        scheme, where = self.schemes[name]
        kind = scheme.get("type")
        http_scheme = str(scheme.get("scheme", "")).lower() if kind == "http" else ""
        if kind == "apiKey":
            return "api_key", ("API_KEY",)
        if kind == "basic" or http_scheme == "basic":
            return "basic", ("USERNAME", "PASSWORD")
        if kind == "http" and http_scheme in ("bearer", ""):
            return "bearer", ("TOKEN",)
        if kind == "http":
            label = slugify(http_scheme)
            return label, (f"{label.upper().replace('-', '_').replace('.', '_')}_CREDENTIALS",)
        if kind == "oauth2":
            return "oauth2", ("ACCESS_TOKEN",)
        if kind == "openIdConnect":
            return "openid_connect", ("ACCESS_TOKEN",)
        if kind == "mutualTLS":
            return "mutual_tls", ("CLIENT_CERTIFICATE",)
        raise DocumentError(
            f"unknown security scheme type {kind!r}",
            where=self.reader.where(f"{where}.type"),
            hint="Use apiKey, http, oauth2, openIdConnect, mutualTLS (3.x) or basic (2.0)",
        )

    def _credential_names(self, provider_id: str) -> dict[str, tuple[str, ...]]:
        prefix = re.sub(r"[^A-Z0-9]+", "_", provider_id.upper()).strip("_") or "PROVIDER"
        counts: dict[tuple[str, ...], int] = {}
        for _, suffixes in self.kinds.values():
            counts[suffixes] = counts.get(suffixes, 0) + 1
        names: dict[str, tuple[str, ...]] = {}
        for name, (_, suffixes) in self.kinds.items():
            middle = ""
            if counts[suffixes] > 1:
                middle = "_" + re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")
            names[name] = tuple(f"{prefix}{middle}_{suffix}" for suffix in suffixes)
        return names

    def requirement(self, operation: Mapping[str, Any], location: str) -> AuthRequirement:
        """The operation's ``security`` (else the document's) as an AuthRequirement."""
        reader = self.reader
        if "security" in operation:
            raw, where = operation["security"], f"{location}.security"
        else:
            raw, where = reader.doc.get("security") or [], "security"
        alternatives = [
            reader.mapping(item, f"{where}[{i}]")
            for i, item in enumerate(reader.listing(raw, where))
        ]
        chosen = next(((i, r) for i, r in enumerate(alternatives) if r), None)
        if chosen is None:
            return AuthRequirement()
        index, requirement = chosen
        placements: list[CredentialPlacement] = []
        for name in requirement:
            if name not in self.schemes:
                raise DanglingReferenceError(
                    f"security requirement names scheme {name!r}, which is not declared",
                    where=reader.where(f"{where}[{index}].{name}"),
                    hint=f"Declare it (known: {', '.join(sorted(self.schemes)) or 'none'})",
                )
            placements.append(self._placement(name))
        first, *combined = placements
        return AuthRequirement(
            credentials=tuple(dict.fromkeys(c for p in placements for c in p.credentials)),
            scheme=first.scheme,
            location=first.location,
            parameter=first.parameter,
            optional=any(not r for r in alternatives),
            combined=tuple(combined),
        )

    def _placement(self, name: str) -> CredentialPlacement:
        """Scheme ``name``'s credentials and where they travel."""
        reader = self.reader
        scheme, scheme_where = self.schemes[name]
        label = self.kinds[name][0]
        place: ParameterLocation | None = ParameterLocation.HEADER
        parameter: str | None = "Authorization"
        if label == "api_key":
            raw_in = scheme.get("in")
            if not isinstance(raw_in, str) or raw_in not in _LOCATIONS:
                raise DocumentError(
                    f"apiKey scheme {name!r} has 'in' {raw_in!r}",
                    where=reader.where(f"{scheme_where}.in"),
                    hint="Use 'query', 'header' or 'cookie'",
                )
            place = _LOCATIONS[raw_in]
            parameter = reader.text(scheme, "name", scheme_where) or None
            if parameter is None:
                raise DocumentError(
                    f"apiKey scheme {name!r} has no parameter 'name'",
                    where=reader.where(f"{scheme_where}.name"),
                    hint="Name the header, query or cookie parameter that carries the key",
                )
        elif label == "mutual_tls":
            place, parameter = None, None
        return CredentialPlacement(
            credentials=self.credentials[name], scheme=label, location=place, parameter=parameter
        )
