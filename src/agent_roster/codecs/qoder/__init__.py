"""Qoder CLI codec (docs/codecs/qoder.md)."""
