"""The kinds of claim, one module each: its fields, its validation and its check."""
