"""A callable's docstring sections, as Google (Napoleon), NumPy and Sphinx (reST) write
them: the summary is the route's description, and each parameter's text is its own."""

from __future__ import annotations

from schemarouter import SchemaRouter


def order_lines_google(order_id: str, *, limit: int = 10, cursor: str = "") -> list[str]:
    """List the lines of an order.

    Args:
        order_id: The order number, e.g. O-1001.

    Keyword Args:
        limit: How many lines at most.
        cursor: Where the previous page ended.

    Returns:
        The lines.
    """
    return []


def order_lines_keywords(*, order_id: str, limit: int = 10) -> list[str]:
    """List the lines of an order.

    Keyword Arguments:
        order_id: The order number, e.g. O-1001.
        limit: How many lines at most.
    """
    return []


def order_lines_numpy(order_id: str, limit: int = 10) -> list[str]:
    """List the lines of an order.

    Parameters
    ----------
    order_id : str
        The order number, e.g. O-1001.

    Other Parameters
    ----------------
    limit : int
        How many lines at most.

    Yields
    ------
    str
        A line.
    """
    return []


def order_lines_rest(order_id: str, limit: int = 10) -> list[str]:
    """List the lines of an order.

    :param order_id: The order number,
        e.g. O-1001.
    :type order_id: str
    :param int limit: How many lines at most.
    :returns: The lines.
    :rtype: list[str]
    :raises KeyError: No such order.
    """
    return []


def test_keyword_and_rest_parameter_sections_describe_their_parameters() -> None:
    """Sphinx's ``:param name:`` fields were read as the summary: the route's description
    (what retrieval indexes and a model reads) was "List the lines of an order. :param
    order_id: The order number, e.g. O-1001. :type order_id: str :param int limit: ...
    :rtype: list[str] :raises KeyError: No such order.", and no parameter had a
    description. Google's ``Keyword Arguments:`` section alone went into the summary too
    (its parameters undescribed), and after ``Args:`` its header ended the description of
    the parameter above it ("The order number, e.g. O-1001. Keyword Args:")."""
    router = SchemaRouter()
    router.add_callable(
        [order_lines_google, order_lines_keywords, order_lines_numpy, order_lines_rest],
        provider="shop",
    )
    snapshot = router.snapshot()
    expected = {
        "order_lines_google": {
            "order_id": "The order number, e.g. O-1001.",
            "limit": "How many lines at most.",
            "cursor": "Where the previous page ended.",
        },
        "order_lines_keywords": {
            "order_id": "The order number, e.g. O-1001.",
            "limit": "How many lines at most.",
        },
        "order_lines_numpy": {
            "order_id": "The order number, e.g. O-1001.",
            "limit": "How many lines at most.",
        },
        "order_lines_rest": {
            "order_id": "The order number, e.g. O-1001.",
            "limit": "How many lines at most.",
        },
    }
    for name, described in expected.items():
        endpoint = snapshot.route(f"shop/python/{name}").endpoint
        assert endpoint.description == "List the lines of an order.", name
        got = {p.name: p.description for p in endpoint.parameters}
        assert got == described, name
        properties = endpoint.input_schema["properties"]
        assert {k: properties[k].get("description") for k in described} == described, name


def test_a_long_field_line_is_read_in_linear_time() -> None:
    """Trial T5 (low): ``:param`` and 8,000 spaces with no closing colon took 329 ms (and
    grew with the square of the line): the field pattern's spaces could split two ways."""
    import time

    from schemarouter.adapters.python import _parse_docstring

    started = time.process_time()  # CPU: other jobs' load is not ours
    assert _parse_docstring("Tare.\n\n:param" + " " * 80_000 + "x")[0].startswith("Tare.")
    assert time.process_time() - started < 1.0
