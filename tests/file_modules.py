"""Load a Python file that is not an importable module (a script, another folder's conftest)
under a name of the caller's choosing."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_file_module(path: Path, name: str) -> ModuleType:
    """The module ``path`` defines, executed once per call and registered nowhere."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
