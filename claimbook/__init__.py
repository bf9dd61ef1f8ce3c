"""claimbook: fact-check vendor performance claims against published MLPerf Inference results.

Data flow: raw summary.csv -> ``ingest`` -> tidy table -> ``results``/``compare``/``verdict``
-> chapter notebooks -> ``build`` -> the book. Importing the package has no side effects.
"""

__version__ = "0.1.0"
