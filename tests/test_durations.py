"""Go durations parse and print as Go's time package does; the cold-start requirement is one function.

The parse cases are Go's own ``parseDurationTests`` and ``parseDurationErrorTests``
(golang/go ``src/time/time_test.go``), in nanoseconds; the format cases are
``durationTests`` of the same file (``Duration.String``).
"""

from __future__ import annotations

import pytest

from gpufleet.kubetypes import durations
from gpufleet.kubetypes.durations import DurationError, Shortfall

S, MS, US, M, H = 10**9, 10**6, 10**3, 60 * 10**9, 3600 * 10**9


@pytest.mark.parametrize(
    "text, nanos",
    [
        ("0", 0),
        ("5s", 5 * S),
        ("30s", 30 * S),
        ("1478s", 1478 * S),
        ("-5s", -5 * S),
        ("+5s", 5 * S),
        ("-0", 0),
        ("+0", 0),
        ("5.0s", 5 * S),
        ("5.6s", 5 * S + 600 * MS),
        ("5.s", 5 * S),
        (".5s", 500 * MS),
        ("1.004s", S + 4 * MS),
        ("100.00100s", 100 * S + MS),
        ("10ns", 10),
        ("11us", 11 * US),
        ("12µs", 12 * US),
        ("12μs", 12 * US),
        ("13ms", 13 * MS),
        ("14s", 14 * S),
        ("15m", 15 * M),
        ("16h", 16 * H),
        ("3h30m", 3 * H + 30 * M),
        ("10.5s4m", 4 * M + 10 * S + 500 * MS),
        ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
        ("1h2m3s4ms5us6ns", H + 2 * M + 3 * S + 4 * MS + 5 * US + 6),
        ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
        ("52763797000ns", 52763797000),
        ("9223372036854775807ns", 2**63 - 1),
        ("-9223372036854775808ns", -(2**63)),
        ("2562047h", 2562047 * H),
    ],
)
def test_go_durations_parse_like_time_ParseDuration(text, nanos):
    assert durations.parse_nanoseconds(text) == nanos


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3",
        "-",
        "s",
        ".",
        "-.",
        ".s",
        "+.s",
        "1d",
        "\x85\x85",
        "\xffff",
        "hello \xffff world",
        "9223372036854775810ns",
        "9223372036854775808ns",
        "-9223372036854775809ns",
        "3000000h",
        " 10m",
        "10m ",
    ],
)
def test_what_time_ParseDuration_refuses_is_a_duration_error(text):
    with pytest.raises(DurationError):
        durations.parse_nanoseconds(text)


@pytest.mark.parametrize("value", [600, None, ["10m"]])
def test_a_non_string_is_not_a_go_duration(value):
    assert durations.seconds_or_none(value) is None


@pytest.mark.parametrize(
    "nanos, text",
    [
        (0, "0s"),
        (1, "1ns"),
        (1100, "1.1µs"),
        (2200 * US, "2.2ms"),
        (3300 * MS, "3.3s"),
        (4 * M + 5 * S, "4m5s"),
        (4 * M + 5001 * MS, "4m5.001s"),
        (5 * H + 6 * M + 7001 * MS, "5h6m7.001s"),
        (8 * M + 1, "8m0.000000001s"),
        (-(2**63) + 1, "-2562047h47m16.854775807s"),
        (600 * S, "10m0s"),
        (H, "1h0m0s"),
    ],
)
def test_durations_print_like_Duration_String(nanos, text):
    assert durations.format_nanoseconds(nanos) == text


@pytest.mark.parametrize("seconds, text", [(600, "10m0s"), (5400, "1h30m0s"), (45, "45s"), (0, "0s"), (0.3, "300ms")])
def test_seconds_print_as_go_durations(seconds, text):
    assert durations.format_seconds(seconds) == text


@pytest.mark.parametrize("text", ["10m0s", "1h30m0s", "45s", "300ms", "1h2m3.5s"])
def test_formatting_what_was_parsed_gives_the_canonical_text_back(text):
    assert durations.format_seconds(durations.parse_seconds(text)) == text


@pytest.mark.parametrize(
    "timeout, expected",
    [
        (960, []),
        (700, [Shortfall(960, (2, "slow"))]),
        (420, [Shortfall(600), Shortfall(480, (1, "a100")), Shortfall(960, (2, "slow"))]),
        (900, [Shortfall(960, (2, "slow"))]),
    ],
)
def test_a_timeout_falls_short_of_the_floor_and_of_each_larger_pool_budget(timeout, expected):
    budgets = [(0, "h100", None), (1, "a100", 480), (2, "slow", 960)]
    assert durations.timeout_shortfalls(timeout, 600, budgets) == expected
