"""`trajguard trend`, `compare --store` and `baseline promote --from-store` in-process: on a
store of simulated nights, and on the recorded real-model nights of the demo suite."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from trajguard_testkit.nights import night

from trajguard.nights import open_location, read_nights, record_night

REPO = Path(__file__).resolve().parents[2]
NIGHTS = REPO / "benchmarks" / "data" / "real-nights-2026-12-01"


def _store(path: Path, *, nights: int = 12, drop_at: int = 6) -> Path:
    for i in range(nights):
        multiply = 0.9 if i < drop_at else 0.2
        record_night(
            path,
            night(
                f"n{i:02d}",
                date=f"2026-11-{i + 1:02d}",
                rates={"capital": 0.5, "multiply": multiply},
                seed=i,
            ),
        )
    return path


def test_trend_names_the_first_night_of_a_drop(tmp_path: Path, cli) -> None:
    store = _store(tmp_path / "store")
    result = cli("trend", str(store), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "# Trend (12 nights of suite demo" in result.stdout
    assert (
        "### multiply (base): **pass rate dropped since 2026-11-07 (n06): 88% → 19% "
        "(alarm raised 2026-11-07" in result.stdout
    )
    assert "### capital (base): steady (no alarm)" in result.stdout
    assert "an unchanged suite raises a false alarm once per 365 nights" in result.stdout
    assert "| 2026-11-12 | n11 |" in result.stdout


def test_fail_on_change_exits_5_on_the_night_an_alarm_is_raised_and_only_then(
    tmp_path: Path, cli
) -> None:
    raised = _store(tmp_path / "raised", nights=7)  # multiply drops on n06, the newest night
    gated = cli("trend", str(raised), "--fail-on-change", cwd=tmp_path)
    assert gated.returncode == 5, gated.stderr
    assert "pass rate dropped since 2026-11-07 (n06)" in gated.stdout
    assert cli("trend", str(raised), cwd=tmp_path).returncode == 0  # no gate unless asked
    later = _store(tmp_path / "later")  # the same alarm, five nights before the newest
    again = cli("trend", str(later), "--fail-on-change", "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    (alarm,) = next(
        s for s in json.loads(again.stdout)["scenarios"] if s["scenario"] == "multiply"
    )["alarms"]
    assert alarm["raised_night_id"] == "n06"
    steady = _store(tmp_path / "steady", drop_at=99)
    assert cli("trend", str(steady), "--fail-on-change", cwd=tmp_path).returncode == 0
    missing = cli("trend", str(tmp_path / "nothing"), "--fail-on-change", cwd=tmp_path)
    assert missing.returncode == 2 and "holds no nights" in missing.stderr


def test_webhook_gets_the_newest_nights_alarms_as_json(tmp_path: Path, cli) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    received: list[tuple[str, str, bytes]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers["Content-Type"], body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Hook)
    server.timeout = 10
    thread = threading.Thread(target=server.handle_request, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/hooks/secret-token"
    try:
        raised = _store(tmp_path / "raised", nights=7)
        result = cli("trend", str(raised), "--webhook", url, "--fail-on-change", cwd=tmp_path)
        thread.join(timeout=10)
    finally:
        server.server_close()
    assert result.returncode == 5, result.stderr
    assert "secret-token" not in result.stdout + result.stderr
    ((path, kind, body),) = received
    assert path == "/hooks/secret-token" and kind == "application/json"
    payload = json.loads(body)
    assert payload["kind"] == "trajguard.trend.alarm" and payload["suite"] == "demo"
    assert payload["night_id"] == "n06" and payload["target_arl"] == 365
    (alarm,) = payload["alarms"]
    assert alarm["scenario"] == "multiply" and alarm["direction"] == "drop"
    assert alarm["start_night_id"] == "n06" and alarm["harmful"] is True


def test_webhook_sends_nothing_without_a_new_alarm_and_warns_when_unreachable(
    tmp_path: Path, cli
) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/hook?token=secret"
    later = _store(tmp_path / "later")  # the alarm is five nights old: nothing to send
    quiet = cli("trend", str(later), "--webhook", url, cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""
    raised = _store(tmp_path / "raised", nights=7)
    failed = cli("trend", str(raised), "--webhook", url, cwd=tmp_path)
    assert failed.returncode == 0  # a failed notification is a warning, not a gate
    assert "warning: the webhook at 127.0.0.1 could not be reached" in failed.stderr
    assert "secret" not in failed.stderr
    bad = cli("trend", str(raised), "--webhook", "ftp://example.org/x", cwd=tmp_path)
    assert bad.returncode == 2 and "--webhook must be an http:// or https:// URL" in bad.stderr


def test_one_scenario_shows_the_suites_alarms(tmp_path: Path, cli) -> None:
    store = _store(tmp_path / "store")
    whole = json.loads(cli("trend", str(store), "--json", cwd=tmp_path).stdout)
    one = json.loads(
        cli("trend", str(store), "--json", "--scenario", "multiply", cwd=tmp_path).stdout
    )
    assert one["monitoring"] == whole["monitoring"]
    assert one["scenarios"] == [s for s in whole["scenarios"] if s["scenario"] == "multiply"]


def test_trend_json_holds_every_night_and_the_change(tmp_path: Path, cli) -> None:
    store = _store(tmp_path / "store")
    result = cli("trend", str(store), "--json", "--scenario", "multiply", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    (multiply,) = data["scenarios"]
    assert [p["night_id"] for p in multiply["points"]] == [f"n{i:02d}" for i in range(12)]
    (alarm,) = multiply["alarms"]
    assert alarm["start_night_id"] == "n06" and alarm["shape"] == "step" and alarm["harmful"]
    assert alarm["before"] > 0.7 > 0.4 > alarm["after"]
    assert 6 <= alarm["raised_index"] <= 8 and alarm["statistic"] > alarm["threshold"]
    # the suite's procedure (two scenarios: 6 statistics), though one scenario is shown
    assert data["monitoring"]["statistics"] == 6 and data["monitoring"]["target_arl"] == 365
    point = multiply["points"][0]
    assert point["pass_low"] <= point["pass_rate"] <= point["pass_high"]
    assert multiply["drift"]["batch"] == "base1" and multiply["drift"]["pinned"] is True


def test_trend_last_n_keeps_the_newest_nights(tmp_path: Path, cli) -> None:
    store = _store(tmp_path / "store")
    result = cli("trend", str(store), "--json", "--last", "4", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert data["nights"] == 4
    assert [p["night_id"] for p in data["scenarios"][0]["points"]] == ["n08", "n09", "n10", "n11"]
    # with --suite, only the newest nights' date partitions are read: the same nights
    pruned = cli("trend", str(store), "--json", "--suite", "demo", "--last", "4", cwd=tmp_path)
    assert json.loads(pruned.stdout)["scenarios"] == data["scenarios"]


def test_trend_of_an_empty_store_or_several_suites_exits_2(tmp_path: Path, cli) -> None:
    empty = cli("trend", str(tmp_path / "nothing"), cwd=tmp_path)
    assert empty.returncode == 2 and "holds no nights" in empty.stderr
    assert "Traceback" not in empty.stderr
    store = tmp_path / "store"
    record_night(store, night("a1", suite="demo"))
    record_night(store, night("b1", suite="other"))
    several = cli("trend", str(store), cwd=tmp_path)
    assert several.returncode == 2 and "several suites (demo, other)" in several.stderr
    assert "--suite" in several.stderr
    assert cli("trend", str(store), "--suite", "other", cwd=tmp_path).returncode == 0
    bad = cli("trend", str(store), "--suite", "demo", "--last", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "--last must be at least 1" in bad.stderr


def test_real_nights_appended_in_a_row_name_the_night_the_edit_began(tmp_path: Path, cli) -> None:
    store = tmp_path / "store"
    order = ["unedited-seed1", "unedited-seed2", "unedited-seed3"]
    order += ["edited-seed1", "edited-seed2", "edited-seed3"]
    for name in order:
        result = cli(
            "compare",
            str(NIGHTS / "baseline"),
            str(NIGHTS / name),
            "--store",
            str(store),
            "--report",
            str(tmp_path / name / "report.md"),
            "--no-plots",
            cwd=tmp_path,
        )
        assert result.returncode in (0, 1), result.stderr
    edited_id = json.loads((NIGHTS / "edited-seed1" / "manifest.json").read_text())["batch_id"]
    report = (tmp_path / "edited-seed3" / "report.md").read_text()
    assert "## Trend (6 nights of suite demo" in report
    # multiply (50-60 % -> 0-10 %) is named on the edit's night, its pass rate and its runs
    # failing along get_weather; its tool mix (the calculator's share 60-70 % -> 15-30 %) is not
    # raised within three nights (a path statistic's threshold takes three flaky allowances);
    # greeting's pass rate (25-35 % -> 0-15 %) is not named within three nights at one false
    # alarm a year, but its runs failing along get_weather (35-55 % -> 75-95 % of the runs) are
    since = f"since 2026-12-01 ({edited_id})"
    assert f"**pass rate dropped {since}: 53% → 8%" in report
    assert f"### multiply (base): **runs failing along get\\_weather rose {since}" in report
    assert f"### greeting (base): **runs failing along get\\_weather rose {since}" in report
    # nothing unedited alarms, and no crash-rate or rise alarm anywhere
    assert "### capital (base): steady (no alarm)" in report
    assert "### population\\_per\\_thousand (base): **flaky**" in report
    # comparison.json carries the trend, and the report renders again from it byte for byte
    from trajguard.results import read_document

    document = read_document((tmp_path / "edited-seed3" / "comparison.json").read_text())
    assert document.trend is not None and document.trend.nights == 6
    alarms = {s.scenario: s.alarms for s in document.trend.scenarios}
    assert {name for name, found in alarms.items() if found} == {"multiply", "greeting"}
    named = {
        (name, a.metric, a.direction, a.shape, a.path, a.gained)
        for name, found in alarms.items()
        for a in found
    }
    assert named == {
        ("multiply", "pass_rate", "drop", "step", None, None),
        ("multiply", "failing_paths", "rise", "step", "get_weather", None),
        ("greeting", "failing_paths", "rise", "step", "get_weather", None),
    }
    for found in alarms.values():
        for alarm in found:
            assert alarm.harmful and alarm.start_night_id == edited_id and alarm.start_index == 3
            assert alarm.raised_index in (4, 5)  # the second or third edited night
    again_dir = tmp_path / "rerendered"
    rendered = cli(
        "report",
        str(tmp_path / "edited-seed3" / "comparison.json"),
        "--out",
        str(again_dir),
        "--no-plots",
        cwd=tmp_path,
    )
    assert rendered.returncode == 0, rendered.stderr
    assert (again_dir / "report.md").read_text() == report
    rows = read_nights(open_location(store))
    assert rows.drop_duplicates("night_id")["night_id"].tolist()[3] == edited_id
    assert set(rows["runset"]) == {str((NIGHTS / n).absolute()) for n in order}
    # the same night appended again replaces itself
    again = cli(
        "compare",
        str(NIGHTS / "baseline"),
        str(NIGHTS / "edited-seed3"),
        "--store",
        str(store),
        "--report",
        str(tmp_path / "again" / "report.md"),
        "--no-plots",
        cwd=tmp_path,
    )
    assert again.returncode == 1
    assert len(read_nights(open_location(store)).drop_duplicates("night_id")) == 6


def test_baseline_promote_from_the_store_pins_the_night(tmp_path: Path, cli) -> None:
    candidate = tmp_path / "night"
    shutil.copytree(NIGHTS / "unedited-seed2", candidate)
    store = tmp_path / "store"
    done = cli(
        "compare",
        str(NIGHTS / "baseline"),
        str(candidate),
        "--store",
        str(store),
        "--night-date",
        "2026-12-02",
        "--report",
        str(tmp_path / "r" / "report.md"),
        "--no-plots",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    missing = cli(
        "baseline", "promote", "--from-store", str(store), "--night", "2026-12-03", cwd=tmp_path
    )
    assert missing.returncode == 2 and "no night on 2026-12-03" in missing.stderr
    result = cli(
        "baseline",
        "promote",
        "--from-store",
        str(store),
        "--night",
        "2026-12-02",
        "--baselines",
        str(tmp_path / "baselines"),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "baselines" / "demo" / "manifest.json").read_text())
    assert manifest["promoted_by"] == "hand"
    assert manifest["promoted_from_night"].startswith("2026-12-02/")
    assert manifest["batch_id"] == json.loads((candidate / "manifest.json").read_text())["batch_id"]


def test_store_options_without_a_store_are_refused(tmp_path: Path, cli) -> None:
    result = cli(
        "compare",
        str(NIGHTS / "baseline"),
        str(NIGHTS / "unedited-seed1"),
        "--night-date",
        "2026-12-02",
        cwd=tmp_path,
    )
    assert result.returncode == 2 and "pass --store STORE too" in result.stderr
    promote = cli("baseline", "promote", cwd=tmp_path)
    assert promote.returncode == 2 and "either RUNSET or --from-store" in promote.stderr


def test_nightly_promote_if_clean_needs_a_store(tmp_path: Path, cli, monkeypatch) -> None:
    monkeypatch.delenv("TRAJGUARD_STORE", raising=False)
    result = cli("nightly", str(REPO / "suites" / "demo.yaml"), "--promote-if-clean", cwd=tmp_path)
    assert result.returncode == 2
    assert "--promote-if-clean needs the series of nights: pass --store STORE" in result.stderr
    assert not (tmp_path / "reports").exists()


def test_nightly_fail_on_change_needs_a_store(tmp_path: Path, cli, monkeypatch) -> None:
    monkeypatch.delenv("TRAJGUARD_STORE", raising=False)
    result = cli("nightly", str(REPO / "suites" / "demo.yaml"), "--fail-on-change", cwd=tmp_path)
    assert result.returncode == 2
    assert "--fail-on-change needs the series of nights: pass --store STORE" in result.stderr
    assert not (tmp_path / "reports").exists()


def test_trajguard_docs_nights_prints_the_method(tmp_path: Path, cli) -> None:
    result = cli("docs", "nights", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("# The store of nights")
    assert "boiling frog" in result.stdout


def test_a_night_date_that_is_no_date_exits_2_and_writes_nothing(tmp_path: Path, cli) -> None:
    result = cli(
        "compare",
        str(NIGHTS / "baseline"),
        str(NIGHTS / "unedited-seed1"),
        "--store",
        str(tmp_path / "store"),
        "--night-date",
        "2026-02-30",
        "--report",
        str(tmp_path / "r" / "report.md"),
        "--no-plots",
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "date '2026-02-30' cannot name a store partition" in result.stderr
    assert "YYYY-MM-DD" in result.stderr
    assert not (tmp_path / "r").exists() and not (tmp_path / "store").exists()


def test_trend_html_writes_the_page_beside_the_text_and_refuses_a_directory(
    tmp_path: Path, cli
) -> None:
    store = _store(tmp_path / "store")
    result = cli("trend", str(store), "--json", "--html", "pages/trend.html", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["nights"] == 12  # stdout stays the JSON
    assert "wrote pages/trend.html" in result.stderr
    page = (tmp_path / "pages" / "trend.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Trend: demo" in page
    assert "pass rate dropped since 2026-11-07" in page
    assert [p.name for p in (tmp_path / "pages").iterdir()] == ["trend.html"]  # no temp file
    (tmp_path / "adir").mkdir()
    refused = cli("trend", str(store), "--html", "adir", cwd=tmp_path)
    assert refused.returncode == 2
    assert "adir" in refused.stderr and "Traceback" not in refused.stderr
    assert list((tmp_path / "adir").iterdir()) == []
    assert refused.stdout == ""  # nothing printed before the refusal
