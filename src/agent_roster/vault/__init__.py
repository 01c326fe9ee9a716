"""Reading and writing the vault: layout, parsers, loader and the atomic writer."""
