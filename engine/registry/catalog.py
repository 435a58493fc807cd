"""Catalog files: a whole registry declared as data (YAML or JSON), and its JSON Schema.

A catalog is a file, or a folder of files (``*.yaml``, ``*.yml``, ``*.json`` at any depth;
a file or folder whose name starts with ``_`` or ``.`` is not read: drafts, a ``.github``
folder, an index saved beside the catalog), each a :class:`CatalogDocument`::

    schemarouter_catalog: 1
    field_groups: [{id: mechanical, description: Elastic constants and moduli}]
    intents: [{id: property_lookup, field_groups: [mechanical]}]
    providers:
      - id: materials_project
        display_name: Materials Project
        license: CC-BY-4.0
        source_type: calculated
        access:
          - id: rest
            kind: http
            base_url: https://api.materialsproject.org
            endpoints:
              - id: summary
                name: search_summary
                operation: {method: GET, path: /materials/summary/}
                output_fields: [...]

The same pydantic contracts validate a catalog and an adapter's output, so a catalog can
express exactly what the registry holds. ``schemarouter catalog schema`` writes the JSON
Schema generated from these models (committed as ``engine/registry/catalog.schema.json``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from schemarouter.contracts import (
    AccessPath,
    Contract,
    Endpoint,
    FieldGroup,
    Intent,
    Provider,
    Registration,
    Route,
)
from schemarouter.errors import DocumentError, DuplicateRouteError, SchemaRouterError
from schemarouter.registry.catalog_defaults import with_defaults
from schemarouter.registry.catalog_folder import folder_files
from schemarouter.registry.catalog_keys import unknown_key_hint
from schemarouter.registry.compile import (
    RouteSpec,
    build_registration,
    format_validation_error,
    validation_problems,
)
from schemarouter.registry.kinds import check_kind, on_command_line
from schemarouter.registry.lines import with_line
from schemarouter.registry.parsing import TOO_LARGE_HINT, parse_text, read_local_text

__all__ = [
    "CATALOG_SUFFIXES",
    "AccessSpec",
    "CatalogDocument",
    "ProviderSpec",
    "bundled_catalog",
    "catalog_files",
    "catalog_json_schema",
    "catalog_problems",
    "load_catalog",
    "load_catalog_document",
    "read_structured_file",
]

CATALOG_SUFFIXES = (".yaml", ".yml", ".json")
CATALOG_FORMAT_VERSION = 1
#: Where an error about a catalog's shape sends the reader (a command, not a checkout path).
SCHEMA_HINT = "Run `schemarouter catalog schema` for the format"


def hint_for(what: str, loc: str) -> str:
    """The hint for one validation problem at ``loc``: what to write where a string is due
    and YAML read a number or a boolean (``temperature: 298.15``), else :data:`SCHEMA_HINT`."""
    if what.startswith("unknown key"):
        keys = unknown_key_hint(CatalogDocument, loc)
        return f"{keys}. {SCHEMA_HINT}" if keys else SCHEMA_HINT
    if "valid string" not in what:
        return SCHEMA_HINT
    if ".qualifiers." in f".{loc}":
        key = loc.rsplit(".", 1)[-1]
        return (
            f"A qualifier's value is text: quote it, with its unit where it has one "
            f'({key}: "298.15 K"); YAML reads an unquoted 298.15 or true as a number or a '
            f"boolean. {SCHEMA_HINT}"
        )
    return (
        f"Quote the value: YAML reads an unquoted number or true/false as no string. {SCHEMA_HINT}"
    )


class AccessSpec(AccessPath):
    """An access path and the endpoints reached through it."""

    endpoints: tuple[Endpoint, ...] = Field(min_length=1)

    def access_path(self) -> AccessPath:
        return AccessPath.model_validate(self.model_dump(exclude={"endpoints"}))


class ProviderSpec(Provider):
    """A provider and its access paths."""

    access: tuple[AccessSpec, ...] = Field(min_length=1)

    def provider(self) -> Provider:
        return Provider.model_validate(self.model_dump(exclude={"access"}))


class CatalogDocument(Contract):
    """One catalog file."""

    schemarouter_catalog: Literal[1] = Field(
        description="Catalog format version; always 1 for now."
    )
    name: str | None = None
    description: str = ""
    field_groups: tuple[FieldGroup, ...] = ()
    intents: tuple[Intent, ...] = ()
    providers: tuple[ProviderSpec, ...] = ()


def catalog_json_schema() -> dict[str, Any]:
    """The JSON Schema of a catalog file, generated from the contracts."""
    schema = CatalogDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://schemarouter.dev/schema/catalog-1.json"
    schema["title"] = "SchemaRouter catalog"
    return schema


#: What a catalog file past the local-document cap is told: a large catalog is a folder.
_SPLIT_CATALOG = (
    "Split the catalog into several files in one folder and pass the folder "
    "(every catalog file under it is read; docs/scale.md)"
)


def read_structured_file(path: Path, *, too_large: str = TOO_LARGE_HINT) -> Any:
    """Parse a JSON or YAML file; :class:`DocumentError` with the line on a syntax error.
    A local file is held to the cap of fetched documents; a FIFO, a device or a folder is
    refused (see :func:`~schemarouter.registry.parsing.read_local_text`); ``too_large`` is
    the hint for a file past the cap."""
    text = read_local_text(path, where=str(path), too_large=too_large)
    return parse_text(text, source=str(path), json_first=path.suffix == ".json")


def load_catalog_document(data: Any, *, source: str) -> CatalogDocument:
    check_kind(data, "catalog", where=source)
    if not isinstance(data, dict):
        raise DocumentError(
            f"a catalog must be a mapping at the top level, got {type(data).__name__}",
            where=source,
            hint="Start the file with 'schemarouter_catalog: 1' and a 'providers' list",
        )
    try:
        return CatalogDocument.model_validate(data)
    except ValidationError as exc:
        what, loc = format_validation_error(exc)
        raise DocumentError(what, where=f"{source}: {loc}", hint=hint_for(what, loc)) from None


def bundled_catalog() -> Path:
    """The folder of the bundled materials-science catalog, installed with the package
    (``data/catalogs/materials`` in a checkout): ``SchemaRouter.from_catalog(bundled_catalog())``
    works from any folder, as the CLI's default catalog does."""
    from importlib.resources import files

    return Path(str(files("schemarouter.data").joinpath("catalogs", "materials")))


def _not_found_hint(path: Path) -> str:
    """The hint of a catalog path that does not exist; the checkout's relative path of the
    bundled catalog (``data/catalogs/materials`` outside the checkout) is told where it is."""
    if path.parts[-2:] != ("catalogs", "materials"):
        return "Check the path"
    if on_command_line():  # a command's user passes paths, not Python calls (trial D)
        return (
            "Check the path; the bundled catalog is installed with the package, at "
            f"{bundled_catalog()} (pass that path; `schemarouter retrieve` given no source "
            "reads it)"
        )
    return (
        "Check the path; the bundled catalog is installed with the package: "
        f"SchemaRouter.from_catalog(schemarouter.bundled_catalog()) (at {bundled_catalog()})"
    )


def _looks_like_text(path: Path) -> bool:
    """Whether ``path`` is a catalog's text, not a file's name: a line break, or the start of
    YAML or JSON, and no such file."""
    text = str(path)
    if not ("\n" in text or text.lstrip().startswith(("schemarouter_catalog:", "{"))):
        return False
    try:
        return not path.exists()
    except (OSError, ValueError):  # a name too long, a NUL byte: no file
        return True


def catalog_files(path: Path) -> list[Path]:
    """The catalog files of ``path`` (a file, or every catalog file under a folder). Text
    given as a path is refused as text: a catalog is read from its files (its provenance is
    their paths), so text is written to a file first."""
    if _looks_like_text(path):
        raise DocumentError(
            "this looks like catalog text, not a path: a catalog is a file or a folder",
            where=f"<text: {str(path).lstrip()[:40]!r}...>",
            hint="Write the text to a file, e.g. Path('catalog.yaml').write_text(text), and "
            "pass its path",
        )
    try:
        return _catalog_files(path)
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte, no permission
        raise DocumentError(
            f"cannot read the catalog path: {getattr(exc, 'strerror', None) or exc}",
            where=str(path)[:300],
            hint="Check the path and try again",
        ) from None


def _catalog_files(path: Path) -> list[Path]:
    if path.is_dir():
        return folder_files(path, CATALOG_SUFFIXES)
    if not path.exists():
        raise DocumentError("catalog not found", where=str(path), hint=_not_found_hint(path))
    return [path]


def _specs(document: CatalogDocument) -> Iterator[RouteSpec]:
    for pi, provider_spec in enumerate(document.providers):
        provider = provider_spec.provider()
        for ai, access_spec in enumerate(provider_spec.access):
            access = access_spec.access_path()
            for ei, endpoint in enumerate(access_spec.endpoints):
                yield RouteSpec(
                    provider,
                    access,
                    with_defaults(endpoint),
                    f"providers[{pi}].access[{ai}].endpoints[{ei}]",
                )


def _path_problems(document: CatalogDocument, source: str) -> list[DocumentError]:
    """Field paths written with an empty segment (``data..x``): a typo that would only show
    when the call ran, as if the server had broken its schema."""
    problems = []
    for spec in _specs(document):
        for fi, item in enumerate(spec.endpoint.output_fields):
            if item.path and "" in item.path.split("."):
                problems.append(
                    DocumentError(
                        f"path {item.path!r} of field {item.name!r} has an empty segment (two "
                        "dots, or one at an end)",
                        where=f"{source}: {spec.location}.output_fields[{fi}].path",
                        hint="Write it as key.key, with * for every element of an array",
                    )
                )
        whole = [item.name for item in spec.endpoint.output_fields if not item.path]
        if len(whole) > 1:  # each would read the whole output, and fail as a broken schema
            problems.append(
                DocumentError(
                    f"{len(whole)} output fields ({', '.join(whole[:4])}"
                    f"{', ...' if len(whole) > 4 else ''}) declare no path, so each would read "
                    "the whole output",
                    where=f"{source}: {spec.location}.output_fields",
                    hint=f"Give each field the path of its value in the output (path: {whole[0]}, "
                    f"or data.*.{whole[0]} inside a list); only a field that is the whole output "
                    "leaves path out",
                )
            )
    return problems


def _undeclared_groups(
    document: CatalogDocument, source: str, groups: Mapping[str, FieldGroup]
) -> list[DocumentError]:
    """Each intent of ``document`` requiring a field group no file declares (where any does)."""
    return [
        DocumentError(
            f"intent {intent.id!r} requires field group {group_id!r}, which is not declared",
            where=f"{source}: intents[{i}].field_groups",
            hint="Declare the group under field_groups",
        )
        for i, intent in enumerate(document.intents)
        for group_id in intent.field_groups
        if groups and group_id not in groups
    ]


def _declared_again(documents: list[tuple[Path, CatalogDocument]]) -> list[DocumentError]:
    """A field group or intent id declared again with other content, in one file or across a
    folder's files: the later one would replace the earlier without a word (and change what
    recall-mode projection adds). The same declaration repeated (each file of a folder
    declaring the groups it uses) is fine."""
    problems = []
    for kind, noun in (("field_groups", "field group"), ("intents", "intent")):
        first: dict[str, tuple[str, object]] = {}
        for file, document in documents:
            for i, item in enumerate(getattr(document, kind)):
                here = f"{file}: {kind}[{i}].id"
                seen = first.setdefault(item.id, (here, item))
                if seen[1] != item:
                    problems.append(
                        DocumentError(
                            f"{noun} {item.id!r} is declared again, otherwise (first at {seen[0]})",
                            where=here,
                            hint=f"Declare each {noun} once, or the same way everywhere",
                        )
                    )
    return problems


def _with_line(problem: SchemaRouterError, files: Sequence[Path]) -> SchemaRouterError:
    """``problem`` with the line its key path is written on where it is one of ``files``'
    (``plant.yaml:30: providers[0].access[0].endpoints[13].effect``): the author of a long
    hand-written catalog counted endpoints to find ``endpoints[13]`` (trial A). The file is
    read again on this error path only."""
    where = problem.where or ""
    for file in files:
        if where.startswith(head := f"{file}: "):
            try:
                text = read_local_text(file, where=str(file), too_large=_SPLIT_CATALOG)
            except SchemaRouterError:
                return problem
            return problem.placed(with_line(str(file), text, where[len(head) :]))
    return problem


def load_catalog(paths: Path | str | Sequence[Path | str]) -> Registration:
    """Read and check a catalog (file or folder, or several): one Registration, or an error.

    Every file is parsed and checked before anything is returned; errors name the file,
    the line and location inside it, and the reason.
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    files = [f for p in paths for f in catalog_files(Path(p))]
    try:
        return _load(paths, files)
    except SchemaRouterError as exc:
        raise _with_line(exc, files) from None


def _load(paths: Sequence[Path | str], files: list[Path]) -> Registration:
    groups: dict[str, FieldGroup] = {}
    intents: dict[str, Intent] = {}
    documents: list[tuple[Path, CatalogDocument]] = []
    for file in files:
        document = load_catalog_document(
            read_structured_file(file, too_large=_SPLIT_CATALOG), source=str(file)
        )
        for group in document.field_groups:
            groups[group.id] = group
        for intent in document.intents:
            intents[intent.id] = intent
        documents.append((file, document))
    problems = _declared_again(documents)
    problems += [p for file, document in documents for p in _path_problems(document, str(file))]
    if problems:
        raise problems[0]
    registrations: list[Registration] = []
    seen_providers: dict[str, str] = {}
    for file, document in documents:
        for pi, spec in enumerate(document.providers):
            if spec.id in seen_providers:
                raise DuplicateRouteError(
                    f"provider {spec.id!r} is declared again (first in {seen_providers[spec.id]})",
                    where=f"{file}: providers[{pi}].id",
                    hint="Declare each provider once; put all its access paths under it",
                )
            seen_providers[spec.id] = str(file)
        for problem in _undeclared_groups(document, str(file), groups):
            raise problem
        try:
            registrations.append(
                build_registration(
                    list(_specs(document)),
                    source=str(file),
                    providers=[p.provider() for p in document.providers],
                    field_groups=list(groups.values()) if groups else None,
                    intents=list(intents.values()) if intents else None,
                )
            )
        except SchemaRouterError:
            raise
    merged = _merge(registrations, source=", ".join(str(Path(p)) for p in paths))
    notes = _named_but_never_declared(merged, groups=bool(groups), intents=bool(intents))
    notes += _unlicensed(documents)
    return merged.model_copy(update={"warnings": (*merged.warnings, *notes)}) if notes else merged


def _named_but_never_declared(
    registration: Registration, *, groups: bool, intents: bool
) -> list[str]:
    """Field groups and intents the catalog's fields and endpoints name where no file
    declares any (then nothing checks the names: a catalog.yaml left out of a deploy, or a
    typo, passes unseen)."""
    endpoints = [r.endpoint for r in registration.routes]
    named = {
        "field group": set()
        if groups
        else {f.group for e in endpoints for f in e.output_fields if f.group},
        "intent": set() if intents else {i for e in endpoints for i in e.intents},
    }
    return [
        f"{registration.source}: {len(names)} {kind}s named ({', '.join(sorted(names)[:5])}"
        f"{', ...' if len(names) > 5 else ''}) but no file declares any {kind}, so none is "
        f"checked (declare them under {kind.replace(' ', '_')}s, e.g. in catalog.yaml)"
        for kind, names in named.items()
        if names
    ]


def _unlicensed(documents: Sequence[tuple[Path, CatalogDocument]]) -> list[str]:
    """A note per provider that declares no license where some of its fields declare none
    either: their values would carry ``license: None`` in every result (trial A)."""
    notes = []
    for file, document in documents:
        for pi, spec in enumerate(document.providers):
            if spec.license:
                continue
            bare = [
                f"{endpoint.id}.{item.name}"
                for access in spec.access
                for endpoint in access.endpoints
                for item in endpoint.output_fields
                if not item.license
            ]
            if bare:
                notes.append(
                    f"{file}: providers[{pi}] ({spec.id}) declares no license, nor do "
                    f"{len(bare)} of its output fields ({', '.join(bare[:3])}"
                    f"{', ...' if len(bare) > 3 else ''}): their values carry no license in "
                    "any result; set license on the provider (or on each field)"
                )
    return notes


def _merge(registrations: Sequence[Registration], *, source: str) -> Registration:
    if len(registrations) == 1:
        return registrations[0]
    routes: dict[str, Route] = {}
    for registration in registrations:
        for route in registration.routes:
            if route.route_id in routes:
                raise DuplicateRouteError(
                    f"route {route.route_id!r} is declared in {routes[route.route_id].source} "
                    f"and {route.source}",
                    where=route.source,
                    hint="Give each endpoint a distinct id inside its access path",
                )
            routes[route.route_id] = route
    groups = {g.id: g for r in registrations for g in r.field_groups}
    intents = {i.id: i for r in registrations for i in r.intents}
    providers = {p.id: p for r in registrations for p in r.providers}
    return Registration(
        source=source,
        providers=tuple(providers[k] for k in sorted(providers)),
        routes=tuple(routes[k] for k in sorted(routes)),
        field_groups=tuple(groups[k] for k in sorted(groups)),
        intents=tuple(intents[k] for k in sorted(intents)),
        warnings=tuple(w for r in registrations for w in r.warnings),
    )


def _each_provider(
    data: dict[str, Any], source: str
) -> tuple[CatalogDocument | None, list[SchemaRouterError]]:
    """The document with its valid providers, and a problem per invalid key anywhere (a bad
    provider does not hide the others' problems)."""
    problems: list[SchemaRouterError] = []

    def refused(exc: ValidationError, prefix: str = "") -> None:
        problems.extend(
            DocumentError(what, where=f"{source}: {loc}", hint=hint_for(what, loc))
            for what, loc in validation_problems(exc, prefix=prefix)
        )

    raw = data.get("providers", ())
    providers: list[ProviderSpec] = []
    if isinstance(raw, list):
        for i, item in enumerate(raw):
            try:
                providers.append(ProviderSpec.model_validate(item))
            except ValidationError as exc:
                refused(exc, prefix=f"providers[{i}]")
        data = {**data, "providers": []}
    try:
        document = CatalogDocument.model_validate(data)
    except ValidationError as exc:
        refused(exc)
        return None, problems
    return document.model_copy(update={"providers": tuple(providers)}), problems


def catalog_problems(paths: Path | str | Sequence[Path | str]) -> list[SchemaRouterError]:
    """Every problem :func:`load_catalog` would stop at, and the ones after it: each file
    parsed and validated on its own, each endpoint checked on its own, ids checked across
    files. Empty means the catalog loads."""
    if isinstance(paths, str | Path):
        paths = [paths]
    problems: list[SchemaRouterError] = []
    files: list[Path] = []
    for path in paths:
        try:
            files.extend(catalog_files(Path(path)))
        except SchemaRouterError as exc:
            problems.append(exc)
    documents: list[tuple[Path, CatalogDocument]] = []
    for file in files:
        try:
            data = read_structured_file(file, too_large=_SPLIT_CATALOG)
            check_kind(data, "catalog", where=str(file))
            if not isinstance(data, dict):
                load_catalog_document(data, source=str(file))  # raises the shape error
        except SchemaRouterError as exc:
            problems.append(exc)
            continue
        document, found = _each_provider(data, str(file))
        problems.extend(found)
        if document is not None:
            documents.append((file, document))
    problems.extend(_declared_again(documents))
    for file, document in documents:
        problems.extend(_path_problems(document, str(file)))
    groups = {g.id: g for _, d in documents for g in d.field_groups}
    intents = {i.id: i for _, d in documents for i in d.intents}
    providers: dict[str, str] = {}
    routes: dict[str, str] = {}
    for file, document in documents:
        problems.extend(_undeclared_groups(document, str(file), groups))
        for pi, spec in enumerate(document.providers):
            if spec.id in providers:
                problems.append(
                    DuplicateRouteError(
                        f"provider {spec.id!r} is declared again (first in {providers[spec.id]})",
                        where=f"{file}: providers[{pi}].id",
                        hint="Declare each provider once; put all its access paths under it",
                    )
                )
            providers.setdefault(spec.id, str(file))
        for route_spec in _specs(document):
            try:
                (route,) = build_registration(
                    [route_spec],
                    source=str(file),
                    field_groups=list(groups.values()) if groups else None,
                    intents=list(intents.values()) if intents else None,
                ).routes
            except SchemaRouterError as exc:
                problems.append(exc)
                continue
            if route.route_id in routes:
                problems.append(
                    DuplicateRouteError(
                        f"route {route.route_id!r} is declared twice (first at "
                        f"{routes[route.route_id]})",
                        where=f"{file}: {route_spec.location}",
                        hint="Give each endpoint a distinct id inside its access path",
                    )
                )
            routes.setdefault(route.route_id, f"{file}: {route_spec.location}")
    return [_with_line(problem, files) for problem in problems]
