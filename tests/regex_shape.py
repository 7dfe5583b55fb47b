"""The repeats of a regular expression, for the tests that keep every pattern linear."""

from torchdoctor.kb.errors import _sre_c, _sre_parse

_REPEATS = tuple(op for op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None))
                 if op is not None)


def repeats(pattern: str):
    """Yield (max, nested, body) for every repeat in `pattern`: its upper bound
    (_sre_c.MAXREPEAT when unbounded), whether it sits inside another repeat, and
    the parsed body it repeats."""
    yield from _walk(_sre_parse.parse(pattern), 0)


def _walk(parsed, depth):
    for op, av in parsed:
        if op in _REPEATS:
            lo, hi, sub = av
            yield hi, depth > 0, list(sub)
            yield from _walk(sub, depth + 1)
        elif op is _sre_c.SUBPATTERN:
            yield from _walk(av[-1], depth)
        elif op is _sre_c.BRANCH:
            for alt in av[1]:
                yield from _walk(alt, depth)
        elif op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
            yield from _walk(av[1], depth)
