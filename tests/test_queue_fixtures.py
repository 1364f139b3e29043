"""The rule behind the queue tests' real components: a missing browser or database skips a test on a
developer's machine and fails it in CI, where .ci/run installs them."""

import pytest

from queue_fixtures import missing


def test_a_missing_component_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="Chromium is missing in CI: .ci/run must install it"):
        missing("Chromium")


def test_a_missing_component_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="Chromium not installed"):
        missing("Chromium")


def test_ci_run_installs_each_component_the_fixtures_look_for():
    from conftest import ROOT

    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for probe, package in [("command -v chromium ", "chromium"), ("command -v chromedriver ", "chromium-driver"),
                           ("/usr/lib/postgresql/*/bin/initdb", "postgresql")]:
        assert probe in script and f"need+=({package})" in script, package
    assert 'export CI="${CI:-true}"' in script
