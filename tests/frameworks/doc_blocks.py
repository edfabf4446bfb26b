"""Running the framework examples of docs/integrations.md: each framework's blocks are fenced
as ```` ```python <tag> ```` (``adk``, ``agent-framework``, ``openai-agents``, ``pydantic-ai``,
``llamaindex``), so the dev venv's docs test (plain ``python`` blocks) leaves them to this one."""

from __future__ import annotations

import contextlib
import io
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
BLOCK = re.compile(r"```(python|text)( [a-z-]+)?\n(.*?)```", flags=re.S)


def run_blocks(tag: str, namespace: dict[str, Any], path: Path = DOC) -> int:
    """Run the ``python <tag>`` blocks of ``path`` in order in ``namespace``; a block
    followed by "prints" and a ``text`` block must print exactly that (2026-11-30 there
    stands for today, as in the dev venv's docs test). Returns how many
    blocks ran; an exception or a different output fails the caller's test."""
    source = path.read_text()
    blocks = list(BLOCK.finditer(source))
    ran = 0
    for i, block in enumerate(blocks):
        if block.group(1) != "python" or (block.group(2) or "").strip() != tag:
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.group(3), f"{path}[{tag} block {i}]", "exec"), namespace)
        ran += 1
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if following is not None and following.group(1) == "text" and \
                source[block.end():following.start()].strip() == "prints":
            expected = following.group(3).replace("2026-11-30", datetime.now(timezone.utc).strftime("%Y-%m-%d"))
            assert out.getvalue() == expected, f"{tag} block {i} printed:\n{out.getvalue()}"
    return ran
