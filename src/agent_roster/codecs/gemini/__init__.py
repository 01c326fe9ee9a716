"""The Gemini CLI codec: ``codec.CODEC`` behind the Codec Protocol, and its parts."""
