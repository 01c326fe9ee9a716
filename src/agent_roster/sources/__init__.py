"""Profiles and servers from other git repositories, pinned in ``roster.lock`` (issue 15
item 5): ``git.py`` reads a source at one commit, ``lock.py`` is the lock file,
``declare.py`` the ``[sources.<name>]`` tables of roster.toml."""
