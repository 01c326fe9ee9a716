"""Sharing one profile as one file: seed 001's YAML export format, read and written, and
gists through the ``gh`` CLI (issue 15 items 3, 4)."""
