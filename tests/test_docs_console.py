"""Every command README.md and docs/*.md show with their output prints that output today (issue 37).

The convention (README, "The command line"):

- a fenced block whose info string is ``console`` holds ``$ COMMAND`` lines, each followed by
  what it prints (standard output and standard error, as a terminal shows them);
- ``# exit N`` at the end of a command line is its exit code (0 when absent);
- in the shown output, a line that is ``…`` alone stands for any number of lines, and ``…``
  inside a line for any text, so a doc may show an excerpt;
- a ```` ```yaml file=NAME ```` block is written to ``NAME`` for the console blocks after it
  in the same document (the job a doc lints, say);
- ```` ```console no-run ```` is shown but not run: it needs a sandbox or a cluster. Each such
  block is listed in :data:`NOT_RUN` with why; a block marked so but not listed, or listed
  but no longer in the docs, fails.

Each document's commands run in order in one scratch folder holding links to the
repository's ``stacks/``, ``docs/`` and ``examples/``, with ``gpufleet`` on ``PATH`` (this
interpreter's), no ``COLUMNS`` and ``NO_COLOR=1``; the scratch folder's and the repository's
paths are printed as relative ones. A ``$ gpufleet`` line outside a console block fails too:
shown output is never left unchecked.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINKED = ("stacks", "docs", "examples")
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")

# (document, the block's first command): why it is not run here
NOT_RUN = {
    (
        "docs/sandbox.md",
        "gpufleet try stacks/dev.fleet.yaml launcher-min2.yaml --no-controller --keep --dir /tmp/trytest/sb-dev",
    ): "needs the sandbox's engines (gpufleet try); recorded from a real run, see the text around it",
    (
        "docs/sandbox.md",
        "gpufleet try stacks/dev.fleet.yaml launcher-min2.yaml --dir /tmp/trytest/sb-devc",
    ): "needs the sandbox's engines and the admission controller (gpufleet try)",
    (
        "docs/whatif.md",
        "gpufleet whatif stacks/dev.fleet.yaml examples/whatif/dev-no-borrowing.fleet.yaml --trace "
        "examples/whatif/borrow.jsonl --horizon 15m --plot docs/img/whatif-borrowing.png",
    ): "replays on two sandboxes (the engines); recorded from the real run the text describes, rows cut",
    (
        "docs/whatif.md",
        "gpufleet whatif stacks/dev.fleet.yaml examples/whatif/dev-patient.fleet.yaml --trace "
        "examples/whatif/storm.jsonl --horizon 1h --plot docs/img/whatif-storm.png",
    ): "replays on two sandboxes (the engines); recorded from the real run the text describes, rows cut",
}


@dataclass
class Step:
    command: str
    code: int
    shown: list[str] = field(default_factory=list)


@dataclass
class Block:
    doc: str
    line: int
    steps: list[Step]
    run: bool = True
    files: dict[str, str] = field(default_factory=dict)  # written before this block runs

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(path: Path) -> list[Block]:
    text, doc = path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))
    found, files = [], {}
    for match in FENCE.finditer(text):
        info, body = match.group(1).split(), match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        if info[:1] == ["yaml"] and any(w.startswith("file=") for w in info):
            files[next(w for w in info if w.startswith("file="))[5:]] = body
        elif info[:1] == ["console"]:
            found.append(Block(doc, line, steps(body), run="no-run" not in info, files=dict(files)))
    return found


def steps(body: str) -> list[Step]:
    out: list[Step] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            exit_code = EXIT.search(line)
            command = EXIT.sub("", line[2:]) if exit_code else line[2:]
            out.append(Step(command.strip(), int(exit_code.group(1)) if exit_code else 0))
        elif out:
            out[-1].shown.append(line)
    return out


ALL = [b for path in DOCS for b in blocks(path)]


def test_every_shown_gpufleet_command_is_in_a_console_block():
    stray = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1).split()[:1] != ["console"] and re.search(r"^\$ gpufleet", match.group(2), re.MULTILINE):
                stray.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}")
    assert not stray, f"shown output outside a ```console block (run by nothing): {stray}"


def test_the_blocks_not_run_are_the_ones_listed_with_a_reason():
    assert {(b.doc, b.steps[0].command) for b in ALL if not b.run} == set(NOT_RUN)
    assert [b for b in ALL if b.run], "the docs show no command with its output"


@pytest.fixture(scope="module")
def gpufleet_bin(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bin")
    script = folder / "gpufleet"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gpufleet "$@"\n')
    script.chmod(0o755)
    return folder


def normalised(text: str, *folders: Path) -> list[str]:
    for folder in folders:
        text = text.replace(f"{folder}/", "").replace(str(folder), ".")
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def pattern(shown: list[str]) -> re.Pattern[str]:
    parts = [
        "(?:.*\n)*?" if line.strip() == "…" else ".*?".join(map(re.escape, line.rstrip().split("…"))) + "\n"
        for line in shown
    ]
    return re.compile("".join(parts))


def matches(shown: list[str], actual: list[str]) -> bool:
    while shown and not shown[-1].strip():
        shown = shown[:-1]
    return bool(pattern(shown).fullmatch("".join(line + "\n" for line in actual)))


@pytest.mark.parametrize("block", [b for b in ALL if b.run], ids=lambda b: b.id)
def test_a_console_block_prints_what_it_shows(block, tmp_path, gpufleet_bin):
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    for name, text in block.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "GPUFLEET_STACK", "FORCE_COLOR")}
    env.update(PATH=f"{gpufleet_bin}{os.pathsep}{env.get('PATH', '')}", NO_COLOR="1", TERM="dumb", PYTHONUNBUFFERED="1")
    for step in block.steps:
        done = subprocess.run(
            ["bash", "-c", step.command],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
            check=False,
        )
        actual = normalised(done.stdout, tmp_path, ROOT)
        diff = "\n".join(difflib.unified_diff(step.shown, actual, "shown", "printed", lineterm=""))
        assert matches(step.shown, actual), f"{block.id}: $ {step.command}\n{diff}"
        assert done.returncode == step.code, (
            f"{block.id}: $ {step.command} exited {done.returncode}, the doc says {step.code}"
        )


@pytest.mark.parametrize(
    "shown, printed, same",
    [
        (["a", "…", "d"], ["a", "b", "c", "d"], True),
        (["a", "…", "d"], ["a", "d"], True),
        (["wrote … files"], ["wrote 35 files"], True),
        (["a", "b"], ["a", "c"], False),
        (["a"], ["a", "b"], False),
    ],
    ids=["… stands for lines", "… for no line", "… inside a line", "a changed line", "an extra line"],
)
def test_the_ellipsis_stands_for_any_lines_or_text_and_nothing_else_is_loose(shown, printed, same):
    assert matches(shown, printed) is same
