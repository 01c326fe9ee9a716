"""The Qwen Code codec: ``codec.CODEC`` behind the Codec Protocol, and its parts."""
