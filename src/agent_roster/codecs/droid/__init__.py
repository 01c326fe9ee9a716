"""Factory Droid codec (docs/codecs/droid.md)."""
