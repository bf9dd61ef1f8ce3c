"""The foundation every layer may use: errors, project paths, safe file writing, identifiers,
bounded reading of untrusted text.
"""
