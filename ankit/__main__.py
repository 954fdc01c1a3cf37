"""`python3 -m ankit`: the same as the ankit command."""

import os
import sys

# `-m` puts the working folder first on sys.path, so a project's shlex.py or tomllib.py would run as ankit imports
# it, before any trust question; it stays only where it is the folder holding ankit (a clone, run from there).
if sys.path and not sys.flags.safe_path and \
        os.path.realpath(sys.path[0] or os.curdir) != os.path.dirname(os.path.dirname(os.path.realpath(__file__))):
    del sys.path[0]

from ankit.cli import main  # noqa: E402  (after the working folder left sys.path)

raise SystemExit(main())
