"""Record classes: what torchdoctor used `dataclasses` for, without its import cost.

`import dataclasses` imports `inspect` (and with it ast, dis, tokenize and linecache), and
`@dataclass` compiles three methods per class: together about 15 ms of `explain`'s cold start
of ~100 ms, for classes that only hold fields. A record is a class whose annotated attributes
are its fields, in order (those of record bases first); `@record` gives it `__init__` (defaults
and `field(default_factory=...)`), `__repr__` and `__eq__` (and `__hash__ = None`), as
`@dataclass` does for the subset used here; `fields`, `replace`, `asdict` and `is_record`
work as their dataclasses namesakes. tests/test_records.py holds them to dataclasses.
"""

from typing import Any, Dict, Tuple

_MISSING = object()
_MUTABLE = (list, dict, set)


class Field:
    """One field of a record: its name, default or default factory, and whether repr shows it."""

    __slots__ = ("name", "default", "default_factory", "repr", "init")

    def __init__(self, default=_MISSING, default_factory=_MISSING, repr=True):
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = None
        self.default, self.default_factory, self.repr, self.init = default, default_factory, repr, True

    def __repr__(self):
        return "Field(name=%r)" % (self.name,)


def field(*, default=_MISSING, default_factory=_MISSING, repr=True) -> Any:
    return Field(default, default_factory, repr)


def _is_classvar(annotation) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _own_fields(cls) -> list:
    out = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, _MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        if isinstance(f.default, _MUTABLE):
            raise ValueError("mutable default %s for field %s is not allowed: use default_factory"
                             % (type(f.default), name))
        if isinstance(value, Field):
            if f.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        out.append(f)
    return out


def _init_source(fields) -> Tuple[str, Dict[str, Any]]:
    params, body, env = ["self"], [], {"_MISSING": _MISSING}
    seen_default = False
    for i, f in enumerate(fields):
        if f.default is not _MISSING:
            env["_d%d" % i] = f.default
            params.append("%s=_d%d" % (f.name, i))
            body.append("self.%s = %s" % (f.name, f.name))
            seen_default = True
        elif f.default_factory is not _MISSING:
            env["_f%d" % i] = f.default_factory
            params.append("%s=_MISSING" % f.name)
            body.append("self.%s = _f%d() if %s is _MISSING else %s" % (f.name, i, f.name, f.name))
            seen_default = True
        else:
            if seen_default:
                raise TypeError("non-default argument %r follows default argument" % f.name)
            params.append(f.name)
            body.append("self.%s = %s" % (f.name, f.name))
    return "def __init__(%s):\n    %s\n" % (", ".join(params), "\n    ".join(body or ["pass"])), env


def _repr(self):
    shown = ", ".join("%s=%r" % (f.name, getattr(self, f.name)) for f in self.__record_fields__ if f.repr)
    return "%s(%s)" % (type(self).__qualname__, shown)


def _eq(self, other):
    if other.__class__ is self.__class__:
        names = [f.name for f in self.__record_fields__]
        return [getattr(self, n) for n in names] == [getattr(other, n) for n in names]
    return NotImplemented


def record(cls=None, *, eq=True):
    """@record / @record(eq=False): make `cls` a record (see the module's docstring)."""
    def wrap(cls):
        inherited: Dict[str, Field] = {}
        for base in reversed(cls.__mro__[1:]):
            for f in getattr(base, "__record_fields__", ()):
                inherited[f.name] = f
        for f in _own_fields(cls):  # a redefined field keeps its base's place, as in dataclasses
            inherited[f.name] = f
        fields = tuple(inherited.values())
        cls.__record_fields__ = fields
        source, env = _init_source(fields)
        exec(source, env)  # noqa: S102 - the source is built above from the class's own names
        init = env["__init__"]
        init.__qualname__ = "%s.__init__" % cls.__qualname__
        cls.__init__ = init
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = _repr
        if eq and "__eq__" not in cls.__dict__:
            cls.__eq__ = _eq
            if "__hash__" not in cls.__dict__:
                cls.__hash__ = None
        cls.__match_args__ = tuple(f.name for f in fields)
        return cls
    return wrap if cls is None else wrap(cls)


def is_record(obj) -> bool:
    return hasattr(type(obj) if not isinstance(obj, type) else obj, "__record_fields__")


def fields(obj) -> Tuple[Field, ...]:
    cls = obj if isinstance(obj, type) else type(obj)
    try:
        return cls.__record_fields__
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def replace(obj, **changes):
    values = {f.name: getattr(obj, f.name) for f in fields(obj)}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError("%s has no field %s" % (type(obj).__qualname__, ", ".join(sorted(unknown))))
    values.update(changes)
    return type(obj)(**values)


def asdict(obj) -> Dict[str, Any]:
    if not is_record(obj) or isinstance(obj, type):
        raise TypeError("asdict() should be called on record instances")
    return _asdict(obj)


def _asdict(obj):
    if is_record(obj) and not isinstance(obj, type):
        return {f.name: _asdict(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple, as dataclasses does
        return type(obj)(*[_asdict(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_asdict(v) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_asdict(k), _asdict(v)) for k, v in obj.items())
    import copy
    return copy.deepcopy(obj)
