"""The Kilo Code CLI codec: ``codec.CODEC``, OpenCode's reader and renderer in Kilo's flavor."""
