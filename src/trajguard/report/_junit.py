"""A comparison as JUnit XML: one test case per scenario, for CI systems that read JUnit."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from trajguard._text import printable
from trajguard.comparison import Verdict
from trajguard.report._explanation import explanation_lines, headline_shift, what_broke
from trajguard.report._scenario import measured
from trajguard.results import ReportDocument

__all__ = ["junit_xml"]


def junit_xml(document: ReportDocument) -> str:
    """One ``testcase`` per scenario: regressed → failure; everything else passes, with the
    verdict and per-metric details in ``system-out``. The test suite is named after the
    candidate's suite."""
    comparison = document.comparison
    suite = document.candidate.suite or "suite"
    failures = sum(s.verdict is Verdict.REGRESSED for s in comparison.scenarios)
    root = ET.Element(
        "testsuite",
        name=f"trajguard.{suite}",
        tests=str(len(comparison.scenarios)),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    for scenario in comparison.scenarios:
        case = ET.SubElement(
            root, "testcase", classname=f"trajguard.{suite}", name=scenario.scenario
        )
        explanation = document.scenarios[scenario.scenario].explanation
        details = "\n".join(
            [
                *(
                    f"{m.metric}: {m.verdict.value} (p={m.p_value:.4g}, adjusted "
                    f"{m.p_adjusted:.4g})"
                    for m in scenario.metrics
                    if measured(m)
                ),
                *explanation_lines(explanation),
            ]
        )
        if scenario.verdict is Verdict.REGRESSED:
            failing = [m.metric for m in scenario.metrics if m.verdict is Verdict.REGRESSED]
            broke = what_broke(explanation)
            cause = f"; {printable(headline_shift(broke))}" if broke is not None else ""
            failure = ET.SubElement(
                case,
                "failure",
                message=f"regressed: {', '.join(failing)}{cause}",
                type="regression",
            )
            failure.text = details
        out = ET.SubElement(case, "system-out")
        out.text = f"verdict: {scenario.verdict.value}\n{scenario.mde_note}\n{details}"
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
