"""Under CI a skipped test is a failure (issue 13 item 5).

The real-harness and PostgreSQL tests skip where their CLI or server is missing, which is
right on a laptop and wrong in CI: there every test must run. ``tests/conftest.py`` installs
the hook; it has no imports of the suite, so a test can run it in a pytest of its own.
"""

from __future__ import annotations

import os

import pytest


def ci_is_set() -> bool:
    """Whether this run is CI's (``CI`` set, as every CI service and ``.ci/run`` do)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Under CI a skip is a failure (issue 13 item 5): the real-harness and PostgreSQL
    tests skip where their CLI or server is missing, and CI must run every one of them."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and ci_is_set():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"CI is set, so a skipped test fails: {reason}"
