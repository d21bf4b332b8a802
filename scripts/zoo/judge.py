"""The zoo's expected answers and how a report is judged against them (Python 3 stdlib only).

Each case ``cases/NAME.py`` has ``cases/NAME.expected.json`` beside it::

    {"description": "what is planted",
     "cpu":  {...answer...} or {"skip": "why the case has no CPU meaning"},
     "cuda": {...answer...} or {"skip": "..."}}

An answer holds any of these keys; each one present must match the report:

- ``path``: ``hotspot.path`` equals it;
- ``phase``: ``hotspot.phase`` equals it, or is one of a list;
- ``op``: ``hotspot.op`` equals it, or is one of a list (an op family);
- ``rule`` (an id, or null for none required), with ``recipe`` and ``finding_path``: some finding
  has that rule id, and that recipe (its own or one of its ``also_recipes``) and that path where
  they are given;
- ``clean: true``: no finding has severity ``high`` (and the hot spot is not checked), except
  those of ``host_rules``: rules about the machine rather than the model (fresh-memory-pages: the
  host's malloc), which may rightly be high on a clean model.

``known_miss: "why"`` marks an answer advisor is known to get wrong today: the case still runs, but
is listed apart and not counted in K/N. ``note`` is free text for people.

A case with a fixed variant (``build(size, fixed=True)``: the planted cost removed) says what the
variant changes in a top-level ``"fixed": "..."``; scripts/zoo/diff_pairs.py diffs the two.
"""

import json
import os

DEVICES = ("cpu", "cuda")
ANSWER_KEYS = {"path", "phase", "op", "rule", "recipe", "finding_path", "clean", "host_rules",
               "known_miss", "note"}


class CaseError(ValueError):
    """An expected file is malformed."""


def _check_answer(name, device, answer):
    if not isinstance(answer, dict):
        raise CaseError(f"{name}.expected.json: {device}: expected an object")
    if "skip" in answer:
        if set(answer) != {"skip"} or not isinstance(answer["skip"], str):
            raise CaseError(f"{name}.expected.json: {device}: \"skip\" takes a reason and stands "
                            f"alone")
        return
    unknown = sorted(set(answer) - ANSWER_KEYS)
    if unknown:
        raise CaseError(f"{name}.expected.json: {device}: unknown key(s) {unknown}")
    if not answer.get("clean") and not ({"path", "rule"} & set(answer)):
        raise CaseError(f"{name}.expected.json: {device}: an answer needs \"path\", \"rule\" or "
                        f"\"clean\"")
    if "host_rules" in answer and not (answer.get("clean") and isinstance(answer["host_rules"], list)
                                       and all(isinstance(r, str) for r in answer["host_rules"])):
        raise CaseError(f"{name}.expected.json: {device}: \"host_rules\" is a list of rule ids of "
                        f"a clean answer")
    if ("recipe" in answer or "finding_path" in answer) and not answer.get("rule"):
        raise CaseError(f"{name}.expected.json: {device}: \"recipe\"/\"finding_path\" need a "
                        f"\"rule\"")


def load_cases(cases_dir):
    """Returns {name: expected} for every ``*.expected.json`` in ``cases_dir``, sorted by name."""
    cases = {}
    for entry in sorted(os.listdir(cases_dir)):
        if not entry.endswith(".expected.json"):
            continue
        name = entry[:-len(".expected.json")]
        with open(os.path.join(cases_dir, entry), encoding="utf-8") as f:
            expected = json.load(f)
        for device in DEVICES:
            if device not in expected:
                raise CaseError(f"{entry}: missing \"{device}\"")
            _check_answer(name, device, expected[device])
        if not isinstance(expected.get("fixed", ""), str):
            raise CaseError(f"{entry}: \"fixed\" says what the fixed variant changes, as text")
        if not os.path.exists(os.path.join(cases_dir, name + ".py")):
            raise CaseError(f"{entry}: no exporter {name}.py beside it")
        cases[name] = expected
    return cases


def _one_of(value, wanted):
    return value in wanted if isinstance(wanted, list) else value == wanted


def _alternatives(wanted):
    return "|".join(wanted) if isinstance(wanted, list) else wanted


def describe_answer(answer):
    """A short text of what an answer asks for, e.g. ``blocks.3/backward/GatherBackward0 +rule``."""
    if answer.get("clean"):
        return "no high finding"
    parts = []
    if "path" in answer:
        parts.append("/".join(_alternatives(answer[k]) for k in ("path", "phase", "op")
                              if k in answer))
    if answer.get("rule"):
        rule = answer["rule"]
        if answer.get("recipe"):
            rule += f"({answer['recipe']})"
        if "finding_path" in answer:
            rule += f"@{answer['finding_path']}"
        parts.append("+" + rule)
    return " ".join(parts)


def describe_report(report):
    """A short text of what a report found: the hot spot, then the findings' rules."""
    hotspot = report.get("hotspot")
    found = (f"{hotspot['path']}/{hotspot['phase']}/{hotspot['op']}" if hotspot
             else "no hot spot")
    rules = [f"{f['rule']}[{f['severity'][0]}]" for f in report.get("findings", [])]
    return found + (" +" + ",".join(rules) if rules else "")


def judge(answer, report):
    """Returns (right, why): whether ``report`` (a parsed report.json) gives ``answer``; ``why``
    names the first mismatch ("" when right)."""
    findings = report.get("findings", [])
    if answer.get("clean"):
        allowed = set(answer.get("host_rules", []))
        high = [f["rule"] for f in findings if f["severity"] == "high" and f["rule"] not in allowed]
        return (not high, f"high findings: {', '.join(high)}" if high else "")
    hotspot = report.get("hotspot")
    for key in ("path", "phase", "op"):
        if key not in answer:
            continue
        if hotspot is None:
            return False, "no hot spot"
        if not _one_of(hotspot[key], answer[key]):
            return False, f"{key} {hotspot[key]!r}, expected {_alternatives(answer[key])!r}"
    rule = answer.get("rule")
    if rule:
        matches = [f for f in findings if f["rule"] == rule]
        if not matches:
            return False, f"no {rule} finding"
        if "recipe" in answer:
            # A finding merged from several of one rule and module keeps each recipe
            # (fp32-matmul's bf16-autocast, then tf32-matmul in also_recipes).
            matches = [f for f in matches
                       if answer["recipe"] in [f["recipe"]] + f.get("also_recipes", [])]
            if not matches:
                return False, f"{rule} without recipe {answer['recipe']!r}"
        if "finding_path" in answer and not any(f["path"] == answer["finding_path"]
                                                for f in matches):
            paths = sorted({f["path"] for f in matches})
            return False, f"{rule} at {paths}, expected {answer['finding_path']!r}"
    return True, ""
