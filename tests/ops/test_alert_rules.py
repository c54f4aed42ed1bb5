"""The alert rules file: valid for Prometheus (promtool), each alert proven by a rule unit
test, and every metric it names is one Tramita exports."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import yaml

from services.workflow import metrics

RULES = Path(__file__).parents[2] / "ops" / "prometheus" / "alerts.yml"
RULE_TESTS = RULES.with_name("alerts_test.yml")
REQUIRED = {"TramitaInstancesStuck", "TramitaStepFailureRateHigh", "TramitaDeadLettersPiling"}
GAUGES = {
    "workflow_stuck_instances",
    "workflow_queue_depth",
    "workflow_outbox_lag_seconds",
    "workflow_outbox_unsent",
    "workflow_dead_letters",
    "workflow_metrics_db_up",
}


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("promtool")
    assert tool, "promtool missing: install Debian's `prometheus` package (see docs/deployment.md)"
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)


def rules() -> list[dict[str, object]]:
    document = yaml.safe_load(RULES.read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def exported_names() -> set[str]:
    names = set(GAUGES)
    for collector in metrics.PrometheusTelemetry().collectors():
        for family in collector.collect():
            suffixes = ("_total",) if family.type == "counter" else ("_bucket", "_sum", "_count")
            names |= {family.name + suffix for suffix in suffixes}
    return names


def test_promtool_accepts_the_rules_file() -> None:
    done = promtool("check", "rules", str(RULES))
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_alert_fires_on_its_threshold_in_promtool_unit_tests() -> None:
    done = promtool("test", "rules", str(RULE_TESTS))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_three_required_alerts_have_severity_summary_and_a_for_clause() -> None:
    found = {str(r["alert"]): r for r in rules() if "alert" in r}
    assert set(found) >= REQUIRED
    for rule in found.values():
        assert isinstance(rule["labels"], dict) and rule["labels"]["severity"] in {
            "warning",
            "critical",
        }
        assert isinstance(rule["annotations"], dict) and rule["annotations"]["summary"]
        assert re.fullmatch(r"\d+[smh]", str(rule["for"]))


def test_every_metric_the_rules_name_is_exported() -> None:
    named = {
        name
        for rule in rules()
        for name in re.findall(r"\b(workflow_[a-z_]+)\b", str(rule["expr"]))
    }
    named -= {"workflow_type"}  # a label, not a metric
    assert {"workflow_dead_letters", "workflow_step_runs_total"} <= named <= exported_names()
