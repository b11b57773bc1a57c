"""cc/af-mix as it was before issue 26's fix, for the artefacts made with it.

Until the fix the scenario's conditioner had no `from` (one table: `at = "edge"`, `match =
{ protocol = "tcp" }`, `per_flow = true`), so each sender's token bucket also metered its
receiver's ACKs as they came back through the edge. The built-in scenario now meters each
sender's input line only (RFC 2475 §2.1.2; docs/cc-af.md, "Before the fix"). The scripts whose
committed artefacts (cc-af-live.json, cc-linux-options.json's AF rows, rack-sim.json's AF rows,
bbr-state-*-af.json, af-mix-recovery-*.json) were made with the old conditioner rebuild it
with `ack_metered`, so that those artefacts stay reproducible and comparable with the live
runs made then.
"""

from __future__ import annotations

import re

#: the conditioner table of cc/af-mix before the fix, exactly as it was committed.
ACK_METERED = '''[[conditioner]]
name = "tb"
at = "edge"
match = { protocol = "tcp" }
per_flow = true               # one token bucket per sender, each with the contract
meter = { kind = "token_bucket", rate = "$contract", depth = "$depth", token_size = "1500B" }
green = "AF11"
yellow = "AF12"
'''

#: a [[conditioner]] table: its header and every following line up to the next table header.
_TABLE = re.compile(r"^\[\[conditioner\]\]\n(?:(?!\[).*\n)*", re.M)


def ack_metered(text: str) -> str:
    """cc/af-mix's text with its three data-only conditioners replaced by the old one."""
    tables = list(_TABLE.finditer(text))
    assert len(tables) == 3 and all('from = "' in m.group(0) for m in tables), \
        "cc/af-mix: three conditioners with `from` expected"
    start, end = tables[0].start(), tables[-1].end()
    return text[:start] + ACK_METERED + "\n" + text[end:]
