"""A registry an analyst could add on results day: an announcement the project does not know,
with claims of several kinds written as data only (no test names them). The sentences are this
test's own; the systems are real results of the committed round, so its claims build strictly."""

from __future__ import annotations

ANALYST_ID = "srvmaker-v6.1"
GB300_RACK = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
GB200_RACK = "GB200-NVL72_GB200-186GB_aarch64x72_TRT"

ANALYST_REGISTRY = f"""
# A test announcement: a cloud's results, in the test's own words.
announcement:
  id: {ANALYST_ID}
  title: A cloud's MLPerf Inference v6.1 results (a test announcement)
  publisher: CoreWeave
  claimant: CoreWeave
  vendor: NVIDIA
  date: "2026-09-19"
  round: v6.1
  source_url: https://www.coreweave.com/blog
  source_label: the cloud's blog (a test announcement; no real post)
  results_retrieved: "2026-09-16"
  division: closed

claims:
  - id: srvmaker-rack-figure
    title: "About 1.2 million gpt-oss-120b tokens per second on one rack"
    statement: One GB300 NVL72 rack of the cloud served 1.2 million gpt-oss-120b tokens per second Offline.
    kind: figure
    claimed: 1.2
    scale: 1000000
    unit: million tokens/s
    benchmark: gpt-oss-120b
    scenarios: [Offline]
    subject: {{organization: CoreWeave, system: {GB300_RACK}}}

  - id: srvmaker-rack-over-gb200
    title: "Up to 1.3x the GB200 rack"
    statement: The cloud's GB300 rack gave up to 1.3 times the gpt-oss-120b throughput of its GB200 rack.
    kind: ratio
    form: figure
    quantifier: up-to
    claimed: 1.3
    unit: x
    benchmark: gpt-oss-120b
    scenarios: [Offline, Server]
    subject: {{organization: CoreWeave, system: {GB300_RACK}}}
    baseline: {{organization: CoreWeave, system: {GB200_RACK}}}

  - id: srvmaker-rack-twice-gb200
    title: "Twice the GB200 rack"
    statement: The cloud's GB300 rack gave twice the gpt-oss-120b throughput of its GB200 rack, Offline and Server.
    kind: ratio
    form: figure
    claimed: 2
    unit: x
    benchmark: gpt-oss-120b
    scenarios: [Offline, Server]
    subject: {{organization: CoreWeave, system: {GB300_RACK}}}
    baseline: {{organization: CoreWeave, system: {GB200_RACK}}}

  - id: srvmaker-submitted
    title: "Results on gpt-oss-120b"
    statement: The cloud submitted gpt-oss-120b results in this round.
    kind: presence
    rows: {{organization: CoreWeave, benchmark: gpt-oss-120b}}

  - id: srvmaker-uptime
    title: "The most reliable cloud"
    statement: The cloud's GPUs are the most reliable of any cloud.
    kind: not-checkable
    reason: MLPerf Inference measures throughput and latency, not how often a cloud's GPUs fail.
"""

# An announcement of one claim that sets one statement aside: every count on its pages is one
# ("judges 1 claim", "sets 1 statement aside"), which the generic tests must read as such.
SINGLE_ID = "oneclaim-v6.1"
SINGLE_REGISTRY = f"""
# A test announcement of a single claim, in the test's own words.
announcement:
  id: {SINGLE_ID}
  title: A cloud's one MLPerf Inference v6.1 result (a test announcement)
  publisher: Azure
  claimant: Azure
  vendor: NVIDIA
  date: "2026-09-20"
  round: v6.1
  source_url: https://azure.microsoft.com/blog
  source_label: the cloud's blog (a test announcement; no real post)
  results_retrieved: "2026-09-16"
  division: closed
  set_aside:
    - text: Customers can rent the same rack today.
      why: A statement about availability for rent, which MLPerf results do not record.

claims:
  - id: oneclaim-submitted
    title: "Results on DeepSeek-R1"
    statement: The cloud submitted DeepSeek-R1 results in this round.
    kind: presence
    rows: {{organization: Azure, benchmark: deepseek-r1}}
"""
