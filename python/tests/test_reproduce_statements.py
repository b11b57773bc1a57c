"""Every paper's statements (afsim/reproduce/PAPER/statements.toml), the same checks for each:
every quote verbatim in the paper's text (where the text is at hand), ids and quotes unique,
each restatement naming a claim, each claim with its test and nothing else with one, every
class used, and the claims the reproduction rests on present. Also the loader's refusals."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from afsim import reproduce
from afsim.reproduce.claims import ClaimResult, Kind, load_statements

REPO = Path(__file__).resolve().parents[2]


def _norm_plain(t: str) -> str:
    return re.sub(r"\s+", " ", t).strip()


def _norm_latex(t: str) -> str:
    """Giacomazzi's and gTFRC's text: LaTeX symbols as the quotes write them, markup dropped, a
    word hyphenated across lines joined."""
    t = t.replace("\\alpha", "α").replace("\\Delta", "Δ").replace("\\cdot", "·")
    t = re.sub(r"[$\\{}*]", "", t)
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"(\w)- (\w)", r"\1\2", t)
    return t.replace(" ,", ",").replace(" .", ".").strip()


def _norm_leung(t: str) -> str:
    """LaTeX subscripts and markup dropped; "mark-" at a page break keeps its hyphen."""
    t = t.replace("S₂-D₂", "S2-D2").replace("S_1-D_1", "S1-D1").replace("S₁", "S1")
    t = re.sub(r"[$\\{}*_]", "", t)
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"(\w)- (\w)", r"\1-\2", t)
    return t.replace(" ,", ",").replace(" .", ".").strip()


def _norm_gtfrc(t: str) -> str:
    t = t.replace("*", "")
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"(\w)- (\w)", r"\1\2", t)
    return t.strip()


@dataclass(frozen=True)
class Case:
    text: str
    norm: Callable[[str], str]
    #: the fewest claims: every checkable sentence, not an easy subset
    min_claims: int
    #: claims the reproduction's findings rest on
    must_claim: frozenset[str] = field(default_factory=frozenset)
    #: whether the published values' own quotes are in the text too
    value_quotes: bool = False


CASES = {
    "giacomazzi": Case("000_921cc508267adf9a.txt", _norm_latex, 40),
    "laatu": Case("002_66b0c5f65bc2ddc4.txt", _norm_plain, 25, frozenset({
        "s41-udp-through", "s41-no-bandwidth", "s42-falls-short", "s2-reliability", "s43-none",
        "s43-aggregate-up", "s43-unfair"})),
    "leung": Case("004_93dd72aab70ef36b.txt", _norm_leung, 25,
                  frozenset({"f5-tail-best", "f9-similar", "f10-none-order"}), value_quotes=True),
    "gtfrc": Case("003_bf67e64b7b5a632c.txt", _norm_gtfrc, 35),
}


def test_every_paper_has_a_case() -> None:
    assert set(CASES) == set(reproduce.PAPERS)


def _papers_dir(name: str) -> Path | None:
    for d in (os.environ.get("AFSIM_PAPERS"), REPO.parent / "shared" / "papers",
              REPO.parents[1] / "shared" / "papers"):
        if d and (Path(d) / name).is_file():
            return Path(d)
    return None


@pytest.mark.parametrize("paper", sorted(CASES))
def test_every_quote_is_verbatim_in_the_paper(paper: str) -> None:
    case = CASES[paper]
    papers = _papers_dir(case.text)
    if papers is None:
        pytest.skip("the paper's text is not here (set AFSIM_PAPERS)")
    text = case.norm((papers / case.text).read_text(encoding="utf-8"))
    mod = reproduce.paper_module(paper)
    for s in mod.STATEMENTS:
        for part in s.quote.split(" … "):  # an ellipsis marks text the page layout interrupts
            assert case.norm(part) in text, (s.id, part)
    if case.value_quotes:
        for v in json.loads(mod.DATA.read_text(encoding="utf-8"))["values"]:
            assert case.norm(v["quote"]) in text, v["quote"]


@pytest.mark.parametrize("paper", sorted(CASES))
def test_the_statements_are_unique_classified_and_restate_claims_that_exist(paper: str) -> None:
    case = CASES[paper]
    statements = reproduce.paper_module(paper).STATEMENTS
    ids = [s.id for s in statements]
    assert len(ids) == len(set(ids))
    quotes = [s.quote for s in statements]
    assert len(quotes) == len(set(quotes)), "no sentence listed twice"
    claims = {s.id for s in statements if s.kind is Kind.CLAIM}
    for s in statements:
        assert s.quote and s.where and s.test, s.id
        assert (s.evaluate is not None) == (s.kind is Kind.CLAIM), s.id
        if s.kind is Kind.RESTATEMENT:
            assert s.restates in claims, s.id
    kinds = {k: sum(1 for s in statements if s.kind is k) for k in Kind}
    assert kinds[Kind.CLAIM] >= case.min_claims, "every checkable sentence, not an easy subset"
    assert all(n > 0 for n in kinds.values())
    assert case.must_claim <= claims


@pytest.mark.parametrize("paper", sorted(CASES))
def test_the_statements_file_holds_exactly_the_claims_the_code_tests(paper: str) -> None:
    mod = reproduce.paper_module(paper)
    claims = {s.id for s in mod.STATEMENTS if s.kind is Kind.CLAIM}
    assert set(mod.EVALUATE) == claims


def _never(view: object) -> ClaimResult:
    return ClaimResult(None, {})


_ROW = 'id = "{id}"\nkind = "{kind}"\nwhere = "§1"\nquote = "q {id}"\ntest = "t"\n'


@pytest.mark.parametrize(("rows", "evaluate", "message"), [
    ([_ROW.format(id="a", kind="claim")], {}, "a claim without a test"),
    ([_ROW.format(id="a", kind="identity")], {"a": _never}, "tests of no claim: a"),
    ([_ROW.format(id="a", kind="claim"), _ROW.format(id="a", kind="claim")], {"a": _never},
     "duplicate id"),
    ([_ROW.format(id="a", kind="opinion")], {}, "kind 'opinion' is not one of"),
    ([_ROW.format(id="a", kind="identity") + 'page = "3"\n'], {}, "unknown field"),
    ([_ROW.format(id="a", kind="restatement")], {}, "names what it restates"),
])
def test_a_statements_file_that_does_not_match_its_tests_is_refused(
        tmp_path: Path, rows: list[str], evaluate: dict[str, Callable[..., ClaimResult]], message: str) -> None:
    path = tmp_path / "statements.toml"
    path.write_text("".join(f"[[statement]]\n{r}\n" for r in rows), encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        load_statements(path, evaluate)
