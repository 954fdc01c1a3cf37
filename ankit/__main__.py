from ankit.cli import main

raise SystemExit(main())
