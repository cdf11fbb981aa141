"""YAML in and out, for every layer.

``load_documents`` reads multi-document YAML and remembers the line each document
starts on (the linter reports ``file:line``); ``dump`` writes deterministic YAML
(sorted keys off, block style, no aliases) for renderers and golden files. Uses the
libyaml C loader when it is available, within the limits of :mod:`gpufleet.yamlin.yamllimits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import yaml

from gpufleet.yamlin import yamllimits

_Loader = yamllimits.Loader  # libyaml's safe loader with bounded numbers
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _NoAliasDumper(_Dumper):  # type: ignore[misc, valid-type]  # the dumper base is chosen at import time (the C dumper when libyaml is there)
    def ignore_aliases(self, data: Any) -> bool:
        return True


@dataclass(frozen=True)
class Document:
    """One YAML document: its parsed value and the 1-based line it starts on."""

    value: Any
    line: int


def load(text: str) -> Any:
    """One document within :mod:`gpufleet.yamlin.yamllimits` (raises ``yaml.YAMLError``)."""
    return yamllimits.load(text)


def load_documents(text: str) -> Iterator[Document]:
    """Yield each document of a multi-document stream with its start line.

    Raises ``yaml.YAMLError`` (with ``problem_mark``) on malformed input or input over
    the limits of :mod:`gpufleet.yamlin.yamllimits`.
    """
    proven = yamllimits.check_text(text)
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            value = loader.construct_document(node)
            if not proven:
                yamllimits.check_value(value)
            yield Document(value, node.start_mark.line + 1)
    finally:
        loader.dispose()


def dump(value: Any) -> str:
    return yaml.dump(
        value, Dumper=_NoAliasDumper, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True
    )


def dump_all(values: list[Any]) -> str:
    return yaml.dump_all(
        values, Dumper=_NoAliasDumper, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True
    )
