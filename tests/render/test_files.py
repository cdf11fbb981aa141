"""gpufleet.render.files: the file text of a manifest is what PyYAML itself would write (the folder: tests/stack/test_folder.py)."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.render import files


class _StockDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """The file dumper as PyYAML's own representer and resolver would run it."""

    def ignore_aliases(self, data):
        return True


_StockDumper.add_representer(
    str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None)
)


@pytest.mark.parametrize(
    "value",
    [
        {"a": "yes", "b": "1.0", "c": "null", "d": "", "e": "~", "f": "0755", "g": "2024-01-01", "h": ":", "i": "- x"},
        {"multi": "line one\nline two\n", "trailing": "x\n\n", "indented": "  lead\nx", "unicode": "é 中 \u2028"},
        {"ints": [0, -1, 2**70], "bools": [True, False], "none": None, "floats": [1.5, float("inf"), -0.0, 1e20]},
        {"empty": {}, "list": [], "nested": [{"a": [{"b": {}}]}, [[1], []]], "long": "w " * 100},
        {"k" * 130: "v", "shared": ["same"] * 3, 7: "int key", "tuple": ("t", 1)},
    ],
)
def test_the_file_dumper_writes_what_pyyamls_representer_writes(value):
    options = {"sort_keys": False, "default_flow_style": False, "width": 120, "allow_unicode": True}
    assert files.dump(value) == yaml.dump(value, Dumper=_StockDumper, **options)
