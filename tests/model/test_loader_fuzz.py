"""Fuzzing the model loader (issue 11): mutated models end in a Fleet or a ModelError, never anything else.

Bounded: 1,500 mutations of the dev stack's model (plus hypothesis' shrinking), each read
through ``load_model`` from a file. A mutation replaces one scalar with a hostile value
(huge or non-finite numbers, deep nesting, aliases, odd strings), duplicates or deletes
lines, or splices raw bytes. Crashes, hangs (the per-example deadline) and issues saying
"could not check this model" (the loader's last-resort catch) all fail the test.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.model.loader import load_model
from gpufleet.yamlin.errors import ModelError

REPO = Path(__file__).resolve().parents[2]
LINES = (REPO / "stacks" / "dev.fleet.yaml").read_text().splitlines(keepends=True)
SCALAR = re.compile(r"(:\s+|\[|,\s*|-\s+)([^\s\[\]{},:#][^\[\]{},#\n]*?)(?=\s*(?:[,\]}]|$|#))")

HOSTILE = st.one_of(
    st.sampled_from(
        [
            ".inf",
            "-.inf",
            ".nan",
            "1.0e+400",
            "1e9999999",
            "\"1e9999999\"",
            "-4",
            "0",
            "9" * 5000,
            "1e-999999",
            "8Ei",
            "16Ei",
            "-1e40",
            "\"\"",
            "null",
            "~",
            "[]",
            "{}",
            "yes",
            "0x7f",
            "1_000",
            "\"1e99999999999999999999\"",
            "*undefined",
            "&a 1",
            "!!binary AAAA",
            "1:30:00",
            "[" * 300 + "]" * 300,
            "- - - - x",
            "\"\\u0000\"",
            "'\u202e'",
        ]
    ),
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(lambda f: repr(f).replace("inf", ".inf").replace("nan", ".nan")),
    st.text(alphabet="0123456789.eE+-KMGTPimnu", min_size=1, max_size=30),
)


@st.composite
def mutated(draw) -> bytes:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "value", "value", "dup", "drop", "bytes"]))
        if action == "value":
            matches = list(SCALAR.finditer(lines[i]))
            if matches:
                m = draw(st.sampled_from(matches))
                lines[i] = lines[i][: m.start(2)] + draw(HOSTILE) + lines[i][m.end(2) :]
        elif action == "dup":
            lines.insert(i, lines[i])
        elif action == "drop":
            del lines[i]
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))] + draw(st.binary(max_size=8)).decode("latin-1")
    text = "".join(lines)
    return text.encode("utf-8") if draw(st.booleans()) or text.isascii() else text.encode("latin-1", "replace")


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "fleet.yaml"


@settings(max_examples=1500, deadline=timedelta(seconds=3), suppress_health_check=[HealthCheck.too_slow], database=None)
@given(data=mutated())
def test_a_mutated_model_is_a_fleet_or_a_model_error_never_a_traceback(fuzz_file, data):
    file = fuzz_file  # one file, rewritten per example: a numbered folder per example (mktemp) cost 8.6 s for 1,500
    file.write_bytes(data)
    try:
        load_model(file)
    except ModelError as exc:
        assert exc.issues and all((i.path or i.at) and i.message for i in exc.issues)  # a field, or file:line:col
        assert not any("could not check this model" in i.message for i in exc.issues), exc.lines()
