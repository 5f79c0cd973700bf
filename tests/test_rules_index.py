"""docs/rules-index.md (issue 13): written from the code and the tests by
scripts/rules_index.py, it must be current, list code and tests for every rule the
referee models, and know every rule the code or the README cites."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _index() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rules_index", ROOT / "scripts" /
                                                  "rules_index.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rules_index"] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_index_is_current() -> None:
    index = _index()
    committed = (ROOT / "docs" / "rules-index.md").read_text()
    assert committed == index.render(index.scan()), (
        "docs/rules-index.md is stale: run .venv/bin/python scripts/rules_index.py")


def test_every_modelled_rule_has_code_and_tests() -> None:
    index = _index()
    where = index.scan()
    for rule in index.CATALOGUE:
        if rule.modelled:
            assert where.code.get(rule.id), f"no code cites {rule.id}"
            assert where.tests.get(rule.id), f"no test cites {rule.id}"


def test_every_rule_cited_in_code_is_in_the_catalogue_with_a_test() -> None:
    index = _index()
    where = index.scan()
    for rule in where.code:
        assert rule in index.BY_ID, f"the code cites {rule}, which no rules text has"
        assert where.tests.get(rule), f"the code cites {rule} but no test does"


def test_every_rule_the_readme_claims_is_indexed_with_code_and_tests() -> None:
    """The README and its summary of the game (docs/rules.md) name only rules that are
    refereed, each with its code and tests."""
    index = _index()
    where = index.scan()
    claimed = index.citations((ROOT / "README.md").read_text()
                              + (ROOT / "docs" / "rules.md").read_text())
    assert claimed, "the README names the rules it referees"
    for rule in claimed:
        assert rule in index.BY_ID and where.code.get(rule) and where.tests.get(rule), rule


def test_citations_read_lists_and_names() -> None:
    """OCS lists go on without the prefix; 11.18.1 is not 11.18.10; seed 002's parts by
    name; a short-form method is not a long-form number."""
    index = _index()
    assert index.citations("OCS 5.5a, 5.6a and 5.7e") == {"OCS 5.5a", "OCS 5.6a", "OCS 5.7e"}
    assert index.citations("(11.18.10)") == {"11.18.10"}
    assert index.citations("11.18.1;") == {"11.18.1"}
    assert index.citations("seed 002 Turn End") == {"seed 002 Turn End"}
    assert index.citations("an expended supply unit (11.18 short form)") == {
        "11.18 short form"}
    assert index.citations("docs/api.md and 5.10") == set()
