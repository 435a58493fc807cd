"""Saving and loading a hybrid index as a folder of plain files, atomically.

Layout::

    <index>/
        manifest.json            format, registry fingerprint and version, encoder identity,
                                 settings, counts, and the sha256 and size of every file
        gen-<id>/                one generation of data files:
            routes.json              route ids, route fingerprints, field names per route,
                                     provider and access-path fingerprints
            docs_route.npy  docs_kind.npy  docs_field.npy  docs_vec.npy
            lexical_tf_data.npy  lexical_tf_indices.npy  lexical_tf_indptr.npy
            lexical_vocab.json
            endpoint_vectors.npy  endpoint_keys.json  [endpoint_hnsw.faiss]
            field_vectors.npy     field_keys.json     [field_hnsw.faiss]
            [registry.json.gz]       the registry it was built from (:mod:`.saved_registry`)

No pickle anywhere (``np.load(allow_pickle=False)``; the HNSW graph is FAISS's own binary
format). A save writes a new generation into a temporary folder, renames it to
``gen-<id>``, and then replaces ``manifest.json`` in one ``os.replace``: that is the
commit. A crash before it leaves the previous manifest and generation untouched; older
generations are deleted only after the commit. Saves into one folder take turns under the
lock of :mod:`.folder`, which also clears what a killed save left.

Loading checks, in order: the manifest parses and has this format
(:class:`CorruptIndexError`), every file listed exists with its size and sha256
(:class:`CorruptIndexError`; a symlink to such a file is followed; before any registry
difference is described, so a damaged folder is named as damaged), the registry fingerprint
and encoder match, and this installation has the encoder it was embedded with
(:class:`StaleIndexError`), and the arrays agree with each other. Only files the manifest
lists are read: a stray ``*.faiss`` beside them is ignored, never deserialized. A load
whose generation a concurrent save deleted starts again from the new manifest.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from schemarouter.errors import CorruptIndexError, IndexStoreError, StaleIndexError
from schemarouter.fingerprint import fingerprint
from schemarouter.index.documents import DocKind
from schemarouter.index.folder import (
    LOCK_WAIT_S,
    MANIFEST,
    check_index_folder,
    named_generation,
    prune,
    write_failure,
    writing,
)
from schemarouter.index.lexical import LexicalIndex
from schemarouter.index.registry_file import REGISTRY_FILE
from schemarouter.index.settings import IndexSettings
from schemarouter.index.stale import are_parts, check_settings_known, stale_hint
from schemarouter.index.verify import file_sha256 as _sha256
from schemarouter.index.verify import read_array, verify_files
from schemarouter.registry.bounds import UnreadableFile, load_json, read_file_bytes
from schemarouter.registry.catalog_folder import SAVED_INDEX_FORMAT
from schemarouter.registry.diff import RouteParts, fingerprint_difference
from schemarouter.registry.registry import RegistrySnapshot

if TYPE_CHECKING:
    from schemarouter.index.encoders.dense import Encoder

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "SavedIndex",
    "SavedVectors",
    "check_index_folder",
    "load_index",
    "read_manifest",
    "save_index",
]

logger = logging.getLogger(__name__)

FORMAT = SAVED_INDEX_FORMAT
FORMAT_VERSION = 1
#: A manifest lists a dozen files; anything near this is not one.
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
_KIND_NAMES = {DocKind.ENDPOINT: "endpoint", DocKind.FIELD: "field"}
_KINDS = (DocKind.ENDPOINT, DocKind.FIELD)
T = TypeVar("T")


@dataclass
class SavedVectors:
    """One vector set as saved: keys, their vectors, how many documents use each key (on
    load), and the FAISS HNSW graph where one was built."""

    keys: list[str]
    vectors: np.ndarray
    refs: np.ndarray | None = None
    hnsw: bytes | None = None


@dataclass
class SavedIndex:
    """Everything a hybrid index saves, as plain lists and arrays: what ``HybridIndex.save``
    hands to :func:`save_index` and what :func:`load_index` hands back (checked against each
    other) for ``HybridIndex.load`` to build the index from. This module never builds one."""

    registry_fingerprint: str
    registry_version: int
    encoder: str
    dim: int
    settings: IndexSettings
    route_ids: list[str]
    fingerprints: list[str]
    fields: list[tuple[str, ...]]
    doc_route: np.ndarray
    doc_kind: np.ndarray
    doc_field: np.ndarray
    doc_vec: np.ndarray
    lexical: LexicalIndex
    #: the endpoint and the field vector sets, in that order
    vectors: tuple[SavedVectors, SavedVectors]
    counts: dict[str, Any] | None = None
    #: the provider and access-path fingerprints of the routes (``route_parts``): in
    #: ``routes.json``, so a stale refusal can say which part of a changed route moved
    parts: RouteParts | None = None
    #: the bytes of ``registry.json.gz`` (:func:`.saved_registry.registry_file`), written
    #: where given
    registry: bytes | None = None


def _fsync_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _write_array(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as handle:
        np.save(handle, np.ascontiguousarray(array), allow_pickle=False)
        handle.flush()
        os.fsync(handle.fileno())


def _write_json(path: Path, value: Any) -> None:
    _fsync_write(path, json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _manifest_checksum(manifest: dict[str, Any]) -> str:
    return fingerprint({k: v for k, v in manifest.items() if k != "checksum"})


def save_index(
    index: SavedIndex, path: Path, *, wait: float = LOCK_WAIT_S, left_out: Sequence[Any] = ()
) -> Path:
    """Write ``index`` to folder ``path`` (created if needed) atomically; returns ``path``.
    ``left_out``: the sources the build left out (``--skip-invalid``), in the manifest.

    Saves into one folder take turns (:func:`.folder.writing`; ``wait``: how many seconds
    this one waits for another); a file that cannot be written is :class:`IndexStoreError`."""
    from schemarouter._version import __version__

    check_index_folder(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file where a folder of the path should be, no permission
        raise IndexStoreError(
            f"cannot create the index folder: {exc.strerror or exc}",
            where=str(path),
            hint="Choose a folder path you can write to",
        ) from None
    with writing(path, wait=wait):
        check_index_folder(path)  # again: another save may have written it meanwhile
        prune(path)  # what saves that died left behind
        generation = f"gen-{uuid.uuid4().hex[:12]}"
        tmp = path / f".tmp-{generation}"
        try:
            tmp.mkdir()
            names = _write_generation(index, tmp)
            files = {}
            for name in names:
                file = tmp / name
                files[f"{generation}/{name}"] = {
                    "sha256": _sha256(file),
                    "bytes": file.stat().st_size,
                }
            _fsync_dir(tmp)
            os.rename(tmp, path / generation)
            manifest: dict[str, Any] = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "schemarouter_version": __version__,
                "generation": generation,
                "registry_fingerprint": index.registry_fingerprint,
                "registry_version": index.registry_version,
                "encoder": index.encoder,
                "dim": index.dim,
                "settings": index.settings.as_dict(),
                "counts": index.counts,
                "files": files,
            }
            if left_out:
                manifest["left_out"] = list(left_out)
            manifest["checksum"] = _manifest_checksum(manifest)
            staged = path / f".{MANIFEST}.{generation}.tmp"
            _fsync_write(staged, json.dumps(manifest, indent=1, ensure_ascii=False).encode())
            os.replace(staged, path / MANIFEST)  # the commit
            _fsync_dir(path)
        except BaseException as exc:
            prune(path)  # what this save left: its temporary and unnamed generation, manifest
            if isinstance(exc, OSError):  # disk full, no permission: one line, not a traceback
                raise IndexStoreError(
                    f"cannot write the index: {write_failure(exc)}",
                    where=str(path),
                    hint="Free space or choose a folder you can write to; the previous index "
                    "(if any) is unchanged",
                ) from exc
            raise
        prune(path, keep=generation)  # never the generation the manifest names
    logger.info("saved index (%d routes) to %s", len(index.route_ids), path)
    return path


def _write_generation(index: SavedIndex, folder: Path) -> list[str]:
    names: list[str] = []

    def array(name: str, value: np.ndarray) -> None:
        _write_array(folder / name, value)
        names.append(name)

    def document(name: str, value: Any) -> None:
        _write_json(folder / name, value)
        names.append(name)

    routes: dict[str, Any] = {
        "route_ids": index.route_ids,
        "fingerprints": index.fingerprints,
        "fields": [list(f) for f in index.fields],
    }
    if index.parts is not None:
        routes["parts"] = index.parts
    document("routes.json", routes)
    if index.registry is not None:  # gzip: a tenth of the size (schemas repeat a lot)
        _fsync_write(folder / REGISTRY_FILE, index.registry)
        names.append(REGISTRY_FILE)
    array("docs_route.npy", index.doc_route.astype(np.int64))
    array("docs_kind.npy", index.doc_kind.astype(np.int8))
    array("docs_field.npy", index.doc_field.astype(np.int32))
    array("docs_vec.npy", index.doc_vec.astype(np.int64))
    arrays, terms = index.lexical.state()
    for name, value in arrays.items():
        array(f"{name}.npy", value)
    document("lexical_vocab.json", terms)
    for kind, vs in zip(_KINDS, index.vectors, strict=True):
        prefix = _KIND_NAMES[kind]
        array(f"{prefix}_vectors.npy", vs.vectors)
        document(f"{prefix}_keys.json", vs.keys)
        blob = vs.hnsw
        if blob is not None:
            _fsync_write(folder / f"{prefix}_hnsw.faiss", blob)
            names.append(f"{prefix}_hnsw.faiss")
    return names


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of the index at ``path``; :class:`CorruptIndexError` if unusable."""
    file = path / MANIFEST
    if path.exists() and not path.is_dir():
        raise CorruptIndexError(
            "an index is a folder, and this is a file",
            where=str(path),
            hint="Give the folder `schemarouter index build --out` wrote",
        )
    if not file.exists() and not file.is_symlink():
        raise CorruptIndexError(
            "no index here: the folder does not exist"
            if not path.exists()
            else "no index here (manifest.json is missing)",
            where=str(path),
            hint="Build one with `schemarouter index build` or HybridIndex.save",
        )
    try:
        # a regular file of bounded size, JSON no deeper than documents may nest (a manifest
        # nested 100,000 deep raised RecursionError; a FIFO blocked)
        manifest = load_json(read_file_bytes(file, max_bytes=MAX_MANIFEST_BYTES))
    except UnreadableFile as exc:
        raise CorruptIndexError(f"manifest.json is unreadable: {exc}", where=str(file)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CorruptIndexError(
            "manifest.json is not a SchemaRouter index manifest", where=str(file)
        )
    if manifest.get("format_version") != FORMAT_VERSION:
        error = StaleIndexError(
            f"index format version {manifest.get('format_version')!r} is not supported "
            f"(this version reads {FORMAT_VERSION})",
            where=str(file),
            hint="Rebuild the index with this version of SchemaRouter",
        )
        error.other_version = str(manifest.get("schemarouter_version"))[:40]
        raise error
    if manifest.get("checksum") != _manifest_checksum(manifest):
        raise CorruptIndexError(
            "manifest.json was altered (its checksum does not match)", where=str(file)
        )
    return manifest


#: A load that finds its generation replaced by a save while it read re-reads the manifest
#: this many times in all before giving up.
LOAD_ATTEMPTS = 3


def load_index(
    path: Path,
    snapshot: RegistrySnapshot,
    *,
    encoder: Encoder | None = None,
    build: Callable[[SavedIndex, Encoder], T],
    same_registry: bool = True,
) -> T:
    """Load and check the index at ``path`` against ``snapshot`` (see the module docstring);
    ``build(saved, encoder)`` makes the index of the checked arrays. A ``ValueError`` (and the
    like) it raises says the files are inconsistent: :class:`CorruptIndexError`.
    ``same_registry=False`` loads an index built from another registry (the caller brings
    it up to ``snapshot``); the encoder and the files are checked all the same.

    A save that replaces the index while this reads it deletes the generation being read: a
    file that is missing or inconsistent then, with the manifest naming another generation,
    means the index was replaced, not damaged, and loading starts again from the new
    manifest."""
    for attempt in range(1, LOAD_ATTEMPTS + 1):
        manifest = read_manifest(path)
        try:
            return _load_generation(path, manifest, snapshot, encoder, build, same_registry)
        except CorruptIndexError:
            if named_generation(path) in (manifest.get("generation"), None):
                raise  # the same generation: the files really are damaged
            logger.info("the index at %s was replaced while it loaded (try %d)", path, attempt)
    raise IndexStoreError(
        f"the index was replaced {LOAD_ATTEMPTS} times while it loaded",
        where=str(path),
        hint="Load it again once the rebuild (`schemarouter index build`) has finished",
    )


def _load_generation(
    path: Path,
    manifest: dict[str, Any],
    snapshot: RegistrySnapshot,
    encoder: Encoder | None,
    build: Callable[[SavedIndex, Encoder], T],
    same_registry: bool = True,
) -> T:
    # the files first: a damaged folder is named as such, never described as a registry
    # difference read from a damaged routes.json (nor sent to sync=True)
    listed = verify_files(path, manifest)
    check_settings_known(path, manifest)
    if same_registry and manifest.get("registry_fingerprint") != snapshot.fingerprint:
        saved, parts = _saved_routes(path, manifest)
        difference = (
            f"the current registry has {fingerprint_difference(saved, snapshot, parts=parts)}"
            if saved is not None
            else f"the current registry's {len(snapshot)} routes have another fingerprint"
        )
        raise StaleIndexError(
            f"the index was built from a different registry: compared with it, {difference}",
            where=str(path),
            hint=stale_hint(difference, registered=len(snapshot)),
        )
    identity = manifest.get("encoder")
    if encoder is not None and encoder.identity != identity:
        error = StaleIndexError(
            f"the index was embedded with {identity!r}, not {encoder.identity!r}",
            where=str(path),
            hint="Load it with the same encoder, or rebuild it with this one",
        )
        error.encoder_identity = str(identity)  # --sync keeps the files' encoder: no way out
        raise error
    if encoder is None:
        encoder = _encoder_named(path, manifest)
    try:
        return build(_restore(path / manifest["generation"], manifest, listed), encoder)
    except (ValueError, KeyError, TypeError, IndexError, OSError, RuntimeError) as exc:
        raise CorruptIndexError(f"index files are inconsistent: {exc}", where=str(path)) from None


def _encoder_named(path: Path, manifest: dict[str, Any]) -> Encoder:
    """The encoder the manifest names, where this installation has it (a warning where it is
    not the default: requests are embedded with it, trial L); else :class:`StaleIndexError`
    naming it, this installation's encoder and the version that wrote the index."""
    from schemarouter.index.encoders.defaults import default_encoder, encoder_from_identity

    identity = manifest.get("encoder")
    try:
        ours = repr(default_encoder().identity)
    except Exception as exc:  # only named in the messages
        ours = f"unavailable ({exc})"
    if isinstance(identity, str):
        with contextlib.suppress(ValueError):
            found = encoder_from_identity(identity)
            if repr(found.identity) != ours:
                logger.warning(
                    "the index at %s was embedded with %r, not the default encoder %s: "
                    "requests are embedded with that one (relevance and abstention are "
                    "calibrated for the default). Pass encoder= to choose it, or rebuild it "
                    "(`schemarouter index build`)",
                    path,
                    found.identity,
                    ours,
                )
            return found
    error = StaleIndexError(
        f"the index was embedded with {str(identity)[:200]!r} (written by SchemaRouter "
        f"{str(manifest.get('schemarouter_version'))[:40]}), which this installation does not "
        f"have: its encoder is {ours}",
        where=str(path),
        hint="Load it with the encoder it was built with (encoder= in SchemaRouter or "
        "HybridIndex.load), or rebuild it here (`schemarouter index build`)",
    )
    error.encoder_identity = str(identity)  # the command line says its own way out
    raise error


def _saved_routes(
    path: Path, manifest: dict[str, Any]
) -> tuple[dict[str, str] | None, RouteParts | None]:
    """route id -> fingerprint the index was built from, from its ``routes.json`` (checked
    against the manifest before; ``None`` where it is not listed or not readable), and the
    fingerprints of their parts where it has them (an index saved since they were kept)."""
    name = f"{manifest.get('generation')}/routes.json"
    info = manifest.get("files", {}).get(name) if isinstance(manifest.get("files"), dict) else None
    file = path / name
    try:
        if not isinstance(info, dict) or not file.is_file():
            return None, None
        routes = load_json(file.read_bytes())
        saved = dict(zip(routes["route_ids"], routes["fingerprints"], strict=True))
    except (OSError, ValueError, KeyError, TypeError):
        return None, None
    parts = routes.get("parts")
    return saved, parts if isinstance(parts, dict) and are_parts(parts) else None


def _restore(folder: Path, manifest: dict[str, Any], listed: frozenset[str]) -> SavedIndex:
    settings = IndexSettings.from_dict(manifest["settings"])
    dim = int(manifest["dim"])

    def file(name: str) -> Path:
        if name not in listed:  # only what the manifest lists (and hashes) is ever read
            raise ValueError(f"{name} is not listed in manifest.json")
        return folder / name

    def array(name: str) -> np.ndarray:  # vectors: float32 rows; all else integers
        vectors = name.endswith("_vectors.npy")
        return read_array(file(name), 2 if vectors else 1, integers=not vectors)

    def document(name: str) -> Any:
        return load_json(file(name).read_bytes())  # UnreadableFile is a ValueError

    routes = document("routes.json")
    route_ids, fps, fields = routes["route_ids"], routes["fingerprints"], routes["fields"]
    if not (len(route_ids) == len(fps) == len(fields)):
        raise ValueError("routes.json lists of different lengths")
    if fingerprint(sorted(zip(route_ids, fps, strict=True))) != manifest["registry_fingerprint"]:
        raise ValueError("routes.json does not match the registry fingerprint")
    route_fields = [tuple(f) for f in fields]
    doc_route, doc_kind = array("docs_route.npy"), array("docs_kind.npy")
    doc_field, doc_vec = array("docs_field.npy"), array("docs_vec.npy")
    n_docs = doc_route.shape[0]
    if any(a.shape != (n_docs,) for a in (doc_kind, doc_field, doc_vec)):
        raise ValueError("document arrays differ in length")
    if n_docs and (doc_route.min() < 0 or doc_route.max() >= len(route_ids)):
        raise ValueError("a document points at no route")
    endpoint_docs = doc_kind == DocKind.ENDPOINT
    if np.bincount(doc_route[endpoint_docs], minlength=len(route_ids)).tolist() != [1] * len(
        route_ids
    ):
        raise ValueError("every route needs exactly one endpoint document")
    lexical_arrays = {
        name: array(f"{name}.npy")
        for name in ("lexical_tf_data", "lexical_tf_indices", "lexical_tf_indptr")
    }
    lexical = LexicalIndex.from_state(lexical_arrays, document("lexical_vocab.json"), settings.bm25)
    if len(lexical) != n_docs:
        raise ValueError("the BM25 matrix and the document table differ in length")
    vector_sets = []
    for kind in _KINDS:
        prefix = _KIND_NAMES[kind]
        vectors = array(f"{prefix}_vectors.npy")
        keys = document(f"{prefix}_keys.json")
        if vectors.dtype != np.float32 or vectors.shape != (len(keys), dim):
            raise ValueError(f"{prefix} vectors have shape {vectors.shape}")
        if not np.isfinite(vectors).all():  # NaN scores no route: dense search fell silent
            raise ValueError(f"{prefix} vectors hold values that are not finite (NaN, inf)")
        mine = doc_vec[doc_kind == kind]
        if kind == DocKind.ENDPOINT and mine.size and mine.min() < 0:
            raise ValueError("an endpoint document has no vector")
        mine = mine[mine >= 0]
        if mine.size and mine.max() >= len(keys):
            raise ValueError(f"a document points at no {prefix} vector")
        refs = np.bincount(mine, minlength=len(keys))
        blob_name = f"{prefix}_hnsw.faiss"
        blob = file(blob_name).read_bytes() if blob_name in listed else None
        vector_sets.append(SavedVectors(keys, vectors, refs, blob))
    n_fields = np.array([len(f) for f in route_fields], dtype=np.int64)
    field_docs = doc_kind == DocKind.FIELD
    if np.any(doc_field[field_docs] < 0) or np.any(
        doc_field[field_docs] >= n_fields[doc_route[field_docs]]
    ):
        raise ValueError("a field document points at no field")
    return SavedIndex(
        registry_fingerprint=manifest["registry_fingerprint"],
        registry_version=int(manifest["registry_version"]),
        encoder=manifest["encoder"],
        dim=dim,
        settings=settings,
        route_ids=list(route_ids),
        fingerprints=list(fps),
        fields=route_fields,
        doc_route=doc_route.astype(np.int64),
        doc_kind=doc_kind.astype(np.int8),
        doc_field=doc_field.astype(np.int32),
        doc_vec=doc_vec.astype(np.int64),
        lexical=lexical,
        vectors=(vector_sets[0], vector_sets[1]),
    )
