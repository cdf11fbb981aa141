"""``--help`` in the README's words: ``MODEL``, ``MANIFESTS...``, ``--out DIR``, never a Python type.

Called by :mod:`gpufleet.cli.commands`, whose typer app is built with :class:`ReadmeGroup`.
typer 0.29 labels every parameter with its Python annotation (``<bool>`` for a flag and
``--help``, ``<list[str]>``, ``<path>``) and writes a required argument as ``{paths}...``
in the usage line. The group gives each parameter of every command under it (also
commands added later, and the sandbox's sub-commands) the README's word instead:

- an argument: its ``metavar`` (``MODEL``, ``MANIFESTS...``), else its name in capitals
  with ``...`` when it takes several; ``[MODEL]`` in the usage line when optional;
- an option: its ``metavar`` (``DIR``, ``FILE``, ``REF``), else its choices (``text|json``),
  else its name in capitals; a flag (and ``--help``) shows no type at all.

Each parameter object is given the subclass below (:func:`readme`); their behaviour
(parsing, errors) is typer's, only the labels differ.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


def _word(param: Any) -> str:
    name = param.metavar or (param.name or "value").upper()
    return name if param.nargs == 1 or name.endswith("...") else f"{name}..."


class ReadmeArgument(TyperArgument):
    """An argument labelled by its README word alone (the name column says it; no type column)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def display_type(self, ctx: Any) -> str:
        return ""

    def _usage_display_name(self) -> str:
        return _word(self) if self.required else f"[{_word(self)}]"


class ReadmeOption(TyperOption):
    """An option labelled by its metavar, its choices or its name; a flag by nothing."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None if self.is_flag else self.display_type(ctx)

    def display_type(self, ctx: Any) -> str:
        if self.is_flag:
            return ""
        if self.metavar:
            return self.metavar
        choices = getattr(self.type_descriptor, "choices", None) if self.type_descriptor.is_choice else None
        word = "|".join(str(getattr(c, "value", c)) for c in choices) if choices else (self.name or "value").upper()
        return word if self.nargs == 1 else f"{word}..."


def readme(param: Any) -> Any:
    """``param`` labelled in the README's words (its class swapped for the subclass above); other parameters as they are."""
    if type(param) is TyperArgument:
        param.__class__ = ReadmeArgument
        param.metavar = _word(param)
    elif type(param) is TyperOption:
        param.__class__ = ReadmeOption
    return param


class ReadmeCommand(TyperCommand):
    """A command whose parameters (and ``--help``) are labelled by :func:`readme`."""

    def get_params(self, ctx: Any) -> list:
        return [readme(p) for p in super().get_params(ctx)]


class ReadmeGroup(TyperGroup):
    """The app's group: itself, every command and sub-group under it labelled by :func:`readme`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _adopt(self)

    def get_params(self, ctx: Any) -> list:
        return [readme(p) for p in super().get_params(ctx)]


def _adopt(group: TyperGroup) -> None:
    for command in group.commands.values():
        if type(command) is TyperCommand:
            command.__class__ = ReadmeCommand
        elif type(command) is TyperGroup:
            command.__class__ = ReadmeGroup
            _adopt(command)
