"""`python3 -m ankit`: the same as the ankit command."""

from ankit.cli import main

raise SystemExit(main())
