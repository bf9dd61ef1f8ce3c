"""Layer 1, the data: official results files read, checked and tidied (ingest, fetch, diff), the
earlier rounds, the reviewed reference tables and the GPU prices. Imports only ``common``.
"""
