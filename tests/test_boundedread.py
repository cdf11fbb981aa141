"""A capped input file is read once, at most its cap, and refused past it with the cap in readable units."""

from __future__ import annotations

import pytest

from gpufleet.util.boundedread import TooLarge, read_bounded, read_bounded_text, size_text


@pytest.mark.parametrize(
    "size, text",
    [
        (100, "100 bytes"),
        (2**10, "1 KiB"),
        (512 * 2**10, "512 KiB"),
        (3 * 2**19, "1.5 MiB"),
        (64 * 2**20, "64 MiB"),
        (1024 * 2**20, "1 GiB"),
    ],
)
def test_a_cap_is_said_in_the_largest_unit_it_fills(size, text):
    assert size_text(size) == text


def test_a_file_within_its_cap_is_read_whole(tmp_path):
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, 100, "trace") == b"x" * 100


def test_a_file_past_its_cap_names_itself_the_cap_and_what_it_is(tmp_path):
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 101)
    with pytest.raises(TooLarge, match=r"f.json: larger than 100 bytes, the most a trace may be$"):
        read_bounded(path, 100, "trace")


def test_text_that_is_not_utf8_names_the_byte_and_the_fix(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"ab\xff")
    with pytest.raises(
        ValueError, match=r"f.jsonl: not UTF-8 \(invalid start byte at byte 2\) \(fix: give a UTF-8 file\)"
    ):
        read_bounded_text(path, 100, "trace")
