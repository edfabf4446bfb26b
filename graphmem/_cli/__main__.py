"""`python -m graphmem._cli`: the graphmem command without its installed script."""

from .main import main

raise SystemExit(main())
