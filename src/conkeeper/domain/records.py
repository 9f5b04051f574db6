"""Small value types for the hook path, without the start-up cost of :mod:`dataclasses`.

Every hook is a fresh process with a budget of a few tens of milliseconds (spec §4), and
importing ``dataclasses`` (which imports ``inspect``) costs about 6 ms, plus about 0.35 ms for
each class it processes. The value types every hook touches (payload, context, settings,
project location, captured events, secret matches) are therefore plain classes: fields in
``__slots__``, an ordinary typed ``__init__``, and this base for the rest.

* :class:`Record` gives value equality, a readable ``repr`` and :meth:`Record.replace`.
* :class:`FrozenRecord` also refuses assignment after construction (``AttributeError``, like a
  frozen dataclass) and is hashable; its ``__init__`` sets fields through :meth:`_set`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    R = TypeVar("R", bound="Record")


class Record:
    """Base of a mutable value type whose fields are its ``__slots__`` (base classes' first)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            slots = klass.__dict__.get("__slots__", ())
            names.extend((slots,) if isinstance(slots, str) else slots)
        cls._fields = tuple(names)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The field names, in declaration order."""
        return cls._fields

    def as_tuple(self) -> tuple[Any, ...]:
        """The field values, in declaration order."""
        return tuple(getattr(self, name) for name in self._fields)

    def replace(self: R, **changes: Any) -> R:
        """A copy with some fields changed (like :func:`dataclasses.replace`)."""
        values = dict(zip(self._fields, self.as_tuple(), strict=True))
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {', '.join(sorted(unknown))}")
        values.update(changes)
        return type(self)(**values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record) or other.__class__ is not self.__class__:
            return NotImplemented
        return self.as_tuple() == other.as_tuple()

    # Defining __eq__ without __hash__ makes Python set __hash__ = None: a mutable record is not
    # hashable (like a dataclass); FrozenRecord defines __hash__ again.

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"


class FrozenRecord(Record):
    """Base of an immutable, hashable value type."""

    __slots__ = ()

    def _set(self, **values: Any) -> None:
        """Set fields from ``__init__`` (the only place a frozen record may be written)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __reduce__(self) -> tuple[Any, ...]:
        """Copying and pickling rebuild the record without going through ``__setattr__``."""
        return (_restore, (type(self), self.as_tuple()))


def _restore(cls: type[FrozenRecord], values: tuple[Any, ...]) -> FrozenRecord:
    record = cls.__new__(cls)
    for name, value in zip(cls._fields, values, strict=True):
        object.__setattr__(record, name, value)
    return record
