"""Loads the shared tool helpers beside this file by path, so tool modules import neither ankit nor sys.path."""

import hashlib
import importlib.util
import sys
from pathlib import Path


def common(name: str):
    """The helper module _<name>.py of this folder, loaded once per process under a name unique to its path."""
    path = Path(__file__).resolve().parent / f"_{name}.py"
    # the "ankit_tool" prefix makes ankit show these helpers' own errors as they are, without a class name
    key = f"ankit_tools_common_{name}_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # before running it: dataclasses look their module up there
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[key]
            raise
    return sys.modules[key]
