"""Layer 4, what readers see: pages, tables, charts, the round explorer and the report helpers the
notebooks call. Imports the engine and the layers below.
"""
