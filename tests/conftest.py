import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SHARED_SUMMARY = ROOT.parent / "shared" / "mlperf" / "v6.1" / "summary.csv"
sys.path.insert(0, str(TESTS))


@pytest.fixture(scope="session")
def committed_results():
    from claimbook.results import load_results

    return load_results(ROOT / "data" / "mlperf" / "v6.1.csv")
