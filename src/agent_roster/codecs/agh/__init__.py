"""The AGH codec: ``codec.CODEC`` behind the Codec Protocol, and its parts."""
